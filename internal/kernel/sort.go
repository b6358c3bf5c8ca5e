package kernel

import (
	"cmp"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// SortIndices returns the row order that sorts by cols, the first deciding
// first; ascending[i] gives column i's direction. Nulls sort last either
// way, NaNs after numbers. The sort is stable.
func SortIndices(cols []arrow.Array, ascending []bool) []int32 {
	cols, release := widenAllBy(cols, widenSort)
	defer release()
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	cmps := make([]func(i, j int32) int, len(cols))
	for c, col := range cols {
		cmps[c] = comparer(col, ascending[c])
	}
	slices.SortStableFunc(idx, func(i, j int32) int {
		for _, f := range cmps {
			if r := f(i, j); r != 0 {
				return r
			}
		}
		return 0
	})
	return idx
}

// widenSort is WidenOrder, but a decimal of more than 18 digits stays as
// it is, its 16-byte values compared exactly (comparer).
func widenSort(a arrow.Array) arrow.Array {
	if IsWideDecimal(a.DataType()) {
		a.Retain()
		return a
	}
	return WidenOrder(a)
}

// comparer compares two rows of col: nulls last, then by value.
func comparer(col arrow.Array, asc bool) func(i, j int32) int {
	valid, off := Validity(col)
	var byValue func(i, j int32) int
	switch a := col.(type) {
	case *array.Int64:
		v := a.Int64Values()
		byValue = func(i, j int32) int { return cmp.Compare(v[i], v[j]) }
	case *array.Float64:
		v := a.Float64Values()
		byValue = func(i, j int32) int { return cmp.Compare(v[i], v[j]) } // NaN is least
	case *array.Boolean:
		byValue = func(i, j int32) int { return cmp.Compare(b2u(a.Value(int(i))), b2u(a.Value(int(j)))) }
	case *array.Decimal128:
		v := a.Values()
		byValue = func(i, j int32) int { return v[i].Cmp(v[j]) }
	case *array.Null:
		return func(int32, int32) int { return 0 } // every row null: all equal
	default:
		s := StringsOf(col)
		byValue = func(i, j int32) int { return strings.Compare(s.Value(int(i)), s.Value(int(j))) }
	}
	_, isFloat := col.(*array.Float64)
	return func(i, j int32) int {
		vi, vj := IsValid(valid, off, int(i)), IsValid(valid, off, int(j))
		if !vi || !vj {
			return cmp.Compare(b2u(!vi), b2u(!vj))
		}
		if isFloat {
			// NaN after every number in either direction.
			ni, nj := isNaN(col, i), isNaN(col, j)
			if ni || nj {
				return cmp.Compare(b2u(ni), b2u(nj))
			}
		}
		r := byValue(i, j)
		if !asc {
			r = -r
		}
		return r
	}
}

func isNaN(col arrow.Array, i int32) bool {
	v := col.(*array.Float64).Value(int(i))
	return v != v
}

// SortedRange returns the rows [start, end) of col, sorted ascending with
// nulls last, whose values lie within [lo, hi]; a nil bound is open. The
// bounds must be of col's kind (int64, float64 or string). It searches
// rather than scans.
func SortedRange(col arrow.Array, lo, hi any) (start, end int) {
	col = Widen(col)
	defer col.Release()
	n := col.Len() - col.NullN()
	var at func(i int, v any) int // compares row i with v
	switch a := col.(type) {
	case *array.Int64:
		at = func(i int, v any) int { return cmp.Compare(float64(a.Value(i)), toFloat(v)) }
		if _, ok := lo.(int64); ok || lo == nil {
			if _, ok := hi.(int64); ok || hi == nil {
				at = func(i int, v any) int { return cmp.Compare(a.Value(i), v.(int64)) }
			}
		}
	case *array.Float64:
		at = func(i int, v any) int { return cmp.Compare(a.Value(i), toFloat(v)) }
	default:
		s := StringsOf(col)
		at = func(i int, v any) int { return strings.Compare(s.Value(i), v.(string)) }
	}
	start, end = 0, n
	if lo != nil {
		start = searchFirst(n, func(i int) bool { return at(i, lo) >= 0 })
	}
	if hi != nil {
		end = searchFirst(n, func(i int) bool { return at(i, hi) > 0 })
	}
	return start, max(start, end)
}

// searchFirst is the first i in [0, n) where ok holds, ok being false then
// true, or n.
func searchFirst(n int, ok func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ok(m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}
