package gpu

import (
	"fmt"
	"sync/atomic"
)

// Reference is the kernels in plain sequential Go: what the device's
// results are tested against, and what tests of the collections' GPU paths
// run on a machine without a GPU.
type Reference struct{}

var _ Kernels = Reference{}

// Name is "reference".
func (Reference) Name() string { return "reference" }

func compare[T Number](x []T, op CmpOp, s T, out []uint8) error {
	if len(out) != len(x) {
		return fmt.Errorf("gpu: compare: %d outputs for %d values", len(out), len(x))
	}
	for i, v := range x {
		var b bool
		switch op {
		case Less:
			b = v < s
		case LessEqual:
			b = v <= s
		case Greater:
			b = v > s
		case GreaterEqual:
			b = v >= s
		case Equal:
			b = v == s
		case NotEqual:
			b = v != s
		default:
			return fmt.Errorf("gpu: compare: unknown operator %d", op)
		}
		out[i] = 0
		if b {
			out[i] = 1
		}
	}
	return nil
}

func arith[T Number](a, b []T, s T, op ArithOp, out []T) error {
	if len(out) != len(a) || b != nil && len(b) != len(a) {
		return fmt.Errorf("gpu: arith: lengths %d, %d and %d differ", len(a), len(b), len(out))
	}
	for i, x := range a {
		y := s
		if b != nil {
			y = b[i]
		}
		switch op {
		case Add:
			out[i] = x + y
		case Sub:
			out[i] = x - y
		case Mul:
			out[i] = x * y
		case Div:
			out[i] = x / y
		default:
			return fmt.Errorf("gpu: arith: unknown operator %d", op)
		}
	}
	return nil
}

// CompareFloat64 sets out[i] to x[i] op scalar.
func (Reference) CompareFloat64(x []float64, op CmpOp, s float64, out []uint8) error {
	return compare(x, op, s, out)
}

// CompareInt64 sets out[i] to x[i] op scalar.
func (Reference) CompareInt64(x []int64, op CmpOp, s int64, out []uint8) error {
	return compare(x, op, s, out)
}

// ArithFloat64 sets out[i] to a[i] op b[i] (or scalar).
func (Reference) ArithFloat64(a, b []float64, s float64, op ArithOp, out []float64) error {
	return arith(a, b, s, op, out)
}

// ArithInt64 sets out[i] to a[i] op b[i] (or scalar); Div is unsupported,
// as on the device.
func (Reference) ArithInt64(a, b []int64, s int64, op ArithOp, out []int64) error {
	if op == Div {
		return ErrUnsupported
	}
	return arith(a, b, s, op, out)
}

// SumFloat64 adds x up.
func (Reference) SumFloat64(x []float64) (float64, error) {
	var s float64
	for _, v := range x {
		s += v
	}
	return s, nil
}

// SumInt64 adds x up.
func (Reference) SumInt64(x []int64) (int64, error) {
	var s int64
	for _, v := range x {
		s += v
	}
	return s, nil
}

// GroupBy groups with a map (int64 keys) or by index (codes), in the order
// groups first appear.
func (Reference) GroupBy(q GroupBy) (GroupResult, error) {
	if err := q.check(); err != nil {
		return GroupResult{}, err
	}
	ids := make([]int32, q.Rows())
	var res GroupResult
	if q.Keys != nil {
		seen := map[int64]int32{}
		for i, k := range q.Keys {
			g, ok := seen[k]
			if !ok {
				g = int32(len(res.Keys))
				seen[k] = g
				res.Keys = append(res.Keys, k)
			}
			ids[i] = g
		}
	} else {
		byCode := make([]int32, q.NCodes)
		for i, c := range q.Codes {
			if c < 0 || int(c) >= q.NCodes {
				return GroupResult{}, fmt.Errorf("gpu: group by: row %d: code %d outside 0..%d", i, c, q.NCodes-1)
			}
			if byCode[c] == 0 {
				res.Codes = append(res.Codes, c)
				byCode[c] = int32(len(res.Codes))
			}
			ids[i] = byCode[c] - 1
		}
	}
	n := max(len(res.Keys), len(res.Codes))
	res.Count = make([]int64, n)
	for _, g := range ids {
		res.Count[g]++
	}
	for _, c := range q.Cols {
		var r AggResult
		if c.F64 != nil {
			r.SumF, r.MinF, r.MaxF = aggregate(c.F64, ids, n, c)
		} else {
			r.SumI, r.MinI, r.MaxI = aggregate(c.I64, ids, n, c)
		}
		res.Cols = append(res.Cols, r)
	}
	return res, nil
}

// aggregate sums and takes extremes of x per group, for the ones c asks.
func aggregate[T Number](x []T, ids []int32, n int, c AggColumn) (sum, lo, hi []T) {
	if c.Sum {
		sum = make([]T, n)
	}
	if c.Min {
		lo = make([]T, n)
	}
	if c.Max {
		hi = make([]T, n)
	}
	seen := make([]bool, n)
	for i, g := range ids {
		v := x[i]
		if sum != nil {
			sum[g] += v
		}
		if !seen[g] {
			seen[g] = true
			if lo != nil {
				lo[g] = v
			}
			if hi != nil {
				hi[g] = v
			}
			continue
		}
		if lo != nil && v < lo[g] {
			lo[g] = v
		}
		if hi != nil && v > hi[g] {
			hi[g] = v
		}
	}
	return sum, lo, hi
}

// Counter wraps kernels and counts the calls that reach them: the tests of
// the collections' GPU paths check with it which operations took them.
type Counter struct {
	Kernels
	Calls atomic.Int64
}

// CompareFloat64 counts the call and passes it on.
func (c *Counter) CompareFloat64(x []float64, op CmpOp, s float64, out []uint8) error {
	c.Calls.Add(1)
	return c.Kernels.CompareFloat64(x, op, s, out)
}

// CompareInt64 counts the call and passes it on.
func (c *Counter) CompareInt64(x []int64, op CmpOp, s int64, out []uint8) error {
	c.Calls.Add(1)
	return c.Kernels.CompareInt64(x, op, s, out)
}

// ArithFloat64 counts the call and passes it on.
func (c *Counter) ArithFloat64(a, b []float64, s float64, op ArithOp, out []float64) error {
	c.Calls.Add(1)
	return c.Kernels.ArithFloat64(a, b, s, op, out)
}

// ArithInt64 counts the call and passes it on.
func (c *Counter) ArithInt64(a, b []int64, s int64, op ArithOp, out []int64) error {
	c.Calls.Add(1)
	return c.Kernels.ArithInt64(a, b, s, op, out)
}

// SumFloat64 counts the call and passes it on.
func (c *Counter) SumFloat64(x []float64) (float64, error) {
	c.Calls.Add(1)
	return c.Kernels.SumFloat64(x)
}

// SumInt64 counts the call and passes it on.
func (c *Counter) SumInt64(x []int64) (int64, error) {
	c.Calls.Add(1)
	return c.Kernels.SumInt64(x)
}

// GroupBy counts the call and passes it on.
func (c *Counter) GroupBy(q GroupBy) (GroupResult, error) {
	c.Calls.Add(1)
	return c.Kernels.GroupBy(q)
}
