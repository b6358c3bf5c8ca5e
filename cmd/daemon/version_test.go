package daemon

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/duskdata/dusk/internal/protocol"
)

// The version names the module's version, the commit and whether the tree
// had uncommitted changes, the protocol, and Go; a build without its info
// says so rather than inventing one.
func TestVersion(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "5f36fd0b2cd1258b5428fb130ca4ee9edd895a91"},
		{Key: "vcs.time", Value: "2026-11-26T21:29:46Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want []string
	}{
		{"stamped", stamped, true, []string{"dusk v0.3.0\n",
			"commit 5f36fd0b2cd1258b5428fb130ca4ee9edd895a91 (2026-11-26T21:29:46Z, with uncommitted changes)\n",
			"protocol " + protocol.Version + "\n", "go1.26.8 "}},
		{"no vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, []string{"dusk (devel)\n", "protocol "}},
		{"no build info", nil, false, []string{"dusk (unknown)\n", "protocol "}},
	} {
		got := version(c.bi, c.ok)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		if c.name != "stamped" && strings.Contains(got, "commit") {
			t.Errorf("%s: %q names a commit", c.name, got)
		}
	}
}
