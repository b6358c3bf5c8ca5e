package dusk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/worker/process"
)

var (
	inc = Register("test-inc", func(_ context.Context, x int) (int, error) { return x + 1, nil })
	bad = Register("test-bad", func(_ context.Context, x int) (int, error) {
		if x%2 == 1 {
			return 0, errors.New("odd input")
		}
		return x, nil
	})
	boom = Register("test-boom", func(_ context.Context, x int) (int, error) {
		var s []int
		return s[x], nil // index out of range
	})
)

func newTestClient(t *testing.T, opts ...Option) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c, err := NewClient(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func testCtx(t *testing.T, c *Client) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return WithClient(ctx, c)
}

// TestWorkersDefault: Workers(0), as `dusk sql` passes it when no
// --workers is given, starts one worker per core (it started one).
func TestWorkersDefault(t *testing.T) {
	for _, n := range []int{0, -1} {
		c := newTestClient(t, Workers(n))
		ws, err := c.Workers(testCtx(t, c))
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) != runtime.NumCPU() {
			t.Errorf("Workers(%d): %d workers on %d cores", n, len(ws), runtime.NumCPU())
		}
	}
}

func TestMapGather(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		c := newTestClient(t, Workers(workers))
		ctx := testCtx(t, c)
		args := make([]int, 1000)
		for i := range args {
			args[i] = i
		}
		futs, err := inc.Map(ctx, args)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Gather(ctx, futs)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != i+1 {
				t.Fatalf("workers=%d: result %d = %d, want %d", workers, i, v, i+1)
			}
		}
	}
}

func TestTaskErrorReachesClient(t *testing.T) {
	c := newTestClient(t, Workers(2))
	ctx := testCtx(t, c)
	futs, err := bad.Map(ctx, []int{2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := futs[0].Result(ctx); err != nil || v != 2 {
		t.Fatalf("even input: %v, %v", v, err)
	}
	_, err = Gather(ctx, futs)
	var te *TaskError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a *TaskError", err)
	}
	if te.Key != futs[1].Key() || !strings.Contains(te.Message, "odd input") {
		t.Fatalf("error names key %s with %q; want key %s and the message", te.Key, te.Message, futs[1].Key())
	}
}

var openInput = Register("test-open", func(_ context.Context, path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("open input: %w", err)
	}
	return 0, f.Close()
})

