package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/internal/memcheck"
	"github.com/duskdata/dusk/internal/registry"
)

// FuzzSpill reads any bytes as a spill file: an error is fine; a panic, or
// a record whose columns disagree in length, is not; whole, and the one
// column "s" of a record spilled by column. Seeded with files of a record
// and of an int64 under each compression.
func FuzzSpill(f *testing.F) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := 0; i < 500; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i % 7))
		b.Field(1).(*array.StringBuilder).Append("v" + string(rune('a'+i%26)))
	}
	rec := b.NewRecord()
	b.Release()
	defer rec.Release()
	dir := f.TempDir()
	for i, v := range []any{rec, int64(42)} {
		for _, comp := range []Compression{S2, Zstd, None} {
			p := filepath.Join(dir, string(rune('a'+i))+string(rune('0'+int(comp))))
			if _, err := writeSpill(p, v, comp); err != nil {
				f.Fatal(err)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		memcheck.Check(t, data, func() (result int64) {
			for _, cols := range [][]string{nil, {"s"}} {
				v, err := decodeSpill(bytes.NewReader(data), int64(len(data)), cols)
				if err != nil {
					continue
				}
				if rec, ok := v.(arrow.Record); ok {
					for i, c := range rec.Columns() {
						if int64(c.Len()) != rec.NumRows() {
							t.Fatalf("column %d has %d values in a record of %d rows", i, c.Len(), rec.NumRows())
						}
					}
					result += memcheck.RecordBytes(rec)
				}
				registry.Release(v)
			}
			return result
		})
	})
}
