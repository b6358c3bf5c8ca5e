package kernel

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// Choose takes a's row where cond is true and b's where it is false or null
// (SQL's CASE WHEN), as a column of kind k: ints widen to floats where k is
// float64. The result is null where the chosen operand is.
func Choose(cond Mask, a, b Datum, k Kind, n int) (arrow.Array, error) {
	a, b = nullScalar(a), nullScalar(b)
	pick := cond.Selected()
	valid := chooseValid(pick, a.validBytes(n), b.validBytes(n), n)
	switch k {
	case KindInt:
		return NewInt64(choose(pick, a, b, n, Datum.intBits), packValid(valid)), nil
	case KindFloat:
		return NewFloat64(choose(pick, a, b, n, Datum.floats), packValid(valid)), nil
	case KindBool:
		x, y := MaskOf(a, n), MaskOf(b, n)
		out := make([]uint8, n)
		for i, p := range pick {
			out[i] = p&x.Vals[i] | (p^1)&y.Vals[i]
		}
		return NewBool(out, packValid(valid)), nil
	case KindString:
		var x, y Strings
		if a.Array != nil {
			x = StringsOf(a.Array)
		}
		if b.Array != nil {
			y = StringsOf(b.Array)
		}
		return buildStrings(n, valid, func(dst []byte, i int) ([]byte, bool) {
			d, s := b, y
			if pick[i] != 0 {
				d, s = a, x
			}
			if d.Array == nil {
				return append(dst, d.Scalar.(string)...), true
			}
			return append(dst, s.bytesOf(i)...), true
		}), nil
	case KindNull:
		return array.NewNull(n), nil
	}
	return nil, fmt.Errorf("cannot choose between %s values", k)
}

// choose picks numbers row by row; values reads a datum as a column or a
// scalar.
func choose[T int64 | float64](pick []uint8, a, b Datum, n int, values func(Datum) ([]T, T)) []T {
	x, xs := values(a)
	y, ys := values(b)
	out := make([]T, n)
	for i, p := range pick {
		u, v := xs, ys
		if x != nil {
			u = x[i]
		}
		if y != nil {
			v = y[i]
		}
		if p != 0 {
			out[i] = u
		} else {
			out[i] = v
		}
	}
	return out
}

func chooseValid(pick, va, vb []uint8, n int) []uint8 {
	if va == nil && vb == nil {
		return nil
	}
	va, vb = ones(va, n), ones(vb, n)
	out := make([]uint8, n)
	for i, p := range pick {
		out[i] = p&va[i] | (p^1)&vb[i]
	}
	return out
}

// nullScalar turns a column of Arrow's null type into the null scalar, which
// every kernel reads as a null of any kind.
func nullScalar(d Datum) Datum {
	if d.Array != nil && d.Array.DataType().ID() == arrow.NULL {
		return Datum{}
	}
	return d
}

// ChooseDecimal is Choose for decimals of more than 18 digits, which have
// no int64 form: a and b are decimal128 columns or scalars (decimal128.Num)
// already at typ's scale.
func ChooseDecimal(cond Mask, a, b Datum, typ *arrow.Decimal128Type, n int) arrow.Array {
	a, b = nullScalar(a), nullScalar(b)
	pick := cond.Selected()
	valid := chooseValid(pick, a.validBytes(n), b.validBytes(n), n)
	nums := func(d Datum) ([]decimal128.Num, decimal128.Num) {
		if col, ok := d.Array.(*array.Decimal128); ok {
			return col.Values(), decimal128.Num{}
		}
		s, _ := d.Scalar.(decimal128.Num)
		return nil, s
	}
	x, xs := nums(a)
	y, ys := nums(b)
	out := make([]decimal128.Num, n)
	for i, p := range pick {
		switch {
		case p != 0 && x != nil:
			out[i] = x[i]
		case p != 0:
			out[i] = xs
		case y != nil:
			out[i] = y[i]
		default:
			out[i] = ys
		}
	}
	vb, nulls := validBuffer(packValid(valid), n)
	return array.NewDecimal128Data(array.NewData(typ, n, []*memory.Buffer{vb, bufferOf(out)}, nil, nulls, 0))
}
