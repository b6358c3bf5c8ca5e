package daemon_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bins holds the binaries the tests run: cmd/dusk, and dusktest (dusk with
// test-only functions).
var bins struct{ dusk, dusktest string }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dusk-bins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins.dusk = filepath.Join(dir, "dusk")
	bins.dusktest = filepath.Join(dir, "dusktest")
	for pkg, out := range map[string]string{"github.com/duskdata/dusk/cmd/dusk": bins.dusk, "github.com/duskdata/dusk/cmd/dusktest": bins.dusktest} {
		// -buildvcs=auto: the commit goes into the build info (dusk version)
		// even where the environment turns stamping off.
		cmd := exec.Command("go", "build", "-buildvcs=auto", "-o", out, pkg)
		if b, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, b)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	if data.path != "" {
		os.RemoveAll(filepath.Dir(data.path)) // the groupby table the tests shared
	}
	os.Exit(code)
}

// proc is a running dusk process.
type proc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *syncBuffer
	exited chan struct{}
	err    error
}

type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed at the next write; nil until asked for
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// waitFor waits until the buffer holds text, or the process p writing it
// exits, or ctx ends: a test waits for a line, not for time.
func (s *syncBuffer) waitFor(t testing.TB, ctx context.Context, p *proc, text string) {
	t.Helper()
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), text) {
			s.mu.Unlock()
			return
		}
		changed := s.nextLocked()
		s.mu.Unlock()
		s.wait(t, ctx, p, changed, fmt.Sprintf("%q", text))
	}
}

// count is how many times the buffer holds each of texts, summed.
func (s *syncBuffer) count(texts ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, text := range texts {
		n += strings.Count(s.b.String(), text)
	}
	return n
}

// waitForCount waits until the buffer holds texts n times in all, as
// count counts them, or the process exits, or ctx ends.
func (s *syncBuffer) waitForCount(t testing.TB, ctx context.Context, p *proc, n int, texts ...string) {
	t.Helper()
	for {
		s.mu.Lock()
		have := 0
		for _, text := range texts {
			have += strings.Count(s.b.String(), text)
		}
		if have >= n {
			s.mu.Unlock()
			return
		}
		changed := s.nextLocked()
		s.mu.Unlock()
		s.wait(t, ctx, p, changed, fmt.Sprintf("%d of %q", n, texts))
	}
}

// nextLocked is closed at the next write; called with s.mu held.
func (s *syncBuffer) nextLocked() <-chan struct{} {
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

func (s *syncBuffer) wait(t testing.TB, ctx context.Context, p *proc, changed <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-changed:
	case <-p.exited:
		t.Fatalf("the process exited before writing %s:\n%s", what, s)
	case <-ctx.Done():
		t.Fatalf("nothing written of %s: %v\n%s", what, ctx.Err(), s)
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs bin with args and waits for the line naming its address.
func start(t testing.TB, bin string, args ...string) *proc {
	t.Helper()
	return startEnv(t, nil, bin, args...)
}

// startEnv is start with variables added to the environment.
func startEnv(t testing.TB, env []string, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), stderr: &syncBuffer{}, exited: make(chan struct{})}
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.cmd.Process.Signal(syscall.SIGCONT) // in case a test froze it
		p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("%s %s:\n%s", filepath.Base(bin), strings.Join(args, " "), p.stderr)
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if _, a, ok := strings.Cut(sc.Text(), " at "); ok {
				select {
				case addr <- a:
				default:
				}
			}
		}
		io.Copy(io.Discard, out)
	}()
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	select {
	case p.addr = <-addr:
	case <-p.exited:
		t.Fatalf("%s exited at start: %v\n%s", bin, p.err, p.stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start in 30s\n%s", bin, p.stderr)
	}
	return p
}

// startCluster starts a scheduler and n workers of bin on 127.0.0.1, each
// with one thread and a nanny unless workerArgs say otherwise.
func startCluster(t testing.TB, bin string, workers int, workerArgs ...string) (*proc, []*proc) {
	t.Helper()
	sched := start(t, bin, "scheduler", "--host", "127.0.0.1", "--port", "0")
	ws := make([]*proc, workers)
	for i := range ws {
		args := []string{"worker", "--scheduler", sched.addr, "--host", "127.0.0.1",
			"--nthreads", "1", "--name", fmt.Sprintf("w%d", i), "--local-directory", t.TempDir()}
		ws[i] = start(t, bin, append(args, workerArgs...)...)
	}
	return sched, ws
}

// waitExit waits for p to end and returns its exit error.
func waitExit(t *testing.T, p *proc, within time.Duration) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.err
	case <-time.After(within):
		t.Fatalf("process did not exit within %v", within)
		return nil
	}
}

func testCtx(t testing.TB) context.Context { return testCtxFor(t, 90*time.Second) }

// testCtxFor is testCtx for a test whose work takes longer: the deadline
// only stops a hang, and a 2-core CI machine runs other packages' tests
// beside this one.
func testCtxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}

// startNoAddr runs bin without waiting for an address line.
func startNoAddr(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
