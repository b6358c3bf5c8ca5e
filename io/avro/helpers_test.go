package avro_test

import (
	"fmt"
	"math"
	"strings"

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

// validity packs a null mask (true: null) into an Arrow bitmap.
func validity(null []bool) []byte {
	bits := make([]byte, (len(null)+7)/8)
	for i, n := range null {
		if !n {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return bits
}

// fiveTypes makes a record of n rows with one column of each of Dusk's
// types, with nulls at different rows in each.
func fiveTypes(n int) arrow.Record {
	ints := make([]int64, n)
	floats := make([]float64, n)
	bools := make([]uint8, n)
	offs := []int32{0}
	var data []byte
	indices := make([]int32, n)
	nulls := make([][]bool, 5)
	for c := range nulls {
		nulls[c] = make([]bool, n)
	}
	strs := []string{"plain", `q"uote\back`, "tab\tnew\nline", "é中😀", "", strings.Repeat("long", 100)}
	for i := 0; i < n; i++ {
		ints[i] = int64(i*i*7919) - 1<<40
		if i == 1 {
			ints[i] = math.MinInt64
		}
		if i == 2 {
			ints[i] = math.MaxInt64
		}
		floats[i] = []float64{0.1, -2.5, 3, 1e300, math.Inf(-1), math.SmallestNonzeroFloat64}[i%6] * float64(1+i%3)
		bools[i] = uint8(i % 2)
		data = append(data, strs[i%len(strs)]...)
		offs = append(offs, int32(len(data)))
		indices[i] = int32(i % 3)
		for c := range nulls {
			nulls[c][i] = (i+c)%4 == 0
		}
	}
	dict := kernel.NewString([]int32{0, 1, 3, 6}, []byte("abbccc"), nil)
	defer dict.Release()
	cols := []arrow.Array{
		kernel.NewInt64(ints, validity(nulls[0])),
		kernel.NewFloat64(floats, validity(nulls[1])),
		kernel.NewBool(bools, validity(nulls[2])),
		kernel.NewString(offs, data, validity(nulls[3])),
		kernel.NewDict(indices, dict, validity(nulls[4])),
	}
	fields := []arrow.Field{
		{Name: "i", Type: kernel.Int64, Nullable: true}, {Name: "f", Type: kernel.Float64, Nullable: true},
		{Name: "b", Type: kernel.Bool, Nullable: true}, {Name: "s", Type: kernel.String, Nullable: true},
		{Name: "d", Type: kernel.Dict, Nullable: true},
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}
