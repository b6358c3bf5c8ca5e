package store

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/kernel/typetest"
)

// TestSpillEveryType writes a record holding a column of every example
// type of kernel's logical type table (with nulls, and a run of one value
// that the lighter encodings take) to a spill file under each compression,
// reads it back whole and by column, and compares each value by its text.
func TestSpillEveryType(t *testing.T) {
	const rows = 300
	seeds, valid := make([]int, rows), make([]bool, rows)
	for i := range seeds {
		seeds[i], valid[i] = i*7%(typetest.MaxSeed+1), i%11 != 4
		if i > 200 {
			seeds[i] = 3 // a run: the narrow and dictionary forms apply
		}
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for _, l := range kernel.Logicals() {
		for _, typ := range l.Examples {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", len(fields)), Type: typ, Nullable: true})
			cols = append(cols, typetest.Column(typ, seeds, valid))
		}
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, rows)
	defer rec.Release()
	for _, comp := range []Compression{None, S2, Zstd} {
		t.Run(fmt.Sprint(comp), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.spill")
			if _, err := writeSpill(path, rec, comp); err != nil {
				t.Fatalf("write: %v", err)
			}
			for _, want := range [][]string{nil, {"c3", "c17"}} {
				got, _, err := readSpill(path, want)
				if err != nil {
					t.Fatalf("read %v: %v", want, err)
				}
				back := got.(arrow.Record)
				for c := 0; c < int(back.NumCols()); c++ {
					name := back.ColumnName(c)
					i := rec.Schema().FieldIndices(name)[0]
					if !arrow.TypeEqual(back.Column(c).DataType(), rec.Column(i).DataType()) {
						t.Errorf("%s: read back as %s, was %s", name, back.Column(c).DataType(), rec.Column(i).DataType())
						continue
					}
					for r := 0; r < rows; r++ {
						if g, w := typetest.Text(back.Column(c), r), typetest.Text(rec.Column(i), r); g != w {
							t.Errorf("%s (%s) row %d: %s, want %s", name, rec.Column(i).DataType(), r, g, w)
							break
						}
					}
				}
				back.Release()
			}
		})
	}
}
