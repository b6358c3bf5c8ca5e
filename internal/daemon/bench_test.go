package daemon_test

import (
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/internal/browsertest"
)

// BenchmarkTasksGRPC runs trivial tasks (Map then Gather of 20,000 futures)
// through a scheduler and two worker processes over gRPC on loopback; then,
// in alternate blocks of four runs watched and unwatched, with the
// dashboard's event stream read as a page reads it (what a watching browser
// costs the scheduler), and with a browser showing the status page (which
// adds the browser's own drawing, on the same cores here).
func BenchmarkTasksGRPC(b *testing.B) {
	sched, _ := startCluster(b, bins.dusktest, 2)
	c, err := dusk.NewClient(testCtxFor(b, 10*time.Minute), dusk.Address(sched.addr))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := dusk.WithClient(testCtxFor(b, 10*time.Minute), c)
	const n = 20000
	round := 0
	op := func(b *testing.B) {
		round++
		args := make([]int, n)
		for j := range args {
			args[j] = round*n + j // new keys every round: no reuse
		}
		futs, err := testInc.Map(ctx, args)
		if err != nil {
			b.Fatal(err)
		}
		got, err := dusk.Gather(ctx, futs)
		if err != nil {
			b.Fatal(err)
		}
		if got[n-1] != round*n+n {
			b.Fatalf("last result %d", got[n-1])
		}
		for _, f := range futs {
			f.Release()
		}
	}
	b.Run("unwatched", func(b *testing.B) {
		for range b.N {
			op(b)
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tasks/s")
	})
	base := strings.TrimSuffix(c.DashboardLink(), "/status")
	b.Run("ab-events", func(b *testing.B) {
		browsertest.AB(b, ctx, browsertest.Listen(b, ctx, base), 4, func() { op(b) })
	})
	b.Run("ab-browser", func(b *testing.B) {
		browsertest.AB(b, ctx, browsertest.Watch(b, ctx, c.DashboardLink()), 4, func() { op(b) })
	})
}
