package daemon

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/duskdata/dusk/internal/procmem"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/workspace"
	"github.com/duskdata/dusk/worker"
)

// nannyEnv marks a worker process started by a nanny. The nanny holds the
// worker's standard input open; the worker leaves when it closes, so that a
// nanny killed outright takes its worker with it.
const nannyEnv = "DUSK_NANNY"

// The nanny tells a worker it restarted why it did (a protocol.Restart
// reason), and how often it restarted and killed its workers so far.
const (
	restartedEnv = "DUSK_RESTARTED"
	restartsEnv  = "DUSK_RESTARTS"
	killsEnv     = "DUSK_KILLS"
)

// restartsFromNanny reads what the nanny told this worker process: why it
// was started again, and the nanny's restarts and kills so far.
func restartsFromNanny() (reason string, restarts, kills int) {
	fmt.Sscan(os.Getenv(restartsEnv), &restarts)
	fmt.Sscan(os.Getenv(killsEnv), &kills)
	return os.Getenv(restartedEnv), restarts, kills
}

const (
	// nannyInterval is how often the nanny reads its worker's memory.
	nannyInterval = 100 * time.Millisecond
	// retireGrace is how long a worker told to stop may take to hand off
	// its results before the nanny kills it.
	retireGrace = 40 * time.Second
	// restartPause is the wait before restarting a worker that died within
	// a second of starting.
	restartPause = 500 * time.Millisecond
)

// nannyGone is closed when this worker's nanny goes away; nil (never
// ready) for a worker that has none.
func nannyGone() <-chan struct{} {
	if os.Getenv(nannyEnv) == "" {
		return nil
	}
	gone := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(gone)
	}()
	return gone
}

// nanny runs `dusk worker` as a child process with the same flags, and
// starts a fresh one when it dies or when its memory passes the terminate
// fraction of its limit, as Dask's nanny does. The scheduler recomputes
// what a dead worker held. A worker that stops on its own, or that dies
// before it joined the scheduler (other than for memory), ends the nanny.
type nanny struct {
	args      []string // the worker's flags
	limit     int64
	terminate int64 // bytes of process memory past which the worker is killed
	dir       string
	stdout    io.Writer
	stderr    io.Writer
	log       *slog.Logger
	// restarted is why the next worker starts again ("" for the first);
	// restarts and kills count them.
	restarted       string
	restarts, kills int
}

func runNanny(ctx context.Context, args []string, limit int64, f worker.Fractions, dir string, stdout, stderr io.Writer, log *slog.Logger) error {
	n := &nanny{args: args, limit: limit, dir: dir, stdout: stdout, stderr: stderr, log: log.With("nanny", os.Getpid())}
	if limit > 0 {
		n.terminate = int64(f.WithDefaults().Terminate * float64(limit))
	}
	for {
		started := time.Now()
		ready, killed, err := n.runWorker(ctx)
		switch {
		case ctx.Err() != nil, err == nil:
			return nil
		case !ready && !killed:
			return fmt.Errorf("the worker did not start: %w", err)
		}
		n.log.Warn("restarting the worker", "reason", err)
		n.restarts++
		n.restarted = protocol.RestartDied
		if killed {
			n.kills++
			n.restarted = protocol.RestartKilled
		}
		if time.Since(started) < time.Second {
			// One that dies at once does not restart in a tight loop.
			select {
			case <-time.After(restartPause):
			case <-ctx.Done():
				return nil
			}
		}
	}
}

// runWorker runs one worker process until it exits. ready reports whether
// it had joined the scheduler, killed whether the nanny killed it for its
// memory.
func (n *nanny) runWorker(ctx context.Context) (ready, killed bool, err error) {
	exe, err := os.Executable()
	if err != nil {
		return false, false, fmt.Errorf("find this program to start a worker: %w", err)
	}
	// Each worker process gets its own directory, removed when it exits:
	// a killed worker leaves its spilled results behind. A nanny that was
	// itself killed leaves its own, which the next purges.
	space, err := workspace.New(n.dir, "worker-")
	if err != nil {
		return false, false, fmt.Errorf("--local-directory: %w", err)
	}
	defer space.Close()
	dir := space.Dir
	args := append([]string{"worker"}, n.args...)
	cmd := exec.Command(exe, append(args, "--no-nanny", "--local-directory", dir)...)
	cmd.Env = append(os.Environ(), nannyEnv+"=1", restartedEnv+"="+n.restarted,
		fmt.Sprintf("%s=%d", restartsEnv, n.restarts), fmt.Sprintf("%s=%d", killsEnv, n.kills))
	cmd.Stderr = n.stderr
	stdin, hold, err := os.Pipe()
	if err != nil {
		return false, false, err
	}
	defer hold.Close()
	cmd.Stdin = stdin
	out, err := cmd.StdoutPipe()
	if err != nil {
		stdin.Close()
		return false, false, err
	}
	if err := cmd.Start(); err != nil {
		stdin.Close()
		return false, false, fmt.Errorf("start worker process: %w", err)
	}
	stdin.Close() // the child has it
	pid := cmd.Process.Pid
	n.log.Info("started worker process", "pid", pid)

	var up atomic.Bool
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "dusk worker at ") {
				up.Store(true)
			}
			fmt.Fprintln(n.stdout, sc.Text())
		}
	}()
	exited := make(chan struct{})
	var killedAt atomic.Int64 // process memory when killed for it
	go n.watch(ctx, cmd.Process, exited, &killedAt)
	<-lines // the pipe closes when the process exits
	err = cmd.Wait()
	close(exited)
	if rss := killedAt.Load(); rss > 0 {
		killed = true
		err = fmt.Errorf("worker process memory %s passed %s, %.0f%% of its %s limit: killed",
			worker.FormatBytes(rss), worker.FormatBytes(n.terminate), 100*float64(n.terminate)/float64(n.limit), worker.FormatBytes(n.limit))
	} else if err != nil {
		err = fmt.Errorf("worker process %d: %w", pid, err)
	}
	return up.Load(), killed, err
}

// watch kills the worker when its memory passes the terminate threshold,
// and tells it to retire, then kills it, when the nanny is stopped.
func (n *nanny) watch(ctx context.Context, p *os.Process, exited <-chan struct{}, killedAt *atomic.Int64) {
	tick := time.NewTicker(nannyInterval)
	defer tick.Stop()
	stop := ctx.Done()
	var grace <-chan time.Time
	for {
		select {
		case <-exited:
			return
		case <-stop:
			p.Signal(syscall.SIGTERM)
			stop, grace = nil, time.After(retireGrace)
		case <-grace:
			n.log.Warn("the worker did not retire in time: killing it", "pid", p.Pid)
			p.Kill()
			return
		case <-tick.C:
			if rss := procmem.Private(p.Pid); n.terminate > 0 && rss > n.terminate {
				n.log.Warn("worker exceeded its memory budget: restarting it", "pid", p.Pid,
					"process", worker.FormatBytes(rss), "limit", worker.FormatBytes(n.limit))
				killedAt.Store(rss)
				p.Kill()
				return
			}
		}
	}
}
