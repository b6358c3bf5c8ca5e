package files_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/kernel/typetest"
	_ "github.com/duskdata/dusk/io/avro"
	_ "github.com/duskdata/dusk/io/csv"
	"github.com/duskdata/dusk/io/files"
	_ "github.com/duskdata/dusk/io/jsonl"
	_ "github.com/duskdata/dusk/io/parquet"
	"github.com/duskdata/dusk/io/storage"
)

// TestEveryFormat is what every registered format must do alike: write a
// record of several types as a file, describe the file, read it back
// whole and with a projection (the values the same, by their text), and,
// where the format takes filters, keep only the rows a filter passes.
func TestEveryFormat(t *testing.T) {
	if got := files.Names(); len(got) < 4 {
		t.Fatalf("formats %v, want at least csv, json, parquet and avro", got)
	}
	const rows = 60
	seeds, valid := make([]int, rows), make([]bool, rows)
	for i := range seeds {
		seeds[i], valid[i] = i%(typetest.MaxSeed+1), i%7 != 5
	}
	types := []arrow.DataType{kernel.Int64, kernel.Float64, kernel.String, kernel.Bool, arrow.FixedWidthTypes.Date32,
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, &arrow.Decimal128Type{Precision: 9, Scale: 2}}
	var fields []arrow.Field
	var cols []arrow.Array
	for i, typ := range types {
		fields = append(fields, arrow.Field{Name: string(rune('a' + i)), Type: typ, Nullable: true})
		cols = append(cols, typetest.Column(typ, seeds, valid))
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, rows)
	defer rec.Release()
	for _, name := range files.Names() {
		t.Run(name, func(t *testing.T) {
			f, err := files.Named(name)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "x."+name)
			w, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Write(w, rec, nil, false); err != nil {
				t.Fatalf("Write: %v", err)
			}
			w.Close()
			st, err := storage.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			// The text formats read numbers and text by the types given.
			opts := []byte(`{"types":{"e":"date32","f":"timestamp[us, tz=UTC]","g":"decimal(9, 2)","c":"string"}}`)
			layout, err := f.Describe([]storage.File{st}, opts)
			if err != nil {
				t.Fatalf("Describe: %v", err)
			}
			slice := files.Slice{Path: path, Stamp: st.Fingerprint(), Size: st.Size, End: st.Size}
			if layout.Files != nil {
				slice = files.Slice{Path: path, Stamp: st.Fingerprint()}
			}
			for _, proj := range [][]string{nil, {"g", "a"}} {
				back, err := f.Read(slice, proj, nil, layout.ReadOpts)
				if err != nil {
					t.Fatalf("Read %v: %v", proj, err)
				}
				if back.NumRows() != rows {
					t.Fatalf("Read %v: %d rows, want %d", proj, back.NumRows(), rows)
				}
				for c := 0; c < int(back.NumCols()); c++ {
					want := rec.Column(rec.Schema().FieldIndices(back.ColumnName(c))[0])
					for r := 0; r < rows; r++ {
						if g, w := typetest.Text(back.Column(c), r), typetest.Text(want, r); g != w {
							t.Fatalf("column %s row %d: %s, want %s", back.ColumnName(c), r, g, w)
						}
					}
				}
				back.Release()
			}
			if !f.Filters() {
				return
			}
			odd := files.Filter{Column: "a", Pass: func(v arrow.Array) ([]uint8, error) {
				out := make([]uint8, v.Len())
				for i := range out {
					if x, ok := v.(*array.Int64); ok && x.Value(i)%2 != 0 {
						out[i] = 1
					}
				}
				return out, nil
			}}
			kept, err := f.Read(slice, []string{"a"}, []files.Filter{odd}, layout.ReadOpts)
			if err != nil {
				t.Fatalf("Read with a filter: %v", err)
			}
			defer kept.Release()
			want := 0
			for i, s := range seeds {
				if valid[i] && (s-6)%2 != 0 {
					want++
				}
			}
			if int(kept.NumRows()) != want {
				t.Fatalf("the filter kept %d rows, want %d", kept.NumRows(), want)
			}
		})
	}
}

// TestNamed names the formats when asked for one there is not.
func TestNamed(t *testing.T) {
	if _, err := files.Named("orc"); err == nil {
		t.Fatal("Named(orc) succeeded")
	}
}