// On the local cluster a task's error keeps its identity: errors.Is and
// errors.As reach the user's own error, and the message leads with the
// operation, not the key.
func TestTaskErrorUnwraps(t *testing.T) {
	c := newTestClient(t, Workers(1))
	ctx := testCtx(t, c)
	f, err := openInput.Submit(ctx, filepath.Join(t.TempDir(), "missing.csv"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Result(ctx)
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v; want it to unwrap to the *fs.PathError", err)
	}
	if !errors.Is(err, ErrTaskFailed) || errors.Is(err, ErrKilledWorker) {
		t.Fatalf("err = %v; want it to be ErrTaskFailed and no other kind", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "dusk: test-open: open input: open ") || !strings.HasSuffix(msg, "(task "+string(f.Key())+" on worker inproc://1)") {
		t.Fatalf("message %q: want the operation first and the key last", msg)
	}
}

func TestPanicBecomesTaskError(t *testing.T) {
	c := newTestClient(t, Workers(1))
	ctx := testCtx(t, c)
	f, err := boom.Submit(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Result(ctx)
	var te *TaskError
	if !errors.As(err, &te) || !strings.Contains(te.Message, "index out of range") || !strings.Contains(te.Stack, "client_test.go") {
		t.Fatalf("err = %v; want the panic as a task error with its stack", err)
	}
	// The worker goes on.
	g, err := inc.Submit(ctx, 41)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := g.Result(ctx); err != nil || v != 42 {
		t.Fatalf("after the panic: %v, %v", v, err)
	}
}

func TestUnknownOperationNamesIt(t *testing.T) {
	c := newTestClient(t, Workers(1))
	ctx := testCtx(t, c)
	g := graph.New()
	g.Add(&graph.Task{Key: "mystery-0", Op: "read-my-format"})
	_, err := c.Compute(ctx, g, []graph.Key{"mystery-0"})
	if err == nil || !strings.Contains(err.Error(), `"read-my-format" is not registered`) ||
		!strings.Contains(err.Error(), `dusk.Register("read-my-format"`) {
		t.Fatalf("err = %v; want it to name the operation and how to register it", err)
	}
}

func TestImpossibleResourcesFailAtOnce(t *testing.T) {
	c := newTestClient(t, Workers(2), Resources(map[string]float64{"GPU": 1}))
	ctx := testCtx(t, c)
	g := graph.New()
	g.Add(&graph.Task{Key: "train-0", Op: "test-inc", Args: []byte("1"), Resources: graph.Resources{"GPU": 4}})
	_, err := c.Compute(ctx, g, []graph.Key{"train-0"})
	if err == nil || !strings.Contains(err.Error(), "asks for GPU=4") || !strings.Contains(err.Error(), "offers is GPU=1") {
		t.Fatalf("err = %v; want what was asked and what the largest worker offers", err)
	}
	g = graph.New()
	g.Add(&graph.Task{Key: "train-1", Op: "test-inc", Args: []byte("1"), Resources: graph.Resources{"GPU": 1}})
	vals, err := c.Compute(ctx, g, []graph.Key{"train-1"})
	if err != nil || vals[0] != 2 {
		t.Fatalf("a task that fits: %v, %v", vals, err)
	}
}

// A worker killed while it runs a task: the task runs again on another
// worker and the answer arrives. The function blocks on its first run only,
// and says each time it starts.
var (
	blockMu   sync.Mutex
	blockOnce = map[int]chan struct{}{}
	blocking  = Register("test-block-once", func(ctx context.Context, x int) (int, error) {
		blockMu.Lock()
		ch, again := blockOnce[x]
		if !again {
			ch = make(chan struct{})
			blockOnce[x] = ch
		}
		blockMu.Unlock()
		started <- x
		if !again {
			select {
			case <-ch:
			case <-ctx.Done():
			}
		}
		return x * 10, nil
	})
	started = make(chan int, 16)
)

func TestWorkerLostWhileRunning(t *testing.T) {
	c := newTestClient(t, Workers(2))
	ctx := testCtx(t, c)
	f, err := blocking.Submit(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	// Whichever worker runs it, both are lost while it runs; a fresh
	// worker runs it again.
	c.local.Workers[0].Close()
	c.local.Workers[1].Close()
	if _, err := c.local.AddWorker(ctx, process.WorkerConfig{}, c.log); err != nil {
		t.Fatal(err)
	}
	<-started
	v, err := f.Result(ctx)
	if err != nil || v != 70 {
		t.Fatalf("result = %v, %v; want 70", v, err)
	}
}

func init() {
	registry.Register("test-one", func(*registry.Context, []byte, []any) (any, error) { return 1, nil })
	registry.Register("test-sum", func(_ *registry.Context, _ []byte, in []any) (any, error) {
		s := 0
		for _, v := range in {
			s += v.(int)
		}
		return s, nil
	})
}

// sumTree adds tasks summing keys eight at a time and returns the total's key.
func sumTree(g *graph.Graph, keys []graph.Key) graph.Key {
	for level := 0; len(keys) > 1; level++ {
		var next []graph.Key
		for i := 0; i < len(keys); i += 8 {
			k := graph.Key(graph.Name("tree", "test-sum", nil, string(keys[i])))
			g.Add(&graph.Task{Key: k, Op: "test-sum", Inputs: keys[i:min(i+8, len(keys))]})
			next = append(next, k)
		}
		keys = next
	}
	return keys[0]
}

// The same keys wanted again right after a release: the release must reach
// the scheduler first, or it would drop keys the client waits for.
func TestResubmitAfterRelease(t *testing.T) {
	c := newTestClient(t, Workers(2))
	ctx := testCtx(t, c)
	for i := 0; i < 300; i++ {
		f, err := inc.Submit(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := f.Result(ctx); err != nil || v != 2 {
			t.Fatalf("round %d: %v, %v", i, v, err)
		}
		f.Release()
	}
}

// A key released while it runs and wanted again at once: the first run's
// report, arriving after the second run was sent, must not be taken for the
// second's (found by review: the client used to wait forever). A gate holds
// the first run until the key has been released and submitted again.
var sleepyGate = newGate(0)

var sleepy = Register("test-sleepy", func(_ context.Context, x int) (int, error) {
	sleepyGate.at()
	return x + 1, nil
})

func TestReleaseWhileRunningThenWantAgain(t *testing.T) {
	c := newTestClient(t, Workers(1))
	base := WithClient(context.Background(), c)
	for i := 0; i < 5; i++ {
		ctx, cancel := context.WithTimeout(base, 20*time.Second)
		sleepyGate = newGate(0)
		f1, err := sleepy.Submit(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		<-sleepyGate.reached // the first run is under way
		f1.Release()
		f2, err := sleepy.Submit(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		sleepyGate.Open()
		v, err := f2.Result(ctx)
		cancel()
		if err != nil || v != i+1 {
			t.Fatalf("round %d: %v, %v", i, v, err)
		}
		f2.Release()
	}
}

// A result the scheduler reports is gone from its worker when the client
// fetches it: the client says so, and the key is recomputed.
func TestGatherFindsResultGone(t *testing.T) {
	c := newTestClient(t, Workers(1))
	ctx := testCtx(t, c)
	f, err := inc.Submit(ctx, 99)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.wait(ctx, []graph.Key{f.Key()}); err != nil {
		t.Fatal(err)
	}
	c.local.Workers[0].Store().Delete(f.Key())
	if v, err := f.Result(ctx); err != nil || v != 100 {
		t.Fatalf("result = %v, %v; want 100", v, err)
	}
}

// A client given a progress writer draws each wait's progress; off a
// terminal, a line as the wait begins and one as it ends, with every task
// of the kind finished. The tasks wait at a gate until the first line.
var (
	progressGate = newGate(0)
	gatedInc     = Register("test-gated-inc", func(_ context.Context, x int) (int, error) {
		progressGate.at()
		return x + 1, nil
	})
)

func TestProgressLines(t *testing.T) {
	out := &firstWrite{written: make(chan struct{})}
	c := newTestClient(t, Workers(2), Progress(out))
	ctx := testCtx(t, c)
	defer progressGate.Open()
	args := make([]int, 100)
	for i := range args {
		args[i] = i
	}
	futs, err := gatedInc.Map(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	gathered := make(chan error, 1)
	go func() {
		_, err := Gather(ctx, futs)
		gathered <- err
	}()
	<-out.written // the wait began, with the tasks held
	progressGate.Open()
	if err := <-gathered; err != nil {
		t.Fatal(err)
	}
	text := out.String()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) < 2 || !strings.Contains(lines[len(lines)-1], "test-gated-inc 100/100") || strings.Contains(text, "\x1b") {
		t.Errorf("progress lines %q: want a first and a last, the last saying test-gated-inc 100/100, without escape codes", lines)
	}
}

// firstWrite is a writer that closes written at its first write.
type firstWrite struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() == 0 {
		close(w.written)
	}
	return w.b.Write(p)
}

func (w *firstWrite) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// deadStream is a stream to a scheduler that has died, as a sender may see
// it before the reader has: every send fails.
type deadStream struct{}

func (deadStream) Send([]protocol.Msg) error     { return transport.ErrClosed }
func (deadStream) Recv() ([]protocol.Msg, error) { select {} }
func (deadStream) Close() error                  { return nil }

// A submission or a query that finds the stream closed says the connection
// to the scheduler was lost, not only that a stream closed.
func TestSendToDeadSchedulerSaysSo(t *testing.T) {
	c := &Client{stream: deadStream{}, keys: map[graph.Key]*keyState{}, queries: map[uint64]chan protocol.Msg{}}
	g := graph.New()
	k := graph.Key("inc-0")
	g.Add(&graph.Task{Key: k, Op: "inc"})
	errs := map[string]error{
		"submit": c.submit(g, []graph.Key{k}, true),
		"send":   c.send(nil),
	}
	for what, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "lost the connection to the scheduler") || !errors.Is(err, transport.ErrClosed) {
			t.Errorf("%s to a dead scheduler: %v, want it to say the connection to the scheduler was lost", what, err)
		}
	}
}
