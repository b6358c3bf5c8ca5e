package agg

import (
	"errors"
	"math"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/internal/kernel"
)

// gpuPartial computes a partial aggregation's state record with k, and
// reports false where k has no kernel for it, so that the CPU computes it:
// the GPU takes one key column, int64 or dictionary-encoded, and sums,
// means, counts, minima and maxima of int64 and float64 columns, none of
// them with nulls.
func gpuPartial(k gpu.Kernels, a *GroupArgs, fns []kernel.AggFunc, rec arrow.Record, keys []arrow.Array) (arrow.Record, bool, error) {
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
		if !fn.OnGPU() {
			return nil, false, nil
		}
		if fn.OneRow() == kernel.OneRowCount { // a count or a size: nothing on the GPU
			if fn.Inputs() > 0 {
				j, err := expr.ColumnIndex(rec.Schema(), a.Aggs[i].Col)
				if err != nil {
					return nil, false, err
				}
				if rec.Column(j).NullN() > 0 {
					return nil, false, nil
				}
			}
			continue
		}
		name := a.Aggs[i].Col
		c, ok := byName[name]
		if !ok {
			j, err := expr.ColumnIndex(rec.Schema(), name)
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
