package daemon_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/internal/browsertest"
	"github.com/duskdata/dusk/internal/security"
)

// BenchmarkTasksGRPC runs trivial tasks (Map then Gather of 20,000 futures)
// through a scheduler and two worker processes over gRPC on loopback; then,
// in alternate blocks of four runs watched and unwatched, with the
// dashboard's event stream read as a page reads it (what a watching browser
// costs the scheduler), and with a browser showing the status page (which
// adds the browser's own drawing, on the same cores here). "ab-tls"
// alternates rounds with a second cluster whose every connection is mutual
// TLS.
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
	op := func(b *testing.B, ctx context.Context) {
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
			op(b, ctx)
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tasks/s")
	})
	b.Run("ab-tls", func(b *testing.B) {
		tctx := tlsCluster(b, ctx)
		// Alternate rounds on the plain cluster and the TLS one, so that
		// the machine's drift falls on both alike.
		var plain, secure time.Duration
		for range b.N {
			t0 := time.Now()
			op(b, ctx)
			t1 := time.Now()
			op(b, tctx)
			plain, secure = plain+t1.Sub(t0), secure+time.Since(t1)
		}
		b.ReportMetric(float64(b.N*n)/plain.Seconds(), "plain-tasks/s")
		b.ReportMetric(float64(b.N*n)/secure.Seconds(), "tls-tasks/s")
		b.ReportMetric(plain.Seconds()/secure.Seconds(), "tls/plain")
	})
	base := strings.TrimSuffix(c.DashboardLink(), "/status")
	b.Run("ab-events", func(b *testing.B) {
		browsertest.AB(b, ctx, browsertest.Listen(b, ctx, base), 4, func() { op(b, ctx) })
	})
	b.Run("ab-browser", func(b *testing.B) {
		browsertest.AB(b, ctx, browsertest.Watch(b, ctx, c.DashboardLink()), 4, func() { op(b, ctx) })
	})
}

// tlsCluster starts a scheduler and two workers whose every connection is
// mutual TLS, with material from `dusk tls init`, and connects a client.
func tlsCluster(b *testing.B, ctx context.Context) context.Context {
	dir := b.TempDir()
	if _, err := security.Init(dir, time.Hour); err != nil {
		b.Fatal(err)
	}
	role := func(r string) []string {
		return []string{"--tls-ca-file", filepath.Join(dir, "ca.pem"), "--tls-cert", filepath.Join(dir, r+".pem"), "--tls-key", filepath.Join(dir, r+"-key.pem")}
	}
	s := start(b, bins.dusktest, append([]string{"scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "none"}, role("scheduler")...)...)
	for i := 0; i < 2; i++ {
		start(b, bins.dusktest, append([]string{"worker", "--scheduler", s.addr, "--host", "127.0.0.1", "--nthreads", "1",
			"--local-directory", b.TempDir()}, role("worker")...)...)
	}
	c, err := dusk.NewClient(ctx, dusk.Address(s.addr), dusk.TLS(filepath.Join(dir, "ca.pem"), filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if _, err := c.WaitForWorkers(ctx, 2); err != nil {
		b.Fatal(err)
	}
	return dusk.WithClient(ctx, c)
}
