package expr

import (
	"errors"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/internal/kernel"
)

// gpuCompare compares a column with a scalar of its type on k; ok is false
// where k is nil or has no kernel for the operands (nulls, mixed types, two
// columns), which the CPU then compares.
func gpuCompare(k gpu.Kernels, a, b kernel.Datum, op kernel.CmpOp) (kernel.Mask, bool, error) {
	if k == nil || a.Array == nil || b.Array != nil {
		return kernel.Mask{}, false, nil
	}
	ai, af, aok := numbers(a)
	bi, bf, bok := numbers(b)
	if !aok || !bok {
		return kernel.Mask{}, false, nil
	}
	out := make([]uint8, a.Array.Len())
	var err error
	switch {
	case ai != nil && bi != nil:
		err = k.CompareInt64(ai, gpuCmp[op], bi[0], out)
	case af != nil && bf != nil:
		err = k.CompareFloat64(af, gpuCmp[op], bf[0], out)
	default:
		return kernel.Mask{}, false, nil
	}
	if errors.Is(err, gpu.ErrUnsupported) {
		return kernel.Mask{}, false, nil
	}
	return kernel.Mask{Vals: out}, err == nil, err
}

// gpuArith computes a column op a column, or op a scalar, of one type on
// k; ok is false where k is nil or has no kernel for the operands.
func gpuArith(k gpu.Kernels, a, b kernel.Datum, op kernel.ArithOp) (arrow.Array, bool, error) {
	if k == nil || a.Array == nil {
		return nil, false, nil
	}
	ai, af, aok := numbers(a)
	bi, bf, bok := numbers(b)
	if !aok || !bok {
		return nil, false, nil
	}
	n := a.Array.Len()
	var err error
	var out arrow.Array
	switch {
	case ai != nil && bi != nil && op != kernel.Div: // int division gives floats: the CPU's
		res, scalar := make([]int64, n), int64(0)
		if b.Array == nil {
			bi, scalar = nil, bi[0]
		}
		if err = k.ArithInt64(ai, bi, scalar, gpuArithOp[op], res); err == nil {
			out = kernel.NewInt64(res, nil)
		}
	case af != nil && bf != nil:
		res, scalar := make([]float64, n), 0.0
		if b.Array == nil {
			bf, scalar = nil, bf[0]
		}
		if err = k.ArithFloat64(af, bf, scalar, gpuArithOp[op], res); err == nil {
			out = kernel.NewFloat64(res, nil)
		}
	default:
		return nil, false, nil
	}
	if errors.Is(err, gpu.ErrUnsupported) {
		return nil, false, nil
	}
	return out, err == nil, err
}

// gpuCmp and gpuArithOp number kernel's operators as gpu numbers them.
var (
	gpuCmp     = map[kernel.CmpOp]gpu.CmpOp{kernel.Eq: gpu.Equal, kernel.Ne: gpu.NotEqual, kernel.Lt: gpu.Less, kernel.Le: gpu.LessEqual, kernel.Gt: gpu.Greater, kernel.Ge: gpu.GreaterEqual}
	gpuArithOp = map[kernel.ArithOp]gpu.ArithOp{kernel.Add: gpu.Add, kernel.Sub: gpu.Sub, kernel.Mul: gpu.Mul, kernel.Div: gpu.Div}
)

// numbers returns the values of a column without nulls, int64 or float64,
// or of a scalar of those types; ok is false for anything else.
func numbers(d kernel.Datum) (ints []int64, floats []float64, ok bool) {
	switch a := d.Array.(type) {
	case nil:
		switch s := d.Scalar.(type) {
		case int64:
			return []int64{s}, nil, true
		case float64:
			return nil, []float64{s}, true
		}
	case *array.Int64:
		return a.Int64Values(), nil, a.NullN() == 0
	case *array.Float64:
		return nil, a.Float64Values(), a.NullN() == 0
	}
	return nil, nil, false
}
