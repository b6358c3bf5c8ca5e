package bench

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The machine line names the cores and the architecture, and the CPU's
// model where the system says it.
func TestMachine(t *testing.T) {
	m := machine()
	for _, want := range []string{strconv.Itoa(runtime.NumCPU()) + " cores", runtime.GOARCH, " kernels"} {
		if !strings.Contains(m, want) {
			t.Errorf("machine() = %q, lacks %q", m, want)
		}
	}
	if model := cpuModel(); model != "" && !strings.HasPrefix(m, model) {
		t.Errorf("machine() = %q, does not start with the model %q", m, model)
	}
}
