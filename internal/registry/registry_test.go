package registry

import (
	"strings"
	"testing"
)

// TestUnknownOpSaysHowToRegister checks that a missing operation's error
// gives the hint of the longest prefix that covers it, else the default.
func TestUnknownOpSaysHowToRegister(t *testing.T) {
	Hint("hint-test-", "call short.Register")
	Hint("hint-test-typed-", "call typed.RegisterType")
	cases := map[string]string{
		"hint-test-typed-sum:int": "call typed.RegisterType",
		"hint-test-map":           "call short.Register",
		"no-hint-op":              `dusk.Register("no-hint-op", fn)`,
	}
	for name, want := range cases {
		_, err := Lookup(name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Lookup(%q): %v, want it to say %q", name, err, want)
		}
	}
}
