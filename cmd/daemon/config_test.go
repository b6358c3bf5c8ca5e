package daemon_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk"
)

// A worker takes its flags from a YAML file and the environment, the
// environment winning; `dusk config` says where each value came from; an
// unknown key stops the worker, naming the key and the closest known one.
func TestConfigFileAndEnvironment(t *testing.T) {
	ctx := testCtx(t)
	file := filepath.Join(t.TempDir(), "dusk.yaml")
	if err := os.WriteFile(file, []byte("log-level: info\nworker:\n  nthreads: 3\n  name: from-file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sched := start(t, bins.dusk, "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "none")
	startEnv(t, []string{"DUSK_CONFIG=" + file, "DUSK_NAME=from-env"}, bins.dusk,
		"worker", "--scheduler", sched.addr, "--host", "127.0.0.1", "--local-directory", t.TempDir(), "--no-nanny")
	c, err := dusk.NewClient(ctx, dusk.Address(sched.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ws, err := c.WaitForWorkers(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ws[0].NThreads != 3 || ws[0].Name != "from-env" {
		t.Fatalf("worker %q with %d threads; want from-env with 3", ws[0].Name, ws[0].NThreads)
	}
	// A scheduler without a provider cannot adapt, and says so.
	if err := c.Adapt(ctx, 1, 2); err == nil || !strings.Contains(err.Error(), "no provider") {
		t.Errorf("Adapt without a provider: %v", err)
	}

	cmd := exec.Command(bins.dusk, "config", "worker", "--config", file, "--memory-limit", "2GiB")
	cmd.Env = append(os.Environ(), "DUSK_NAME=from-env")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dusk config: %v\n%s", err, out)
	}
	for _, want := range []string{
		`nthreads: "3"`, "# file " + file,
		`name: "from-env"`, "# env DUSK_NAME",
		`memory-limit: "2GiB"`, "# flag",
		`memory-target: "0.6"`, "# default",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("dusk config says nothing of %q:\n%s", want, out)
		}
	}

	// dusk bench's flags come from the same places.
	cmd = exec.Command(bins.dusk, "config", "bench")
	cmd.Env = append(os.Environ(), "DUSK_ROWS=1e4")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), `rows: "1e4"`) || !strings.Contains(string(out), "# env DUSK_ROWS") {
		t.Errorf("dusk config bench: %v\n%s", err, out)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("worker:\n  nthread: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := startNoAddr(t, bins.dusk, "worker", "--config", bad, "--scheduler", sched.addr)
	if err := waitExit(t, w, 30*time.Second); exitCode(err) != 1 || !strings.Contains(w.stderr.String(), "unknown key worker.nthread (did you mean worker.nthreads?)") {
		t.Fatalf("a worker with a misspelt key: exit %v\n%s", err, w.stderr)
	}
}
