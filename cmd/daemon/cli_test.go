package daemon_test

import (
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

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

// A worker stopped while it still waits for its scheduler (SIGTERM, as a
// person's Ctrl-C or an orchestrator does) exits cleanly, logging nothing
// that reads as a failure.
func TestWorkerStoppedWhileWaiting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody serves there
	p := startNoAddr(t, bins.dusk, "worker", "--scheduler", addr, "--host", "127.0.0.1", "--local-directory", t.TempDir())
	p.stderr.waitFor(t, testCtx(t), p, "waiting for the scheduler")
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := waitExit(t, p, time.Minute); err != nil {
		t.Fatalf("exit: %v\n%s", err, p.stderr)
	}
	for _, bad := range []string{"canceled", "ERROR", "level=WARN", "start worker"} {
		if strings.Contains(p.stderr.String(), bad) {
			t.Errorf("a clean stop logged %q:\n%s", bad, p.stderr)
		}
	}
}

// A normal end, a worker told to stop and then its scheduler, logs nothing
// that reads as a failure on either side.
func TestQuietShutdown(t *testing.T) {
	sched, workers := startCluster(t, bins.dusk, 1)
	w := workers[0]
	w.cmd.Process.Signal(syscall.SIGTERM)
	if err := waitExit(t, w, time.Minute); err != nil {
		t.Fatalf("worker exit: %v\n%s", err, w.stderr)
	}
	sched.stderr.waitFor(t, testCtx(t), sched, "worker retired")
	sched.cmd.Process.Signal(syscall.SIGTERM)
	if err := waitExit(t, sched, time.Minute); err != nil {
		t.Fatalf("scheduler exit: %v\n%s", err, sched.stderr)
	}
	for name, p := range map[string]*proc{"worker": w, "scheduler": sched} {
		for _, bad := range []string{"level=WARN", "level=ERROR", "canceled", "lost"} {
			if strings.Contains(p.stderr.String(), bad) {
				t.Errorf("the %s's normal end logged %q:\n%s", name, bad, p.stderr)
			}
		}
	}
}
