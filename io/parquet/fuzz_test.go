package parquet

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/memcheck"
	"github.com/duskdata/dusk/io/internal/iotest"

	"github.com/duskdata/dusk/io/files"
)

// FuzzRead inspects and reads any bytes as Parquet, every row group alone
// and all together: an error is fine; a panic, a hang or a record whose
// columns disagree in length is not. Seeded with the foreign files of
// testdata and files this package writes with each codec.
func FuzzRead(f *testing.F) {
	foreign, _ := filepath.Glob("testdata/*.parquet")
	for _, p := range foreign {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	cols := []col{genCol(r, "i", "int", 300, 3, 0), genCol(r, "s", "string", 300, 4, 1<<30), genCol(r, "d", "dict", 300, 5, 9)}
	schema, recs := records(cols, []int{0, 300})
	for _, codec := range []string{"none", "snappy", "zstd", "gzip"} {
		_, data := writeFile(f, schema, recs, WriteOptions{RowGroupRows: 100, Compression: codec})
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer iotest.NoHang(data)()
		memcheck.Check(t, data, func() (result int64) {
			rd := bytes.NewReader(data)
			info, err := Inspect(rd, rd.Size(), "fuzz.parquet")
			if err != nil {
				return 0
			}
			groups := [][]int{nil}
			for g := range info.RowGroups {
				groups = append(groups, []int{g})
			}
			for _, gs := range groups {
				rec, err := Read(rd, rd.Size(), "fuzz.parquet", gs, nil)
				if err != nil {
					continue
				}
				for i, c := range rec.Columns() {
					if int64(c.Len()) != rec.NumRows() {
						t.Fatalf("column %d has %d values in a record of %d rows", i, c.Len(), rec.NumRows())
					}
				}
				result += memcheck.RecordBytes(rec)
				rec.Release()
			}
			// A filter with a page test on the first integer column reads
			// by the page index where the file has one.
			for _, fld := range info.Schema.Fields() {
				if !arrow.IsInteger(fld.Type.ID()) {
					continue
				}
				nonNegative := files.Filter{Column: fld.Name,
					Pass: func(a arrow.Array) ([]uint8, error) {
						out := make([]uint8, a.Len())
						for i, v := range valuesOf(a) {
							if x, ok := v.(int64); ok && x >= 0 {
								out[i] = 1
							}
						}
						return out, nil
					},
					Stats: func(st files.ColumnStats) bool { return !st.HasMinMax || st.MaxInt >= 0 }}
				if rec, err := ReadWhere(rd, rd.Size(), "fuzz.parquet", nil, nil, []files.Filter{nonNegative}); err == nil {
					result += memcheck.RecordBytes(rec)
					rec.Release()
				}
				break
			}
			return result
		})
	})
}
