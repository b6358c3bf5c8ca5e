// Package iotest owns the helpers that the tests of the io packages share:
// a record with a column of each of Dusk's types, and records read back as
// plain Go values to compare. Only tests import it.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, or the collections.
package iotest

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
)

// RowsOf reads a record back as rows of plain Go values: int64, float64,
// bool, string, or nil for null.
func RowsOf(rec arrow.Record) [][]any {
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
			case *array.Date32, *array.Timestamp: // their raw numbers: days, or the unit's
				out[i][c] = kernel.Widen(a).(*array.Int64).Value(i)
			default:
				panic(fmt.Sprintf("unexpected column type %s", col.DataType()))
			}
		}
	}
	return out
}

// TypesOf names the record's column types.
func TypesOf(rec arrow.Record) []string {
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

// Validity packs a null mask (true: null) into an Arrow bitmap.
func Validity(null []bool) []byte {
	bits := make([]byte, (len(null)+7)/8)
	for i, n := range null {
		if !n {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return bits
}

// FiveTypes makes a record of n rows with one column of each of Dusk's
// types (i int64, f float64, b bool, s string, d dictionary strings), with
// nulls at different rows in each: row i holds strs[i%len(strs)], and
// floats[i%len(floats)] times 1+i%3. The caller owns the record.
func FiveTypes(n int, strs []string, floats []float64) arrow.Record {
	ints := make([]int64, n)
	fs := make([]float64, n)
	bools := make([]uint8, n)
	offs := []int32{0}
	var data []byte
	indices := make([]int32, n)
	nulls := make([][]bool, 5)
	for c := range nulls {
		nulls[c] = make([]bool, n)
	}
	for i := 0; i < n; i++ {
		ints[i] = int64(i*i*7919) - 1<<40
		if i == 1 {
			ints[i] = math.MinInt64
		}
		if i == 2 {
			ints[i] = math.MaxInt64
		}
		fs[i] = floats[i%len(floats)] * float64(1+i%3)
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
		kernel.NewInt64(ints, Validity(nulls[0])),
		kernel.NewFloat64(fs, Validity(nulls[1])),
		kernel.NewBool(bools, Validity(nulls[2])),
		kernel.NewString(offs, data, Validity(nulls[3])),
		kernel.NewDict(indices, dict, Validity(nulls[4])),
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

// HangAfter is how long a fuzz target's one input may take before NoHang
// calls it a hang.
const HangAfter = 10 * time.Second

// NoHang, deferred as `defer iotest.NoHang(input)()` in a fuzz target,
// crashes the process with the input when reading it takes longer than
// HangAfter: the fuzzer records a crash with its input, where a hang would
// only stall it.
func NoHang(input []byte) (stop func()) {
	t := time.AfterFunc(HangAfter, func() {
		panic(fmt.Sprintf("reading took over %v: a hang? input %q", HangAfter, input))
	})
	return func() { t.Stop() }
}
