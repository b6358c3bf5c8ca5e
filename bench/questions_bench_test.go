package bench_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/dataframe"
)

// benchRows is the table size of the question benchmarks: DUSK_BENCH_ROWS,
// or db-benchmark's 1e7.
func benchRows(b *testing.B) int {
	if s := os.Getenv("DUSK_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("DUSK_BENCH_ROWS=%q: %v", s, err)
		}
		return n
	}
	return 10_000_000
}

// benchParts is how many partitions the tables are loaded in: a few per core.
func benchParts() int { return 4 * runtime.GOMAXPROCS(0) }

func benchClient(b *testing.B) (context.Context, *dusk.Client) {
	b.Helper()
	c, err := dusk.NewClient(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return dusk.WithClient(context.Background(), c), c
}

func load(b *testing.B, ctx context.Context, recs []arrow.Record) *dataframe.Frame {
	b.Helper()
	f := dataframe.FromArrow(recs...)
	for _, r := range recs {
		r.Release()
	}
	p, err := f.Persist(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Release)
	return p
}

// run times the question: its answer computed and held in the workers'
// memory (Persist), then its rows counted there, as the data was loaded
// before the timing began. It reports rows in per second, and how much
// the workers have spilled to disk since they started.
func run(b *testing.B, ctx context.Context, c *dusk.Client, f *dataframe.Frame, rowsIn int) {
	b.ReportAllocs()
	b.ResetTimer()
	var out int64
	for range b.N {
		p, err := f.Persist(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if out, err = p.Len(ctx); err != nil {
			b.Fatal(err)
		}
		p.Release()
	}
	b.ReportMetric(float64(rowsIn)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(out), "rows-out")
	if ws, err := c.Workers(ctx); err == nil {
		var spilled int64
		for _, w := range ws {
			spilled += w.Memory.SpilledTotal
		}
		b.ReportMetric(float64(spilled)/(1<<20), "MiB-spilled")
	}
}

// BenchmarkGroupBy runs db-benchmark's groupby questions on the table of
// benchRows rows and 100 groups, loaded in memory.
func BenchmarkGroupBy(b *testing.B) {
	n := benchRows(b)
	ctx, c := benchClient(b)
	parts := benchParts()
	x := load(b, ctx, bench.GroupByRecords(n, 100, 1, parts))
	for _, q := range bench.GroupByQuestions {
		b.Run(q.ID, func(b *testing.B) {
			f, err := bench.GroupByQuery(q.ID, x)
			if err != nil {
				b.Fatal(err)
			}
			run(b, ctx, c, f, n)
		})
	}
}

// BenchmarkJoin runs db-benchmark's join questions on tables for an X of
// benchRows rows, loaded in memory.
func BenchmarkJoin(b *testing.B) {
	n := benchRows(b)
	ctx, c := benchClient(b)
	parts := benchParts()
	t := bench.GenJoin(n, 1)
	x := load(b, ctx, t.X.Records(parts))
	small := load(b, ctx, t.Small.Records(1))
	medium := load(b, ctx, t.Medium.Records(1))
	big := load(b, ctx, t.Big.Records(parts))
	for _, q := range bench.JoinQuestions {
		b.Run(q.ID, func(b *testing.B) {
			f, err := bench.JoinQuery(q.ID, x, small, medium, big)
			if err != nil {
				b.Fatal(err)
			}
			run(b, ctx, c, f, n)
		})
	}
}
