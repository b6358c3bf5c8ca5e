package dusk

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/duskdata/dusk/graph"
)

// block makes a MiB of numbers that depend on seed, past blockGate if a
// test set one.
var block = Register("test-block", func(_ context.Context, seed int) ([]int64, error) {
	blockRuns.Add(1)
	if g := blockGate.Load(); g != nil {
		g.at()
	}
	return blockOf(seed), nil
})

var (
	blockRuns atomic.Int64
	blockGate atomic.Pointer[gate]
)

func blockOf(seed int) []int64 {
	out := make([]int64, 1<<17)
	for i := range out {
		out[i] = int64(seed)*1_000_003 + int64(i)
	}
	return out
}

// waitWorker waits until the scheduler's report of the only worker
// satisfies ok, checking it again after each of the worker's memory
// readings (it reports its memory every tenth).
func waitWorker(t *testing.T, ctx context.Context, c *Client, what string, ok func(WorkerInfo) bool) WorkerInfo {
	t.Helper()
	for {
		next := c.local.Workers[0].NextReading()
		ws, err := c.Workers(ctx)
		if err != nil {
			t.Fatalf("waiting until %s: %v", what, err)
		}
		if len(ws) == 1 && ok(ws[0]) {
			return ws[0]
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the worker never reported that %s; last report %+v", what, ws)
		case <-next:
		}
	}
}

// A worker whose spill directory cannot be written pauses once it has to
// spill, and says why; the results it holds stay intact and can be
// fetched; once the disk is writable, it spills and goes on.
func TestUnwritableSpillDirectoryPauses(t *testing.T) {
	// A local directory that is a file: no one can create anything in it,
	// not even root.
	local := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(local, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// Only managed memory counts here: the test process's own memory is
	// no business of this test.
	c := newTestClient(t, Workers(1), ThreadsPerWorker(1), MemoryLimit(16<<20),
		MemoryFractions(Fractions{Spill: 1000, Pause: 1000}), LocalDirectory(local))
	ctx := testCtx(t, c)
	const n = 40 // MiB of results, against a target of 0.6 × 16 MiB
	// Twelve blocks pass (12 MiB, over the target); the next waits until
	// the worker has paused, holding the only thread.
	g := newGate(12)
	blockGate.Store(g)
	t.Cleanup(func() { g.Open(); blockGate.Store(nil) })
	runs := blockRuns.Load()
	args := make([]int, n)
	for i := range args {
		args[i] = i
	}
	futs, err := block.Map(ctx, args)
	if err != nil {
		t.Fatal(err)
	}

	w := waitWorker(t, ctx, c, "it paused", func(w WorkerInfo) bool { return w.Paused && w.Memory.SpillError != "" })
	if !strings.Contains(w.Reason, "spill") || !strings.Contains(w.Memory.SpillError, local) {
		t.Errorf("reason %q, spill error %q: want them to say that spilling to %s fails", w.Reason, w.Memory.SpillError, local)
	}
	// Paused, it starts nothing (worker/testdata/pause.txt shows it step by
	// step): the tasks were not all run.
	if started := blockRuns.Load(); started-runs >= n {
		t.Fatalf("the worker ran all %d tasks before it paused", n)
	}
	g.Open()

	// The disk comes back: the worker spills, resumes, and finishes.
	if err := os.Remove(local); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(local, "dusk-worker"), 0o700); err != nil {
		t.Fatal(err)
	}
	checkBlocks(t, ctx, futs)
	w = waitWorker(t, ctx, c, "it spilled", func(w WorkerInfo) bool { return w.Memory.SpilledTotal > 0 })
	if w.Paused || w.Memory.SpillError != "" {
		t.Fatalf("after the disk came back: paused %v, spill error %q", w.Paused, w.Memory.SpillError)
	}
}

// Spill files damaged on disk are caught by their checksums when read back:
// the results are recomputed from their tasks, and the answers are right.
func TestCorruptSpillIsRecomputed(t *testing.T) {
	local := t.TempDir()
	// A target of nothing: every result goes to disk as soon as it is made.
	c := newTestClient(t, Workers(1), ThreadsPerWorker(1), MemoryLimit(64<<20),
		MemoryFractions(Fractions{Target: 1e-9, Spill: 100, Pause: 100}), LocalDirectory(local))
	ctx := testCtx(t, c)
	args := []int{0, 1, 2, 3, 4, 5, 6, 7}
	runs := blockRuns.Load()
	futs, err := block.Map(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.wait(ctx, futureKeys(futs)); err != nil {
		t.Fatal(err)
	}
	store := c.local.Workers[0].Store()
	untilStores(t, ctx, c, "every result has left memory", func() bool { return store.Managed() == 0 })
	files, err := filepath.Glob(filepath.Join(local, "*", "*.spill"))
	if err != nil || len(files) != len(args) {
		t.Fatalf("spill files %v (%v); want one per result", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)/2] ^= 0xff
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	checkBlocks(t, ctx, futs)
	if n := blockRuns.Load() - runs; n != 2*int64(len(args)) {
		t.Fatalf("%d runs of the task; want each of %d run again", n, len(args))
	}
}

// checkBlocks gathers futures of block(0), block(1), ... and checks them.
func checkBlocks(t *testing.T, ctx context.Context, futs []*Future[[]int64]) {
	t.Helper()
	got, err := Gather(ctx, futs)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := blockOf(i)
		if len(v) != len(want) || v[0] != want[0] || v[len(v)-1] != want[len(want)-1] {
			t.Fatalf("result %d came back wrong", i)
		}
	}
}

func futureKeys[T any](futs []*Future[T]) []graph.Key {
	keys := make([]graph.Key, len(futs))
	for i, f := range futs {
		keys[i] = f.Key()
	}
	return keys
}

// A task whose inputs alone pass the worker's terminate fraction fails with
// an error that names it, its need and the limit, rather than getting its
// worker killed over and over.
func TestTaskTooLargeForItsWorker(t *testing.T) {
	c := newTestClient(t, Workers(1), ThreadsPerWorker(1), MemoryLimit(16<<20),
		MemoryFractions(Fractions{Spill: 1000, Pause: 1000}), LocalDirectory(t.TempDir()))
	ctx := testCtx(t, c)
	g, srcs := numbersGraph("large", 2, 1<<20) // two inputs of 8 MiB
	sum := graph.Key("too-large-sum")
	g.Add(&graph.Task{Key: sum, Op: "test-collect", Inputs: srcs})
	_, err := c.Compute(ctx, g, []graph.Key{sum})
	if err == nil {
		t.Fatal("a task with 16 MiB of inputs ran on a worker of 16 MiB")
	}
	for _, want := range []string{string(sum), "16 MiB", "for its inputs", "16 MiB limit"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
}
