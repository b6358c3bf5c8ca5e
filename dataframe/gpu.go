package dataframe

import (
	"errors"
	"math"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// accelerator returns the GPU kernels of a task that holds a GPU, or nil
// where the task does not or this process has no GPU: the caller then runs
// its CPU path.
func accelerator(tc *registry.Context) gpu.Kernels { return gpu.ForTask(tc != nil && tc.GPU) }

// gpuPartial computes a partial aggregation's state record with k, and
// reports false where k has no kernel for it, so that the CPU computes it:
// the GPU takes one key column, int64 or dictionary-encoded, and sums,
// means, counts, minima and maxima of int64 and float64 columns, none of
// them with nulls.
func gpuPartial(k gpu.Kernels, a *groupArgs, fns []kernel.AggFunc, rec arrow.Record, keys []arrow.Array) (arrow.Record, bool, error) {
	if len(keys) != 1 || keys[0].NullN() > 0 {
		return nil, false, nil
	}
	var q gpu.GroupBy
	var dict *array.String
	switch key := keys[0].(type) {
	case *array.Int64:
		q.Keys = key.Int64Values()
	case *array.Dictionary:
		codes, ok := key.Indices().(*array.Int32)
		values, isString := key.Dictionary().(*array.String)
		if !ok || !isString {
			return nil, false, nil
		}
		q.Codes, q.NCodes, dict = codes.Int32Values(), values.Len(), values
	default:
		return nil, false, nil
	}
	// One value column per name, whatever aggregations share it.
	colOf := make([]int, len(fns))
	byName := map[string]int{}
	for i, fn := range fns {
		colOf[i] = -1
		switch fn {
		case kernel.Size, kernel.Count:
			if fn == kernel.Count {
				j, err := columnIndex(rec.Schema(), a.Aggs[i].Col)
				if err != nil {
					return nil, false, err
				}
				if rec.Column(j).NullN() > 0 {
					return nil, false, nil
				}
			}
			continue
		case kernel.Sum, kernel.Mean, kernel.Min, kernel.Max:
		default:
			return nil, false, nil
		}
		name := a.Aggs[i].Col
		c, ok := byName[name]
		if !ok {
			j, err := columnIndex(rec.Schema(), name)
			if err != nil {
				return nil, false, err
			}
			col := rec.Column(j)
			if col.NullN() > 0 {
				return nil, false, nil
			}
			switch v := col.(type) {
			case *array.Int64:
				q.Cols = append(q.Cols, gpu.AggColumn{I64: v.Int64Values()})
			case *array.Float64:
				q.Cols = append(q.Cols, gpu.AggColumn{F64: v.Float64Values()})
			default:
				return nil, false, nil
			}
			c = len(q.Cols) - 1
			byName[name] = c
		}
		colOf[i] = c
		if (fn == kernel.Min || fn == kernel.Max) && slices.ContainsFunc(q.Cols[c].F64, math.IsNaN) {
			return nil, false, nil // the GPU's extremes skip NaNs; the CPU's keep a leading one
		}
		switch fn {
		case kernel.Sum, kernel.Mean:
			q.Cols[c].Sum = true
		case kernel.Min:
			q.Cols[c].Min = true
		case kernel.Max:
			q.Cols[c].Max = true
		}
	}
	res, err := k.GroupBy(q)
	if errors.Is(err, gpu.ErrUnsupported) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var gkey arrow.Array
	if dict != nil {
		gkey = kernel.NewDict(res.Codes, dict, nil)
	} else {
		gkey = kernel.NewInt64(res.Keys, nil)
	}
	states := make([][]arrow.Array, len(fns))
	for i, fn := range fns {
		if colOf[i] < 0 { // Size, Count
			states[i] = []arrow.Array{kernel.NewInt64(slices.Clone(res.Count), nil)}
			continue
		}
		r, isInt := res.Cols[colOf[i]], q.Cols[colOf[i]].I64 != nil
		pick := func(ints []int64, floats []float64) arrow.Array {
			if isInt {
				return kernel.NewInt64(ints, nil)
			}
			return kernel.NewFloat64(floats, nil)
		}
		switch fn {
		case kernel.Sum:
			states[i] = []arrow.Array{pick(r.SumI, r.SumF)}
		case kernel.Min:
			states[i] = []arrow.Array{pick(r.MinI, r.MinF)}
		case kernel.Max:
			states[i] = []arrow.Array{pick(r.MaxI, r.MaxF)}
		case kernel.Mean:
			sums := r.SumF
			if isInt {
				sums = make([]float64, len(r.SumI))
				for g, s := range r.SumI {
					sums[g] = float64(s)
				}
			}
			states[i] = []arrow.Array{kernel.NewFloat64(sums, nil), kernel.NewInt64(slices.Clone(res.Count), nil)}
		}
	}
	return stateRecord(a, fns, []arrow.Array{gkey}, states), true, nil
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
