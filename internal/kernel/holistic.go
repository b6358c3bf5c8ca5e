package kernel

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// Holistic aggregations need every value of a group at once, so they run
// after a shuffle has brought each group's rows together, not as a tree
// reduction. Each takes rows grouped by ids (-1: dropped) into n groups.

// GroupQuantile is the q-quantile of each group's non-null values, with
// pandas' default linear interpolation, as float64; null for a group with
// no values, NaN for one holding a NaN (as Mean gives). Numeric columns only.
func GroupQuantile(col arrow.Array, ids []int32, n int, q float64) (arrow.Array, error) {
	if !(q >= 0 && q <= 1) {
		return nil, fmt.Errorf("quantile %v is outside [0, 1]", q)
	}
	var start []int
	var vals []float64
	switch a := col.(type) {
	case *array.Int64:
		start, vals = valuesByGroup(a.Int64Values(), a, ids, n)
	case *array.Float64:
		start, vals = valuesByGroup(a.Float64Values(), a, ids, n)
	default:
		return nil, fmt.Errorf("quantile needs a numeric column, not %s", TypeName(col.DataType()))
	}
	out, valid := make([]float64, n), make([]uint8, n)
	for g := range out {
		seg := vals[start[g]:start[g+1]]
		if len(seg) == 0 {
			continue
		}
		valid[g] = 1
		if slices.ContainsFunc(seg, math.IsNaN) {
			out[g] = math.NaN()
			continue
		}
		pos := q * float64(len(seg)-1)
		lo := int(pos)
		frac := pos - float64(lo)
		selectKth(seg, lo)
		out[g] = seg[lo]
		if frac > 0 {
			switch next := slices.Min(seg[lo+1:]); {
			case next == seg[lo]: // equal neighbours, infinite ones too, are the answer
			case math.IsInf(seg[lo], 0) || math.IsInf(next, 0):
				out[g] = seg[lo]*(1-frac) + next*frac // -Inf and 3 give -Inf, not -Inf + Inf
			default:
				out[g] += (next - seg[lo]) * frac
			}
		}
	}
	return NewFloat64(out, packValidIfNull(valid)), nil
}

// selectKth reorders s (no NaNs) so that s[k] is the value a sort would put
// there, the values before it no greater and those after no smaller:
// quickselect, linear where a sort is n log n, with a sort as its fallback
// when the pivots keep choosing badly.
func selectKth(s []float64, k int) {
	lo, hi := 0, len(s)-1
	for budget := 2*bits.Len(uint(len(s))) + 8; hi > lo; budget-- {
		if budget == 0 || hi-lo < 16 {
			slices.Sort(s[lo : hi+1])
			return
		}
		// Median of three as the pivot, then Hoare's partition.
		mid := lo + (hi-lo)/2
		a, b, c := s[lo], s[mid], s[hi]
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for s[i] < pivot {
				i++
			}
			for s[j] > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return // s[j+1:i] all equal the pivot, k among them
		}
	}
}

// GroupMedian is GroupQuantile at 0.5.
func GroupMedian(col arrow.Array, ids []int32, n int) (arrow.Array, error) {
	return GroupQuantile(col, ids, n, 0.5)
}

// valuesByGroup lays out the non-null values of each group, as float64:
// group g's are vals[start[g]:start[g+1]], in row order.
func valuesByGroup[T number](x []T, col arrow.Array, ids []int32, n int) (start []int, vals []float64) {
	valid, off := Validity(col)
	start = make([]int, n+1)
	for i, g := range ids {
		if g >= 0 && IsValid(valid, off, i) {
			start[g+1]++
		}
	}
	for g := 1; g <= n; g++ {
		start[g] += start[g-1]
	}
	vals = make([]float64, start[n])
	pos := append([]int(nil), start[:n]...)
	for i, g := range ids {
		if g >= 0 && IsValid(valid, off, i) {
			vals[pos[g]] = float64(x[i])
			pos[g]++
		}
	}
	return start, vals
}

// GroupNunique counts each group's distinct non-null values, as int64; -0
// counts as 0 and all NaNs as one value. Any kernel column type.
func GroupNunique(col arrow.Array, ids []int32, n int) arrow.Array {
	cols, release := WidenKeys([]arrow.Array{col})
	defer release()
	g, err := NewGrouper(typesOf(cols))
	if err != nil {
		panic(fmt.Sprintf("kernel: GroupNunique: %v", err))
	}
	vids := g.Add(cols, nil) // value ids, -1 for null
	seen := newInt64Table(64)
	counts := make([]int64, n)
	for i, gid := range ids {
		v := vids[i]
		if gid < 0 || v < 0 {
			continue
		}
		if _, added := seen.getOrInsert(int64(gid)<<32|int64(v), 0); added {
			counts[gid]++
		}
	}
	return NewInt64(counts, nil)
}

// GroupFirst is each group's first non-null value in row order, null for
// a group with none, as pandas' first. The result has col's type.
func GroupFirst(col arrow.Array, ids []int32, n int) arrow.Array {
	return Take(col, firstOrLastRows(col, ids, n, false))
}

// GroupLast is each group's last non-null value in row order, null for a
// group with none, as pandas' last. The result has col's type.
func GroupLast(col arrow.Array, ids []int32, n int) arrow.Array {
	return Take(col, firstOrLastRows(col, ids, n, true))
}

// firstOrLastRows is each group's first (or last) row with a value, -1
// for none.
func firstOrLastRows(col arrow.Array, ids []int32, n int, last bool) []int32 {
	valid, off := Validity(col)
	rows := make([]int32, n)
	for g := range rows {
		rows[g] = -1
	}
	for i, g := range ids {
		if g >= 0 && (last || rows[g] < 0) && IsValid(valid, off, i) {
			rows[g] = int32(i)
		}
	}
	return rows
}
