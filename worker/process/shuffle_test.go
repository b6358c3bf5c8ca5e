package process

import (
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// TestRowsOf: a record's rows, a null-typed column's counted as any
// other's (it holds no buffer, but rows), and -1 for a value without rows,
// which the worker core then judges by its bytes.
func TestRowsOf(t *testing.T) {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3}, nil)
	k := b.NewArray()
	defer k.Release()
	null := array.NewNull(3)
	defer null.Release()
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "count", Type: arrow.Null, Nullable: true},
	}, nil), []arrow.Array{k, null}, 3)
	defer rec.Release()
	tail := rec.NewSlice(1, 3)
	defer tail.Release()
	for _, c := range []struct {
		name string
		v    any
		want int64
	}{
		{"record", rec, 3},
		{"slice of a record", tail, 2},
		{"go value", []int64{1, 2, 3}, -1},
	} {
		if got := rowsOf(c.v); got != c.want {
			t.Errorf("%s: rows %d, want %d", c.name, got, c.want)
		}
	}
}
