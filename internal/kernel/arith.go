package kernel

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/alloc"
)

// ArithOp is an arithmetic operation.
type ArithOp uint8

const (
	Add ArithOp = iota
	Sub
	Mul
	Div
)

var arithNames = [...]string{"+", "-", "*", "/"}

func (op ArithOp) String() string { return arithNames[op] }

// ResultKind is the kind of a op b: int64 for + - * on two int64s
// (wrapping on overflow), float64 otherwise; / always gives float64, as
// pandas' true division does (x/0 is ±Inf or NaN).
func (op ArithOp) ResultKind(a, b Kind) (Kind, error) {
	num := func(k Kind) bool { return k == KindInt || k == KindFloat || k == KindNull }
	if !num(a) || !num(b) {
		return 0, fmt.Errorf("cannot apply %s to %s and %s", op, a, b)
	}
	if a != KindFloat && b != KindFloat && op != Div {
		return KindInt, nil
	}
	return KindFloat, nil
}

// Arith computes a op b over n rows; a null on either side gives null. At
// least one of a and b is a column.
func Arith(a, b Datum, op ArithOp, n int) (arrow.Array, error) {
	kind, err := op.ResultKind(a.Kind(), b.Kind())
	if err != nil {
		return nil, err
	}
	valid := packValid(andValid(a.validBytes(n), b.validBytes(n)))
	if kind == KindInt {
		x, xs := a.ints()
		y, ys := b.ints()
		out := alloc.NoZeroOf[int64](n) // arith writes every value
		arith(x, xs, y, ys, op, out)
		return NewInt64(out, valid), nil
	}
	x, xs := a.floats()
	y, ys := b.floats()
	out := alloc.NoZeroOf[float64](n)
	if !arithFloatsSIMD(x, xs, y, ys, op, out) {
		arith(x, xs, y, ys, op, out)
	}
	return NewFloat64(out, valid), nil
}

// arith fills out with x op y, where a nil slice stands for its scalar.
func arith[T int64 | float64](x []T, xs T, y []T, ys T, op ArithOp, out []T) {
	switch {
	case x != nil && y != nil:
		y = y[:len(x)]
		switch op {
		case Add:
			for i, v := range x {
				out[i] = v + y[i]
			}
		case Sub:
			for i, v := range x {
				out[i] = v - y[i]
			}
		case Mul:
			for i, v := range x {
				out[i] = v * y[i]
			}
		case Div:
			for i, v := range x {
				out[i] = v / y[i]
			}
		}
	case x != nil:
		switch op {
		case Add:
			for i, v := range x {
				out[i] = v + ys
			}
		case Sub:
			for i, v := range x {
				out[i] = v - ys
			}
		case Mul:
			for i, v := range x {
				out[i] = v * ys
			}
		case Div:
			for i, v := range x {
				out[i] = v / ys
			}
		}
	case y != nil:
		switch op {
		case Add:
			for i, v := range y {
				out[i] = xs + v
			}
		case Sub:
			for i, v := range y {
				out[i] = xs - v
			}
		case Mul:
			for i, v := range y {
				out[i] = xs * v
			}
		case Div:
			for i, v := range y {
				out[i] = xs / v
			}
		}
	default: // two all-null columns
		clear(out)
	}
}

// ArithExact checks out, a op b over int64s as Arith computed it, for a
// result that wrapped or whose magnitude passes limit (a decimal's 18
// digits), and returns the first such row's error; null rows pass.
func ArithExact(a, b Datum, op ArithOp, out *array.Int64, limit int64) error {
	x, xs := a.ints()
	y, ys := b.ints()
	for i, s := range out.Int64Values() {
		if out.IsNull(i) {
			continue
		}
		p, q := xs, ys
		if x != nil {
			p = x[i]
		}
		if y != nil {
			q = y[i]
		}
		var wrapped bool
		switch op {
		case Add:
			wrapped = (p^s)&(q^s) < 0
		case Sub:
			wrapped = (p^q)&(p^s) < 0
		case Mul:
			hi, lo := bits.Mul64(absU(p), absU(q))
			wrapped = hi != 0 || lo > math.MaxInt64
		}
		if wrapped || s > limit || s < -limit {
			return fmt.Errorf("row %d: %d %s %d passes %d", i, p, op, q, limit)
		}
	}
	return nil
}

// absU is |v| as a uint64 (exact for math.MinInt64).
func absU(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}
