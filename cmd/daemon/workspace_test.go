package daemon_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWorkerSpaces: workers stopped by SIGTERM, with a nanny and without,
// remove their directories and the --local-directory made for them; a
// nanny killed outright leaves its worker's directory, which the next
// worker on that --local-directory purges.
func TestWorkerSpaces(t *testing.T) {
	base := t.TempDir()
	sched := start(t, bins.dusk, "scheduler", "--host", "127.0.0.1", "--port", "0")
	worker := func(dir string, args ...string) *proc {
		return start(t, bins.dusk, append([]string{"worker", "--scheduler", sched.addr, "--host", "127.0.0.1",
			"--nthreads", "1", "--local-directory", filepath.Join(base, dir)}, args...)...)
	}
	entries := func(dir string) []string {
		var names []string
		filepath.WalkDir(filepath.Join(base, dir), func(path string, d os.DirEntry, err error) error {
			if err == nil && path != filepath.Join(base, dir) {
				rel, _ := filepath.Rel(base, path)
				names = append(names, rel)
			}
			return nil
		})
		return names
	}
	for _, w := range []*proc{worker("nannied"), worker("alone", "--no-nanny")} {
		w.cmd.Process.Signal(syscall.SIGTERM)
		waitExit(t, w, 30*time.Second)
	}
	if left := entries(""); len(left) > 0 {
		t.Errorf("workers stopped by SIGTERM left %v", left)
	}

	killed := worker("shared")
	if err := os.WriteFile(filepath.Join(base, "shared", "not-a-space"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	killed.cmd.Process.Kill()
	waitExit(t, killed, 30*time.Second)
	stale, _ := filepath.Glob(filepath.Join(base, "shared", "worker-*"))
	if len(stale) != 1 {
		t.Fatalf("a killed nanny left %v, want its worker's directory", stale)
	}
	next := worker("shared")
	if _, err := os.Stat(stale[0]); !os.IsNotExist(err) {
		t.Errorf("the next worker left the dead one's %s: %v", stale[0], err)
	}
	next.cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, next, 30*time.Second)
	if left := entries("shared"); len(left) != 1 || left[0] != filepath.Join("shared", "not-a-space") {
		t.Errorf("left %v, want only the file put there", left)
	}
}
