package daemon_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/duskdata/dusk/bench"
)

// The dusk binary's help lists every command and every bench suite, from
// the tables that run them; a slip in a command or a flag names the
// nearest, without a page of usage after it.
func TestCommandLine(t *testing.T) {
	out, err := exec.Command(bins.dusk, "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{"dusk scheduler", "dusk worker", "dusk cluster", "dusk config", "dusk tls", "dusk version", "dusk bench"}, bench.Suites()...) {
		if !strings.Contains(string(out), want) {
			t.Errorf("dusk --help lacks %q:\n%s", want, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"wroker"}, `unknown command "wroker" (did you mean worker?)`},
		{[]string{"worker", "--nthread", "2"}, "dusk worker: unknown flag --nthread (did you mean --nthreads?); -h lists the flags"},
		{[]string{"scheduler", "--portt", "1"}, "unknown flag --portt (did you mean --port?)"},
		{[]string{"bench", "tasks", "--task", "10"}, "unknown flag --task (did you mean --tasks?)"},
	} {
		out, err := exec.Command(bins.dusk, c.args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("dusk %s: %v\n%s\nwant %q", strings.Join(c.args, " "), err, out, c.want)
		}
		if strings.Contains(string(out), "Usage of") || strings.Contains(string(out), "-nthreads int") {
			t.Errorf("dusk %s printed the flags' usage:\n%s", strings.Join(c.args, " "), out)
		}
	}
}
