package dataframe_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/dataframe"
)

// benchData is where generated benchmark files are kept between runs.
func benchData(b *testing.B, n int) string {
	b.Helper()
	path, err := bench.GroupByFile(filepath.Join(os.TempDir(), "dusk-bench"), n, 100)
	if err != nil {
		b.Fatal(err)
	}
	return path
}

func benchClient(b *testing.B) context.Context {
	b.Helper()
	c, err := dusk.NewClient(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return dusk.WithClient(context.Background(), c)
}

// BenchmarkReadCSV reads db-benchmark's groupby file (G1_1e7_1e2_0_0.csv:
// 10 million rows, about 500 MB) on the local cluster in 64 MiB blocks, both
// cores parsing: "persist" keeps every partition in the workers' memory (the
// cost of fresh memory included); "stream" counts rows, each partition
// dropped once counted, as a filter or reduction over a large file does.
func BenchmarkReadCSV(b *testing.B) {
	path := benchData(b, 10_000_000)
	info, _ := os.Stat(path)
	ctx := benchClient(b)
	b.Run("persist", func(b *testing.B) {
		b.SetBytes(info.Size())
		for i := 0; i < b.N; i++ {
			df, err := dataframe.ReadCSV(path).Persist(ctx)
			if err != nil {
				b.Fatal(err)
			}
			df.Release()
		}
		b.ReportMetric(float64(b.N)*1e7/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("stream", func(b *testing.B) {
		b.SetBytes(info.Size())
		for i := 0; i < b.N; i++ {
			n, err := dataframe.ReadCSV(path).Len(ctx)
			if err != nil || n != 10_000_000 {
				b.Fatalf("Len = %d, %v", n, err)
			}
		}
		b.ReportMetric(float64(b.N)*1e7/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkGroupBySumPersisted sums v1 by id1 (100 groups) over a persisted
// 10-million-row frame of db-benchmark's groupby layout.
func BenchmarkGroupBySumPersisted(b *testing.B) {
	path := benchData(b, 10_000_000)
	ctx := benchClient(b)
	df, err := dataframe.ReadCSV(path).Persist(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer df.Release()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := df.GroupBy("id1").Agg(dataframe.Sum("v1")).Compute(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if out.NumRows() != 100 {
			b.Fatalf("%d groups, want 100", out.NumRows())
		}
		out.Release()
	}
	b.ReportMetric(float64(b.N)*1e7/b.Elapsed().Seconds(), "rows/s")
}
