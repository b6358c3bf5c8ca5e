package daemon

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/duskdata/dusk/internal/protocol"
)

// version describes this build from its build info, as `dusk version`
// prints it: the module's version, the commit it was built from (when
// built in a checkout), the protocol it speaks, and the Go that built it.
func version(bi *debug.BuildInfo, ok bool) string {
	var b strings.Builder
	mod := "(unknown)"
	if ok && bi.Main.Version != "" {
		mod = bi.Main.Version
	}
	fmt.Fprintf(&b, "dusk %s\n", mod)
	settings := map[string]string{}
	if ok {
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "commit %s", rev)
		var notes []string
		if t := settings["vcs.time"]; t != "" {
			notes = append(notes, t)
		}
		if settings["vcs.modified"] == "true" {
			notes = append(notes, "with uncommitted changes")
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "protocol %s\n", protocol.Version)
	goVersion := runtime.Version()
	if ok && bi.GoVersion != "" {
		goVersion = bi.GoVersion
	}
	fmt.Fprintf(&b, "%s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}
