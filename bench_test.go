package dusk

import (
	"context"
	"strings"
	"testing"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/browsertest"
)

// BenchmarkTrivialTasks measures end-to-end scheduling throughput on the
// local cluster: submit, schedule, run, report and gather trivial tasks.
// Then what watching costs, in alternate blocks of four map-gather runs
// watched and unwatched: with the dashboard's event stream read as a page
// reads it (what a watching browser costs the scheduler), and with a
// browser showing the status page (which adds the browser's own drawing,
// on the same cores here).
func BenchmarkTrivialTasks(b *testing.B) {
	const n = 100_000
	c, err := NewClient(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := WithClient(context.Background(), c)
	round := 0 // new keys every round: no reuse
	mapGather := func(b *testing.B) {
		round++
		args := make([]int, n)
		for j := range args {
			args[j] = round*n + j
		}
		futs, err := inc.Map(ctx, args)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Gather(ctx, futs); err != nil {
			b.Fatal(err)
		}
		for _, f := range futs {
			f.Release()
		}
	}

	b.Run("map-gather", func(b *testing.B) {
		for range b.N {
			mapGather(b)
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tasks/s")
	})

	// A graph of chains of two tasks each and a tree sum over them: tasks
	// with dependencies, moved between workers where they must be.
	b.Run("graph", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			g := graph.New()
			var leaves []graph.Key
			for j := 0; j < n/2; j++ {
				a := graph.Key(graph.Name("one", "test-one", []byte{byte(i)}, string(rune(j))))
				g.Add(&graph.Task{Key: a, Op: "test-one"})
				s := graph.Key(graph.Name("add", "test-sum", nil, string(a)))
				g.Add(&graph.Task{Key: s, Op: "test-sum", Inputs: []graph.Key{a}})
				leaves = append(leaves, s)
			}
			total := sumTree(g, leaves)
			vals, err := c.Compute(ctx, g, []graph.Key{total})
			if err != nil {
				b.Fatal(err)
			}
			if vals[0] != n/2 {
				b.Fatalf("sum = %v, want %d", vals[0], n/2)
			}
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tasks/s")
	})

	base := strings.TrimSuffix(c.DashboardLink(), "/status")
	b.Run("ab-events", func(b *testing.B) {
		browsertest.AB(b, ctx, browsertest.Listen(b, ctx, base), 4, func() { mapGather(b) })
	})
	b.Run("ab-browser", func(b *testing.B) {
		browsertest.AB(b, ctx, browsertest.Watch(b, ctx, c.DashboardLink()), 4, func() { mapGather(b) })
	})
}
