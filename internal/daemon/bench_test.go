package daemon_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/internal/browsertest"
)

// BenchmarkTasksGRPC runs trivial tasks (Map then Gather of 20,000 futures)
// through a scheduler and two worker processes over gRPC on loopback;
// unwatched, with the dashboard's event stream read as a page reads it,
// and with a browser showing the status page.
func BenchmarkTasksGRPC(b *testing.B) {
	sched, _ := startCluster(b, bins.dusktest, 2)
	c, err := dusk.NewClient(testCtxFor(b, 10*time.Minute), dusk.Address(sched.addr))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := dusk.WithClient(testCtxFor(b, 10*time.Minute), c)
	b.Run("unwatched", func(b *testing.B) { tasksGRPC(b, ctx, nil) })
	b.Run("events", func(b *testing.B) {
		tasksGRPC(b, ctx, browsertest.Listen(b, ctx, strings.TrimSuffix(c.DashboardLink(), "/status")))
	})
	b.Run("browser", func(b *testing.B) { tasksGRPC(b, ctx, browsertest.Watch(b, ctx, c.DashboardLink())) })
}

func tasksGRPC(b *testing.B, ctx context.Context, page *browsertest.Page) {
	const n = 20000
	b.ResetTimer()
	defer page.Report(b)()
	for i := 0; i < b.N; i++ {
		args := make([]int, n)
		for j := range args {
			args[j] = i*n + j
		}
		futs, err := testInc.Map(ctx, args)
		if err != nil {
			b.Fatal(err)
		}
		got, err := dusk.Gather(ctx, futs)
		if err != nil {
			b.Fatal(err)
		}
		if got[n-1] != i*n+n {
			b.Fatalf("last result %d", got[n-1])
		}
		for _, f := range futs {
			f.Release()
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tasks/s")
}
