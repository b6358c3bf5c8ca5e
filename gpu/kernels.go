package gpu

import (
	"errors"
	"fmt"
)

// CmpOp is a comparison, numbered as dusk.cu numbers them.
type CmpOp int32

// The comparisons of Compare.
const (
	Less CmpOp = iota
	LessEqual
	Greater
	GreaterEqual
	Equal
	NotEqual
)

// ArithOp is an arithmetic operator, numbered as dusk.cu numbers them.
type ArithOp int32

// The operators of Arith. Div has no int64 kernel (division by zero is
// the CPU's to report).
const (
	Add ArithOp = iota
	Sub
	Mul
	Div
)

// ErrUnsupported is returned for an operation a kernel set has no kernel
// for; the caller runs it on the CPU.
var ErrUnsupported = errors.New("gpu: no kernel for this operation")

// Number is a column type the kernels take.
type Number interface{ ~int64 | ~float64 }

// Kernels are the accelerated operations, on plain slices without nulls:
// the collections convert their Arrow columns and keep nulls, and any type
// these lack, on the CPU. The GPU device implements them, and so does
// Reference, in plain sequential Go, against which the device is tested.
type Kernels interface {
	// Name says which implementation runs: "reference" or the device's name.
	Name() string
	// CompareFloat64 and CompareInt64 set out[i] to 1 where x[i] op scalar
	// holds and 0 elsewhere; len(out) is len(x).
	CompareFloat64(x []float64, op CmpOp, scalar float64, out []uint8) error
	CompareInt64(x []int64, op CmpOp, scalar int64, out []uint8) error
	// ArithFloat64 and ArithInt64 set out[i] to a[i] op b[i], or to
	// a[i] op scalar when b is nil.
	ArithFloat64(a, b []float64, scalar float64, op ArithOp, out []float64) error
	ArithInt64(a, b []int64, scalar int64, op ArithOp, out []int64) error
	// SumFloat64 and SumInt64 add x up (int64 wrapping, as Go adds).
	SumFloat64(x []float64) (float64, error)
	SumInt64(x []int64) (int64, error)
	// GroupBy groups rows by an int64 key or a dictionary code and
	// aggregates value columns per group.
	GroupBy(q GroupBy) (GroupResult, error)
}

// GroupBy is a grouped aggregation: exactly one of Keys (int64 keys, hashed)
// and Codes (dictionary codes in 0..NCodes-1, indexed directly) is set, and
// Cols are the value columns, each of len(Keys) or len(Codes) rows.
type GroupBy struct {
	Keys   []int64
	Codes  []int32
	NCodes int
	Cols   []AggColumn
}

// AggColumn is one value column, float64 or int64, and the aggregations
// wanted of it; every group's row count comes with any GroupBy.
type AggColumn struct {
	F64           []float64
	I64           []int64
	Sum, Min, Max bool
}

// Rows is the number of rows of the grouping.
func (q *GroupBy) Rows() int {
	if q.Keys != nil {
		return len(q.Keys)
	}
	return len(q.Codes)
}

func (q *GroupBy) check() error {
	if (q.Keys == nil) == (q.Codes == nil) {
		return fmt.Errorf("gpu: group by: give either int64 keys or dictionary codes")
	}
	n := q.Rows()
	for i, c := range q.Cols {
		if (c.F64 == nil) == (c.I64 == nil) {
			return fmt.Errorf("gpu: group by: column %d: give either float64 or int64 values", i)
		}
		if m := max(len(c.F64), len(c.I64)); m != n {
			return fmt.Errorf("gpu: group by: column %d has %d rows, the keys %d", i, m, n)
		}
	}
	return nil
}

// GroupResult holds one entry per group present, in an order of the
// implementation's choosing: its int64 key (Keys) or dictionary code
// (Codes), its row count, and per column the aggregations asked for.
type GroupResult struct {
	Keys  []int64
	Codes []int32
	Count []int64
	Cols  []AggResult
}

// AggResult is one column's aggregations per group: the F fields for a
// float64 column, the I fields for an int64 one; nil where not asked for.
type AggResult struct {
	SumF, MinF, MaxF []float64
	SumI, MinI, MaxI []int64
}
