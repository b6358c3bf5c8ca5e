package server

import (
	"strings"
	"testing"

	"github.com/duskdata/dusk/internal/protocol"
)

// A worker that advertises a loopback address is refused only when it
// connects from another machine's address.
func TestLoopbackFromAfar(t *testing.T) {
	for _, tc := range []struct {
		id, remote string
		refused    bool
	}{
		{"127.0.0.1:4000", "198.18.0.3:51000", true},
		{"localhost:4000", "10.1.2.3:51000", true},
		{"[::1]:4000", "[2001:db8::7]:51000", true},
		{"127.0.0.1:4000", "127.0.0.1:51000", false},
		{"198.18.0.3:4000", "198.18.0.3:51000", false},
		{"198.18.0.3:4000", "127.0.0.1:51000", false},
		{"not-an-address", "198.18.0.3:51000", false},
	} {
		why := loopbackFromAfar(protocol.WorkerID(tc.id), tc.remote)
		if (why != "") != tc.refused {
			t.Errorf("%s from %s: refused %q, want refused %v", tc.id, tc.remote, why, tc.refused)
		}
		if why != "" && !strings.Contains(why, "--contact-address") {
			t.Errorf("the refusal does not say what to do: %s", why)
		}
	}
}
