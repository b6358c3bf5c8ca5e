package dusk

import (
	"context"
	"strings"
	"testing"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/browsertest"
)

// BenchmarkTrivialTasks measures end-to-end scheduling throughput on the
// local cluster: submit, schedule, run, report and gather trivial tasks;
// unwatched; with the dashboard's event stream read as a page reads it
// (what a watching browser costs the scheduler); and with a browser
// showing the status page (which adds the browser's own drawing, on the
// same cores here).
func BenchmarkTrivialTasks(b *testing.B) {
	c, err := NewClient(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := WithClient(context.Background(), c)
	b.Run("unwatched", func(b *testing.B) { trivialTasks(b, ctx, c, nil) })
	b.Run("events", func(b *testing.B) {
		trivialTasks(b, ctx, c, browsertest.Listen(b, ctx, strings.TrimSuffix(c.DashboardLink(), "/status")))
	})
	b.Run("browser", func(b *testing.B) { trivialTasks(b, ctx, c, browsertest.Watch(b, ctx, c.DashboardLink())) })
}

// trivialTasks runs the benchmarks; with a page watching, each also
// reports the page's updates a second.
func trivialTasks(b *testing.B, ctx context.Context, c *Client, page *browsertest.Page) {
	const n = 100_000
	b.Run("map-gather", func(b *testing.B) {
		defer page.Report(b)()
		for i := 0; i < b.N; i++ {
			args := make([]int, n)
			for j := range args {
				args[j] = i*n + j // new keys every round: no reuse
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
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tasks/s")
	})

	// A graph of chains of two tasks each and a tree sum over them: tasks
	// with dependencies, moved between workers where they must be.
	b.Run("graph", func(b *testing.B) {
		defer page.Report(b)()
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
}
