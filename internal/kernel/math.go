package kernel

import (
	"fmt"
	"math"

	"github.com/apache/arrow/go/v15/arrow"
)

// MathOp is a numeric function of one operand.
type MathOp uint8

const (
	Neg MathOp = iota
	Abs
	Sqrt
	Log
	Exp
	Floor
	Ceil
)

var mathNames = [...]string{"neg", "abs", "sqrt", "log", "exp", "floor", "ceil"}

func (op MathOp) String() string { return mathNames[op] }

// ResultKind is the kind of op(a): neg, abs, floor and ceil keep an int64 an
// int64; sqrt, log and exp always give float64 (NaN outside their domain,
// as numpy).
func (op MathOp) ResultKind(a Kind) (Kind, error) {
	switch {
	case a != KindInt && a != KindFloat && a != KindNull:
		return 0, fmt.Errorf("%s needs a number, not %s", op, a)
	case a == KindInt && op <= Abs, a == KindInt && op >= Floor:
		return KindInt, nil
	}
	return KindFloat, nil
}

// mathFuncs are the float64 forms of each MathOp.
var mathFuncs = [...]func(float64) float64{
	func(x float64) float64 { return -x }, math.Abs, math.Sqrt, math.Log, math.Exp, math.Floor, math.Ceil,
}

// Math applies op to every row of a numeric column; nulls stay null.
func Math(a arrow.Array, op MathOp) (arrow.Array, error) {
	k, err := KindOf(a.DataType())
	if err != nil {
		return nil, err
	}
	rk, err := op.ResultKind(k)
	if err != nil {
		return nil, err
	}
	valid := AlignedValid(a)
	if rk == KindInt {
		x, _ := Col(a).ints()
		if op >= Floor { // floor and ceil of an integer
			return NewInt64(append([]int64(nil), x...), valid), nil
		}
		return NewInt64(negAbs(x, op), valid), nil
	}
	x, _ := Col(a).floats()
	if op <= Abs {
		return NewFloat64(negAbs(x, op), valid), nil
	}
	out := make([]float64, len(x))
	f := mathFuncs[op]
	for i, v := range x {
		out[i] = f(v)
	}
	return NewFloat64(out, valid), nil
}

// negAbs is -x or |x| (op Neg or Abs), a typed loop each.
func negAbs[T int64 | float64](x []T, op MathOp) []T {
	out := make([]T, len(x))
	if op == Neg {
		for i, v := range x {
			out[i] = -v
		}
		return out
	}
	for i, v := range x {
		out[i] = max(v, -v) // max(-0, 0) is 0, and NaN stays NaN
	}
	return out
}

// Round rounds a float column to digits decimal places, halves away from
// zero (negative digits round to tens, hundreds...); an int column with
// digits ≥ 0 is returned as it is, retained.
func Round(a arrow.Array, digits int) (arrow.Array, error) {
	k, err := KindOf(a.DataType())
	if err != nil {
		return nil, err
	}
	switch k {
	case KindInt:
		if digits >= 0 {
			a.Retain()
			return a, nil
		}
		x, _ := Col(a).ints()
		p := int64(math.Pow10(-digits))
		out := make([]int64, len(x))
		for i, v := range x {
			r := v % p
			out[i] = v - r
			if 2*max(r, -r) >= p {
				out[i] += p * signOf(v)
			}
		}
		return NewInt64(out, AlignedValid(a)), nil
	case KindFloat, KindNull:
		x, _ := Col(a).floats()
		out := make([]float64, a.Len())
		p := math.Pow10(digits)
		for i, v := range x {
			if r := math.Round(v*p) / p; !math.IsInf(r, 0) && !math.IsNaN(r) || math.IsNaN(v) {
				out[i] = r
			} else {
				out[i] = v // too large to scale: already a whole number
			}
		}
		return NewFloat64(out, AlignedValid(a)), nil
	}
	return nil, fmt.Errorf("round needs a number, not %s", k)
}

func signOf(v int64) int64 {
	if v < 0 {
		return -1
	}
	return 1
}

// Mod is a mod b with the sign of b, as Python's and pandas' %: int64 for
// two int64s (null where b is 0), else float64.
func Mod(a, b Datum, n int) (arrow.Array, error) {
	ka, kb := a.Kind(), b.Kind()
	if !isNumber(ka) || !isNumber(kb) {
		return nil, fmt.Errorf("cannot apply mod to %s and %s", ka, kb)
	}
	va, vb := a.validBytes(n), b.validBytes(n)
	if ka != KindFloat && kb != KindFloat {
		out := make([]int64, n)
		valid := andValid(va, vb)
		x, xs := a.ints()
		y, ys := b.ints()
		for i := range out {
			p, q := xs, ys
			if x != nil {
				p = x[i]
			}
			if y != nil {
				q = y[i]
			}
			if q == 0 {
				if valid == nil {
					valid = ones(nil, n)
				}
				valid[i] = 0
				continue
			}
			r := p % q
			if r != 0 && (r < 0) != (q < 0) {
				r += q
			}
			out[i] = r
		}
		return NewInt64(out, packValid(valid)), nil
	}
	return binaryFloat(a, b, n, func(p, q float64) float64 {
		r := math.Mod(p, q)
		if r != 0 && (r < 0) != (q < 0) {
			r += q
		}
		return r
	}), nil
}

// Pow is a raised to the power b, always float64.
func Pow(a, b Datum, n int) (arrow.Array, error) {
	ka, kb := a.Kind(), b.Kind()
	if !isNumber(ka) || !isNumber(kb) {
		return nil, fmt.Errorf("cannot apply pow to %s and %s", ka, kb)
	}
	return binaryFloat(a, b, n, math.Pow), nil
}

func isNumber(k Kind) bool { return k == KindInt || k == KindFloat || k == KindNull }

// binaryFloat computes f(a, b) row by row as float64.
func binaryFloat(a, b Datum, n int, f func(float64, float64) float64) arrow.Array {
	x, xs := a.floats()
	y, ys := b.floats()
	out := make([]float64, n)
	for i := range out {
		p, q := xs, ys
		if x != nil {
			p = x[i]
		}
		if y != nil {
			q = y[i]
		}
		out[i] = f(p, q)
	}
	return NewFloat64(out, packValid(andValid(a.validBytes(n), b.validBytes(n))))
}

// IsNaN is 1 where a float is NaN, 0 for other numbers; nulls stay null.
func IsNaN(d Datum, n int) Mask {
	out := Mask{Vals: make([]uint8, n), Valid: d.validBytes(n)}
	if d.Kind() != KindFloat {
		return out
	}
	x, s := d.floats()
	if x == nil {
		if math.IsNaN(s) {
			for i := range out.Vals {
				out.Vals[i] = 1
			}
		}
		return out
	}
	for i, v := range x {
		out.Vals[i] = b2u(v != v)
	}
	return out
}

// AlignedValid copies a's validity bitmap to start at its first row (the
// result must not share a's buffers, which a's owner may free), or returns
// nil when nothing is null.
func AlignedValid(a arrow.Array) []byte {
	valid, off := Validity(a)
	if valid == nil {
		return nil
	}
	n := a.Len()
	if off%8 == 0 {
		return append([]byte(nil), valid[off/8:off/8+(n+7)/8]...)
	}
	out := make([]byte, (n+7)/8)
	for i := 0; i < n; i++ {
		j := off + i
		out[i>>3] |= (valid[j>>3] >> (j & 7) & 1) << (i & 7)
	}
	return out
}
