package bench_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/io/storage"
)

// BenchmarkIO reads and writes db-benchmark's groupby table (benchRows
// rows, 100 groups) as CSV and Parquet on the local cluster, reporting MB/s
// of the file on disk and rows/s. Reads end with the partitions in the
// workers' memory (Persist). The files live in DUSK_BENCH_DIR, else a
// directory under the system's temporary one, and are kept for later runs.
func BenchmarkIO(b *testing.B) {
	n := benchRows(b)
	dir := os.Getenv("DUSK_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "dusk-bench")
	}
	csvPath, err := bench.GroupByFile(dir, n, 100)
	if err != nil {
		b.Fatal(err)
	}
	ctx, _ := benchClient(b)
	pqDir := filepath.Join(dir, bench.GroupByFileName(n, 100)+".parquet")
	size := func(pattern string) int64 {
		files, err := storage.List(pattern)
		if err != nil {
			b.Fatal(err)
		}
		var total int64
		for _, f := range files {
			total += f.Size
		}
		return total
	}
	read := func(b *testing.B, f func() *dataframe.Frame, bytes int64) {
		b.SetBytes(bytes)
		for range b.N {
			p, err := f().Persist(ctx)
			if err != nil {
				b.Fatal(err)
			}
			p.Release()
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	}
	write := func(b *testing.B, out string, w func(string) error) {
		for range b.N {
			if err := w(out); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(size(out))
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	}
	b.Run("read-csv", func(b *testing.B) {
		read(b, func() *dataframe.Frame { return dataframe.ReadCSV(csvPath) }, size(csvPath))
	})
	// The table in memory, for the writes (after read-csv: its keys are
	// those of read-csv's frame, which would find it there).
	loaded, err := dataframe.ReadCSV(csvPath).Persist(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer loaded.Release()
	if _, err := os.Stat(pqDir); err != nil {
		if _, err := loaded.ToParquet(ctx, pqDir); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("read-parquet", func(b *testing.B) {
		read(b, func() *dataframe.Frame { return dataframe.ReadParquet(pqDir) }, size(pqDir))
	})
	b.Run("read-parquet-2-of-9", func(b *testing.B) {
		read(b, func() *dataframe.Frame { return dataframe.ReadParquet(pqDir).Select("id1", "v1") }, size(pqDir))
	})
	b.Run("write-csv", func(b *testing.B) {
		write(b, b.TempDir(), func(out string) error {
			_, err := loaded.ToCSV(ctx, out, dataframe.CSVWriteOptions{Overwrite: true})
			return err
		})
	})
	b.Run("write-parquet", func(b *testing.B) {
		write(b, b.TempDir(), func(out string) error {
			_, err := loaded.ToParquet(ctx, out, dataframe.ParquetWriteOptions{Overwrite: true})
			return err
		})
	})
}
