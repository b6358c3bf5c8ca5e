package kernel

import (
	"fmt"
	"math"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"

	"github.com/duskdata/dusk/internal/alloc"
)

// Datum is an operand: a column, or a scalar that stands for every row.
type Datum struct {
	Array arrow.Array
	// Scalar is an int64, float64, string or bool; nil with a nil Array is
	// the null literal.
	Scalar any
}

// Col wraps a column.
func Col(a arrow.Array) Datum { return Datum{Array: a} }

// Scalar wraps a literal value.
func Scalar(v any) Datum { return Datum{Scalar: v} }

// Kind is the kind of value a datum holds.
type Kind uint8

const (
	KindNull Kind = iota
	KindInt
	KindFloat
	KindString
	KindBool
	KindDate      // date32: days since 1970-01-01
	KindTimestamp // an instant in its type's unit since the epoch
	KindDuration
	KindDecimal // decimal128: an unscaled integer and the type's scale
)

// Kind returns what d holds.
func (d Datum) Kind() Kind {
	if d.Array != nil {
		k, err := KindOf(d.Array.DataType())
		if err != nil {
			panic(err)
		}
		return k
	}
	switch d.Scalar.(type) {
	case int64:
		return KindInt
	case float64:
		return KindFloat
	case string:
		return KindString
	case bool:
		return KindBool
	case decimal128.Num:
		return KindDecimal
	}
	return KindNull
}

// validBytes gives one byte per row, 1 where d is not null, or nil when no
// row is null.
func (d Datum) validBytes(n int) []uint8 {
	if d.Array == nil {
		if d.Scalar == nil {
			return make([]uint8, n) // every row null
		}
		return nil
	}
	valid, off := Validity(d.Array)
	if valid == nil {
		return nil
	}
	out := make([]uint8, n)
	for i := range out {
		j := off + i
		out[i] = (valid[j>>3] >> (j & 7)) & 1
	}
	return out
}

// andValid combines two validity vectors (nil: all valid).
func andValid(a, b []uint8) []uint8 {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := make([]uint8, len(a))
	for i := range out {
		out[i] = a[i] & b[i]
	}
	return out
}

// floats returns d's rows as float64 (a column converted, or a scalar).
func (d Datum) floats() ([]float64, float64) {
	switch a := d.Array.(type) {
	case *array.Float64:
		return a.Float64Values(), 0
	case *array.Int64:
		vals := a.Int64Values()
		out := alloc.NoZeroOf[float64](len(vals))
		for i, v := range vals {
			out[i] = float64(v)
		}
		return out, 0
	case *array.Uint64: // the nearest float, past int64's range too
		return widenTo[uint64, float64](a), 0
	case *array.Null:
		return nil, math.NaN() // every row null
	case nil:
		return nil, scalarFloat(d.Scalar)
	}
	switch w := Widen(d.Array).(type) {
	case *array.Float64:
		return w.Float64Values(), 0
	case *array.Int64:
		return Col(w).floats()
	}
	panic(fmt.Sprintf("kernel: %s is not numeric", d.Array.DataType()))
}

// scalarFloat reads a numeric scalar as float64; null is NaN.
func scalarFloat(v any) float64 {
	switch s := v.(type) {
	case float64:
		return s
	case int64:
		return float64(s)
	}
	return math.NaN()
}

// intBits is ints, but a uint64 column as its bits, every value exact: for
// kernels that move values without computing on them.
func (d Datum) intBits() ([]int64, int64) {
	if d.Array != nil && d.Array.DataType().ID() == arrow.UINT64 {
		return widenKey(d.Array).(*array.Int64).Int64Values(), 0
	}
	return d.ints()
}

func (d Datum) ints() ([]int64, int64) {
	if a, ok := d.Array.(*array.Int64); ok {
		return a.Int64Values(), 0
	}
	if d.Array != nil {
		if w, ok := Widen(d.Array).(*array.Int64); ok {
			return w.Int64Values(), 0
		}
		return nil, 0
	}
	s, _ := d.Scalar.(int64)
	return nil, s
}

// packValid turns one byte per row into an Arrow validity bitmap; nil stays nil.
func packValid(valid []uint8) []byte {
	if valid == nil {
		return nil
	}
	out := make([]byte, (len(valid)+7)/8)
	for i, v := range valid {
		out[i>>3] |= (v & 1) << (i & 7)
	}
	return out
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
