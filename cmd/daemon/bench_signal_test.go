package daemon_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBenchInterrupted stops `dusk bench spill` with SIGTERM once its local
// cluster runs: the suite stops with an error that says why, and the
// workers' spill directories go with the cluster (a killed 5e8 run once
// left 34 GB of them behind).
func TestBenchInterrupted(t *testing.T) {
	tmp := t.TempDir()
	cmd := exec.Command(bins.dusk, "bench", "spill", "--rows", "2e7")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	lines.Scan() // the machine line, then the header, printed once the cluster is up
	if !strings.HasPrefix(lines.Text(), "machine: ") || !lines.Scan() || !strings.HasPrefix(lines.Text(), "question") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no header: %q\n%s", lines.Text(), stderr)
	}
	spillDirs := func() []string {
		dirs, _ := filepath.Glob(filepath.Join(tmp, "dusk-worker-*"))
		return dirs
	}
	if len(spillDirs()) == 0 {
		t.Fatal("no spill directory while the suite runs")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, out) // until the process closes its output
	err = cmd.Wait()
	if code := exitCode(err); code != 0 && !(code == 1 && (strings.Contains(stderr.String(), "context canceled") || strings.Contains(stderr.String(), "stopped on the signal"))) {
		t.Fatalf("exit %d, want 1 and the cancellation:\n%s", code, stderr)
	}
	if dirs := spillDirs(); len(dirs) > 0 {
		t.Fatalf("spill directories left behind: %v", dirs)
	}
}
