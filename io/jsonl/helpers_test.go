package jsonl_test

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/kernel"
)

// rowsOf reads a record back as rows of plain Go values: int64, float64,
// bool, string, or nil for null.
func rowsOf(rec arrow.Record) [][]any {
	out := make([][]any, rec.NumRows())
	for i := range out {
		out[i] = make([]any, rec.NumCols())
	}
	for c, col := range rec.Columns() {
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				continue
			}
			switch a := col.(type) {
			case *array.Int64:
				out[i][c] = a.Value(i)
			case *array.Float64:
				out[i][c] = a.Value(i)
			case *array.Boolean:
				out[i][c] = a.Value(i)
			case *array.String:
				out[i][c] = a.Value(i)
			case *array.Dictionary:
				out[i][c] = kernel.StringsOf(a).Value(i)
			default:
				panic(fmt.Sprintf("unexpected column type %s", col.DataType()))
			}
		}
	}
	return out
}

// typesOf names the record's column types.
func typesOf(rec arrow.Record) []string {
	var out []string
	for _, f := range rec.Schema().Fields() {
		if arrow.TypeEqual(f.Type, kernel.Dict) {
			out = append(out, "dict")
			continue
		}
		out = append(out, f.Type.String())
	}
	return out
}
