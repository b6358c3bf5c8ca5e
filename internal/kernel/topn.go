package kernel

import (
	"fmt"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// TopN returns the first k rows of the order SortIndices(cols, ascending)
// gives, in that order, ties as the stable sort breaks them. It keeps a
// heap of k rows, so it costs about one comparison per row when k is small.
func TopN(cols []arrow.Array, ascending []bool, k int) []int32 {
	cols, release := widenAllBy(cols, widenSort)
	defer release()
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	k = min(k, n)
	if k <= 0 {
		return []int32{}
	}
	if k > n/8 {
		return SortIndices(cols, ascending)[:k]
	}
	cmps := make([]func(i, j int32) int, len(cols))
	for c, col := range cols {
		cmps[c] = comparer(col, ascending[c])
	}
	before := func(i, j int32) bool {
		for _, f := range cmps {
			if r := f(i, j); r != 0 {
				return r < 0
			}
		}
		return i < j
	}
	worse := quickWorse(cols[0], ascending[0])
	h := rowHeap{rows: make([]int32, 0, k), before: before}
	for r := int32(0); r < int32(n); r++ {
		if len(h.rows) < k {
			h.push(r)
			continue
		}
		// r comes after every row kept if its first key is worse than the
		// last kept row's, or equal on all keys (it is a later row).
		if (worse != nil && worse(r, h.rows[0])) || !before(r, h.rows[0]) {
			continue
		}
		h.replaceTop(r)
	}
	slices.SortFunc(h.rows, func(i, j int32) int {
		if before(i, j) {
			return -1
		}
		return 1
	})
	return h.rows
}

// quickWorse reports, without the general comparer, whether row i sorts
// strictly after row j on col alone; nil unless col is numeric with no
// nulls.
func quickWorse(col arrow.Array, asc bool) func(i, j int32) bool {
	if col.NullN() > 0 {
		return nil
	}
	switch a := col.(type) {
	case *array.Int64:
		v := a.Int64Values()
		if asc {
			return func(i, j int32) bool { return v[i] > v[j] }
		}
		return func(i, j int32) bool { return v[i] < v[j] }
	case *array.Float64:
		v := a.Float64Values()
		return func(i, j int32) bool {
			x, y := v[i], v[j]
			if x != x || y != y { // NaN after every number
				return x != x && y == y
			}
			return (asc && x > y) || (!asc && x < y)
		}
	}
	return nil
}

// rowHeap keeps rows with the one that comes last at the root.
type rowHeap struct {
	rows   []int32
	before func(i, j int32) bool
}

func (h *rowHeap) push(r int32) {
	h.rows = append(h.rows, r)
	for c := len(h.rows) - 1; c > 0; {
		p := (c - 1) / 2
		if !h.before(h.rows[p], h.rows[c]) {
			break
		}
		h.rows[p], h.rows[c] = h.rows[c], h.rows[p]
		c = p
	}
}

// replaceTop puts r in the root's place and restores the heap.
func (h *rowHeap) replaceTop(r int32) {
	rows := h.rows
	rows[0] = r
	for p := 0; ; {
		c := 2*p + 1
		if c >= len(rows) {
			return
		}
		if c+1 < len(rows) && h.before(rows[c], rows[c+1]) {
			c++
		}
		if !h.before(rows[p], rows[c]) {
			return
		}
		rows[p], rows[c] = rows[c], rows[p]
		p = c
	}
}

// GroupTopN returns, for each group in id order, the rows of its k largest
// (or, unless largest, smallest) values, best first; earlier rows win
// ties. Nulls and NaNs are skipped, as pandas' nlargest drops them. The
// column must be int64 or float64.
func GroupTopN(col arrow.Array, ids []int32, n int, k int, largest bool) []int32 {
	col = Widen(col)
	defer col.Release()
	switch a := col.(type) {
	case *array.Int64:
		return groupTopN(a.Int64Values(), col, ids, n, k, largest)
	case *array.Float64:
		return groupTopN(a.Float64Values(), col, ids, n, k, largest)
	}
	panic(fmt.Sprintf("kernel: GroupTopN of %s", col.DataType()))
}

func groupTopN[T number](x []T, col arrow.Array, ids []int32, n, k int, largest bool) []int32 {
	if k <= 0 {
		return []int32{}
	}
	// Each group's rows with a value, in row order: rows[start[g]:start[g+1]].
	valid, off := Validity(col)
	start := make([]int, n+1)
	for i, g := range ids {
		if g >= 0 && IsValid(valid, off, i) && x[i] == x[i] {
			start[g+1]++
		}
	}
	kept := 0
	for g := 1; g <= n; g++ {
		kept += min(start[g], k)
		start[g] += start[g-1]
	}
	rows := make([]int32, start[n])
	vals := make([]T, start[n]) // x of rows, laid out alike: compared without random reads
	pos := append([]int(nil), start[:n]...)
	for i, g := range ids {
		if g >= 0 && IsValid(valid, off, i) && x[i] == x[i] {
			rows[pos[g]], vals[pos[g]] = int32(i), x[i]
			pos[g]++
		}
	}
	if k <= smallTopN {
		return smallGroupTopN(rows, vals, start, k, kept, largest)
	}
	before := func(i, j int32) bool {
		if x[i] != x[j] {
			return (x[i] > x[j]) == largest
		}
		return i < j
	}
	order := func(i, j int32) int {
		if before(i, j) {
			return -1
		}
		return 1
	}
	out := make([]int32, 0, kept)
	h := rowHeap{rows: make([]int32, 0, k), before: before}
	for g := 0; g < n; g++ {
		seg := rows[start[g]:start[g+1]]
		if len(seg) <= k {
			slices.SortFunc(seg, order)
			out = append(out, seg...)
			continue
		}
		h.rows = h.rows[:0]
		for _, r := range seg {
			if len(h.rows) < k {
				h.push(r)
			} else if before(r, h.rows[0]) {
				h.replaceTop(r)
			}
		}
		slices.SortFunc(h.rows, order)
		out = append(out, h.rows...)
	}
	return out
}

// smallTopN is the largest k that smallGroupTopN keeps by insertion into a
// sorted array, cheaper than a heap for so few.
const smallTopN = 8

// smallGroupTopN is groupTopN's selection for k <= smallTopN: per group,
// the k best rows kept sorted by insertion, ties to the earlier row (a
// group's rows come in row order, so a later row never displaces an equal
// value).
func smallGroupTopN[T number](rows []int32, vals []T, start []int, k, kept int, largest bool) []int32 {
	better := func(v, w T) bool { return v != w && (v > w) == largest }
	out := make([]int32, 0, kept)
	topR, topV := make([]int32, 0, k), make([]T, 0, k)
	for g := 0; g+1 < len(start); g++ {
		topR, topV = topR[:0], topV[:0]
		for j := start[g]; j < start[g+1]; j++ {
			v := vals[j]
			if len(topV) == k && !better(v, topV[k-1]) {
				continue
			}
			p := len(topV)
			for p > 0 && better(v, topV[p-1]) {
				p--
			}
			if len(topV) < k {
				topR, topV = append(topR, 0), append(topV, 0)
			}
			copy(topR[p+1:], topR[p:len(topR)-1])
			copy(topV[p+1:], topV[p:len(topV)-1])
			topR[p], topV[p] = rows[j], v
		}
		out = append(out, topR...)
	}
	return out
}
