package dusk

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe"
)

type clickRow struct {
	ID        int64
	Area      string
	NumClicks int64
}

func clickRows(n int) []clickRow {
	rows := make([]clickRow, n)
	for i := range rows {
		rows[i] = clickRow{ID: int64(i), Area: fmt.Sprintf("area-%d", i%7), NumClicks: int64(i % 11)}
	}
	return rows
}

// referenceSums sums NumClicks by Area, plainly.
func referenceSums(rows []clickRow) map[string]int64 {
	want := map[string]int64{}
	for _, r := range rows {
		want[r.Area] += r.NumClicks
	}
	return want
}

func checkSums(t *testing.T, tab *dataframe.Table, want map[string]int64) {
	t.Helper()
	areas := tab.Column("Area").(*array.String)
	sums := tab.Column("sum(NumClicks)").(*array.Int64)
	if tab.NumRows() != len(want) {
		t.Fatalf("%d groups, want %d:\n%s", tab.NumRows(), len(want), tab)
	}
	for i := 0; i < tab.NumRows(); i++ {
		if w := want[areas.Value(i)]; sums.Value(i) != w {
			t.Fatalf("%s: sum %d, want %d", areas.Value(i), sums.Value(i), w)
		}
	}
}

// untilStores waits, without polling, until cond holds of the local
// workers' stores: it checks cond again at each change of any of them.
func untilStores(t *testing.T, ctx context.Context, c *Client, what string, cond func() bool) {
	t.Helper()
	for {
		var changed []<-chan struct{}
		for _, w := range c.local.Workers {
			changed = append(changed, w.Store().Changed())
		}
		if cond() {
			return
		}
		cases := make([]reflect.SelectCase, 0, len(changed)+1)
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())})
		for _, ch := range changed {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
		}
		if i, _, _ := reflect.Select(cases); i == 0 {
			t.Fatalf("the workers' stores never came to hold that %s", what)
		}
	}
}

func storesEmpty(c *Client) func() bool {
	return func() bool {
		for _, w := range c.local.Workers {
			if w.Store().Len() != 0 {
				return false
			}
		}
		return true
	}
}

// After a computation, and after a persisted frame is released, the cluster
// holds nothing: released keys are forgotten and their data freed.
func TestReleasedKeysAreFreed(t *testing.T) {
	c := newTestClient(t, Workers(2))
	ctx := testCtx(t, c)
	rows := clickRows(5000)
	df := dataframe.FromRecords(rows, 8)
	out, err := df.GroupBy("Area").Agg(dataframe.Sum("NumClicks")).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkSums(t, out, referenceSums(rows))
	out.Release()
	untilStores(t, ctx, c, "no results are left", storesEmpty(c))

	p, err := df.Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for _, w := range c.local.Workers {
		held += w.Store().Len()
	}
	if held != 8 {
		t.Fatalf("persisted 8 partitions, the workers hold %d results", held)
	}
	p.Release()
	untilStores(t, ctx, c, "the persisted partitions are freed", storesEmpty(c))
}

// A worker that holds persisted partitions is lost: what it held is
// recomputed from its lineage and the answer is still right.
func TestLostPartitionsAreRecomputed(t *testing.T) {
	c := newTestClient(t, Workers(3))
	ctx := testCtx(t, c)
	rows := clickRows(9000)
	p, err := dataframe.FromRecords(rows, 12).
		Filter(dataframe.Col("NumClicks").Ge(3)).
		Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	var kept []clickRow
	for _, r := range rows {
		if r.NumClicks >= 3 {
			kept = append(kept, r)
		}
	}
	victim := c.local.Workers[1]
	if victim.Store().Len() == 0 {
		t.Fatal("worker 1 holds no partition; the test needs one that does")
	}
	victim.Close()
	for round := 0; round < 2; round++ {
		out, err := p.GroupBy("Area").Agg(dataframe.Sum("NumClicks")).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		checkSums(t, out, referenceSums(kept))
		out.Release()
	}
}

// A worker that retires hands the results only it holds to another worker
// first: a persisted frame survives it without recomputation.
func TestRetireHandsOffResults(t *testing.T) {
	c := newTestClient(t, Workers(2))
	ctx := testCtx(t, c)
	rows := clickRows(4000)
	p, err := dataframe.FromRecords(rows, 6).Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	leaving, staying := c.local.Workers[0], c.local.Workers[1]
	if leaving.Store().Len() == 0 {
		t.Fatal("worker 0 holds no partition; the test needs one that does")
	}
	if err := leaving.Retire(ctx); err != nil {
		t.Fatal(err)
	}
	if got := staying.Store().Len(); got != 6 {
		t.Fatalf("the staying worker holds %d partitions, want all 6", got)
	}
	out, err := p.GroupBy("Area").Agg(dataframe.Sum("NumClicks")).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkSums(t, out, referenceSums(rows))
	out.Release()
}

var nap = Register("test-nap", func(ctx context.Context, ms int) (int, error) {
	select {
	case <-time.After(time.Duration(ms) * time.Millisecond):
	case <-ctx.Done():
	}
	return ms, nil
})

// A local cluster adapts as Dask's LocalCluster.adapt does: asked for one
// to three workers while tasks queue, it starts two more in this process,
// and every result comes back; a cluster that was not asked keeps its size.
func TestLocalClusterAdapts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := NewClient(ctx, Workers(1), Dashboard("none"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Adapt(ctx, 3, 1); err == nil {
		t.Fatal("Adapt(3, 1) is no error")
	}
	if err := c.Adapt(ctx, 1, 3); err != nil {
		t.Fatal(err)
	}
	cctx := WithClient(ctx, c)
	// 18 s of work: more than the 5 s a worker should take for it.
	ms := make([]int, 12)
	for i := range ms {
		ms[i] = 1500 + i // distinct tasks
	}
	futs, err := nap.Map(cctx, ms)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := c.WaitForWorkers(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Gather(cctx, futs)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != ms[i] {
			t.Fatalf("task %d returned %d", i, v)
		}
	}
	names := map[string]bool{}
	for _, w := range ws {
		names[w.Name] = true
	}
	if !names["local-1"] || !names["local-2"] || !names["local-3"] {
		t.Fatalf("workers %v", names)
	}
}
