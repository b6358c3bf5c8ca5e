package dusk

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe"
)

var (
	waitGate = newGate(0)
	// held waits at waitGate; its argument says nothing.
	held = Register("test-held", func(_ context.Context, x int) (int, error) {
		waitGate.at()
		return x, nil
	})
	effects = make(chan int, 16)
	// effect runs for what it does: it says it ran.
	effect = Register("test-effect", func(_ context.Context, x int) (int, error) {
		effects <- x
		return x, nil
	})
	addPair = Register("test-add-pair", func(_ context.Context, p pair) (int, error) {
		return p.A.Value() + p.B.Value() + p.More[0].Value(), nil
	})
	norm = Register("test-norm", func(_ context.Context, p point) (float64, error) { return p.X*p.X + p.Y*p.Y, nil })
)

type pair struct {
	A, B Ref[int]
	More []Ref[int]
}

type point struct{ X, Y float64 }

// Wait and AsCompleted report futures as they finish, a failure among
// them; Cancel ends a future's waits with ErrCancelled and drops its task.
func TestWaitAsCompletedCancel(t *testing.T) {
	c := newTestClient(t, Workers(1), ThreadsPerWorker(2))
	ctx := testCtx(t, c)
	defer waitGate.Open()
	slow, err := held.Submit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	<-waitGate.reached // it holds one thread
	quick, err := inc.Submit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	futs := []*Future[int]{slow, quick}
	done, notDone, err := Wait(ctx, futs, FirstCompleted)
	if err != nil || !slices.Equal(done, []*Future[int]{quick}) || !slices.Equal(notDone, []*Future[int]{slow}) {
		t.Fatalf("FirstCompleted: done %v, not done %v, %v; want the quick one done", done, notDone, err)
	}

	// A task queued behind the held one is cancelled before it starts.
	queued, err := held.Submit(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	failing, err := bad.Submit(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	queued.Cancel()
	if _, err := queued.Result(ctx); !errors.Is(err, ErrCancelled) {
		t.Fatalf("a cancelled future's result: %v; want ErrCancelled", err)
	}
	var order []int
	var failed int
	for f, err := range AsCompleted(ctx, []*Future[int]{slow, queued, failing, quick}) {
		switch {
		case f == failing && err != nil:
			failed++
		case f == queued && errors.Is(err, ErrCancelled):
			order = append(order, -1)
		case err != nil:
			t.Fatalf("%s: %v", f.Key(), err)
		default:
			v, _ := f.Result(ctx)
			order = append(order, v)
			if f == quick {
				waitGate.Open() // the held one may finish now
			}
		}
	}
	// The cancelled one and the quick one first, the held one last.
	if failed != 1 || len(order) != 3 || order[2] != 1 || !slices.Contains(order[:2], -1) || !slices.Contains(order[:2], 2) {
		t.Fatalf("completed in order %v with %d failures; want the cancelled and quick ones, then the held one, and 1 failure", order, failed)
	}
	if _, notDone, err := Wait(ctx, futs, AllCompleted); err != nil || len(notDone) != 0 {
		t.Fatalf("AllCompleted: %v not done, %v", notDone, err)
	}
}

// Futures are arguments of other tasks, alone (SubmitFuture) or as Refs in
// a structured argument, and scattered values are futures like any other.
func TestFuturesAsArguments(t *testing.T) {
	c := newTestClient(t, Workers(2))
	ctx := testCtx(t, c)
	x, err := inc.Submit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	y, err := inc.SubmitFuture(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	z, err := inc.SubmitFuture(ctx, y)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := addPair.Submit(ctx, pair{A: x.Ref(), B: y.Ref(), More: []Ref[int]{z.Ref()}})
	if err != nil {
		t.Fatal(err)
	}
	x.Release() // the tasks that read it hold it
	if v, err := sum.Result(ctx); err != nil || v != 2+3+4 {
		t.Fatalf("sum of refs = %v, %v; want 9", v, err)
	}
	pts, err := Scatter(ctx, []point{{3, 4}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Gather(ctx, pts); err != nil || got[0] != (point{3, 4}) {
		t.Fatalf("gathered scattered values %v, %v", got, err)
	}
	norms, err := norm.MapFutures(ctx, pts)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Gather(ctx, norms); err != nil || !slices.Equal(got, []float64{25, 2}) {
		t.Fatalf("norms of scattered points %v, %v; want [25 2]", got, err)
	}
}

// A future given to FireAndForget runs though its client lets it go, and
// the cluster then forgets it (TestFireAndForgetAcrossProcesses, in
// cmd/daemon, shows it running after its client has gone).
func TestFireAndForget(t *testing.T) {
	c := newTestClient(t, Workers(1))
	ctx := testCtx(t, c)
	gate := newGate(0)
	blocker := Register("test-faf-block", func(_ context.Context, x int) (int, error) {
		gate.at()
		return x, nil
	})
	defer gate.Open()
	b, err := blocker.Submit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	<-gate.reached // the one thread is busy
	f, err := effect.Submit(ctx, 42)
	if err != nil {
		t.Fatal(err)
	}
	if err := FireAndForget(ctx, f); err != nil {
		t.Fatal(err)
	}
	f.Release()
	gate.Open()
	if v, err := b.Result(ctx); err != nil || v != 1 {
		t.Fatal(v, err)
	}
	select {
	case v := <-effects:
		if v != 42 {
			t.Fatalf("effect %d; want 42", v)
		}
	case <-ctx.Done():
		t.Fatal("the fire-and-forget task never ran")
	}
	b.Release()
	untilStores(t, ctx, c, "the results are forgotten", storesEmpty(c))
}

// A published frame outlives its publisher's hold on it and comes back by
// name, equal; publishing a name twice, or a frame not persisted, fails.
func TestPublishDataset(t *testing.T) {
	c := newTestClient(t, Workers(2))
	ctx := testCtx(t, c)
	type row struct {
		K string
		V int64
	}
	df, err := dataframe.FromRecords([]row{{"a", 1}, {"b", 2}, {"a", 3}}, 2).Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Publish(ctx, "rows", df); err != nil {
		t.Fatal(err)
	}
	if err := c.Publish(ctx, "rows", df); err == nil {
		t.Fatal("a name published twice: no error")
	}
	if err := c.Publish(ctx, "lazy", dataframe.FromRecords([]row{{"a", 1}}, 1)); err == nil {
		t.Fatal("a frame not persisted was published")
	}
	df.Release()
	got, err := c.Dataset(ctx, "rows")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := got.(*dataframe.Frame).GroupBy("K").Agg(dataframe.Sum("V")).SortValues([]string{"K"}).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sums := tab.Record().Column(1).(*array.Int64).Int64Values()
	if tab.NumRows() != 2 || !slices.Equal(sums, []int64{4, 2}) {
		t.Fatalf("the dataset's sums by K:\n%s\nwant a=4, b=2", tab)
	}
	names, err := c.Datasets(ctx)
	if err != nil || !slices.Equal(names, []string{"rows"}) {
		t.Fatalf("datasets %v, %v", names, err)
	}
	if ok, err := c.Unpublish(ctx, "rows"); !ok || err != nil {
		t.Fatalf("unpublish: %v, %v", ok, err)
	}
	if _, err := c.Dataset(ctx, "rows"); err == nil {
		t.Fatal("an unpublished dataset came back")
	}
}
