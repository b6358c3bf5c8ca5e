package daemon_test

import (
	"testing"

	"github.com/duskdata/dusk"
)

// BenchmarkTasksGRPC runs trivial tasks (Map then Gather of 20,000 futures)
// through a scheduler and two worker processes over gRPC on loopback.
func BenchmarkTasksGRPC(b *testing.B) {
	const n = 20000
	sched, _ := startCluster(b, bins.dusktest, 2)
	ctx := connect(b, testCtx(b), sched.addr)
	b.ResetTimer()
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
