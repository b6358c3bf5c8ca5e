package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// refCompareRows orders rows i and j of c: nulls last and NaNs after every
// number whatever the direction, then by value, reversed when descending.
func refCompareRows(c col, asc bool, i, j int) int {
	vi, vj := c.valid[i], c.valid[j]
	switch {
	case !vi && !vj:
		return 0
	case !vi:
		return 1
	case !vj:
		return -1
	}
	var r int
	switch c.kind {
	case KindInt:
		r = sign(c.ints[i] < c.ints[j], c.ints[i] > c.ints[j])
	case KindFloat:
		x, y := c.flts[i], c.flts[j]
		switch {
		case x != x && y != y:
			return 0
		case x != x:
			return 1
		case y != y:
			return -1
		}
		r = sign(x < y, x > y)
	case KindString:
		r = strings.Compare(c.strs[i], c.strs[j])
	case KindBool:
		r = sign(!c.bools[i] && c.bools[j], c.bools[i] && !c.bools[j])
	}
	if !asc {
		r = -r
	}
	return r
}

func sign(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

// refSortIndices sorts row numbers stably with refCompareRows.
func refSortIndices(cols []col, asc []bool, n int) []int {
	idx := seq(n)
	sort.SliceStable(idx, func(a, b int) bool {
		for c := range cols {
			if r := refCompareRows(cols[c], asc[c], idx[a], idx[b]); r != 0 {
				return r < 0
			}
		}
		return false
	})
	return idx
}

func checkOrder(t *testing.T, got []int32, want []int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d indices, want %d", len(got), len(want))
	}
	for i := range want {
		if int(got[i]) != want[i] {
			t.Fatalf("position %d: row %d, want row %d\ngot  %v\nwant %v", i, got[i], want[i], head(got), head(want))
		}
	}
}

func head[T any](s []T) string {
	if len(s) > 20 {
		return fmt.Sprint(s[:20]) + "..."
	}
	return fmt.Sprint(s)
}

func TestSortIndicesOneColumn(t *testing.T) {
	for _, ct := range allColTypes {
		for _, asc := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/asc=%v", ct, asc), func(t *testing.T) {
				forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
					c := genCol(rng, ct, s)
					defer release(c)
					got := SortIndices([]arrow.Array{c.arr}, []bool{asc})
					checkOrder(t, got, refSortIndices([]col{c}, []bool{asc}, s.n))
				})
			})
		}
	}
}

func TestSortIndicesSeveralColumns(t *testing.T) {
	for try := 0; try < 12; try++ {
		rng := rand.New(rand.NewSource(int64(try)))
		k := 2 + rng.Intn(3)
		cts := make([]colType, k)
		asc := make([]bool, k)
		for i := range cts {
			cts[i], asc[i] = allColTypes[rng.Intn(len(allColTypes))], rng.Intn(2) == 0
		}
		t.Run(fmt.Sprintf("%s/asc=%v", names(cts), asc), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				cols := make([]col, k)
				arrs := make([]arrow.Array, k)
				for i, ct := range cts {
					cs := s
					if cs.off > 0 {
						cs.off += i
					}
					// The value pools are small: ties are common and later columns decide.
					cols[i] = genCol(rng, ct, cs)
					arrs[i] = cols[i].arr
				}
				defer release(cols...)
				checkOrder(t, SortIndices(arrs, asc), refSortIndices(cols, asc, s.n))
			})
		})
	}
}

func TestSortIndicesExamples(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		cols []arrow.Array
		asc  []bool
		want []int32
	}{
		{"ints asc, nulls last", []arrow.Array{ints(3, nil, 1, 2)}, []bool{true}, []int32{2, 3, 0, 1}},
		{"ints desc, nulls last", []arrow.Array{ints(3, nil, 1, 2)}, []bool{false}, []int32{0, 3, 2, 1}},
		{"NaN after numbers asc", []arrow.Array{floats(nan, 2.0, nil, -1.0)}, []bool{true}, []int32{3, 1, 0, 2}},
		{"NaN after numbers desc", []arrow.Array{floats(nan, 2.0, nil, -1.0)}, []bool{false}, []int32{1, 3, 0, 2}},
		{"stable", []arrow.Array{ints(1, 0, 1, 0, 1)}, []bool{true}, []int32{1, 3, 0, 2, 4}},
		{"stable desc", []arrow.Array{ints(1, 0, 1, 0, 1)}, []bool{false}, []int32{0, 2, 4, 1, 3}},
		{"-0 ties 0", []arrow.Array{floats(0.0, math.Copysign(0, -1), 0.0)}, []bool{true}, []int32{0, 1, 2}},
		{"strings by bytes", []arrow.Array{strs("b", "B", "", "ab")}, []bool{true}, []int32{2, 1, 3, 0}},
		{"dict by string not index", []arrow.Array{dictStrs([]string{"z", "a", "m"}, "z", "a", "m", nil)}, []bool{true}, []int32{1, 2, 0, 3}},
		{"bools", []arrow.Array{bools(true, nil, false)}, []bool{false}, []int32{0, 2, 1}},
		{"second column decides", []arrow.Array{strs("x", "y", "x", "y"), ints(2, 1, 1, nil)}, []bool{true, false}, []int32{0, 2, 1, 3}},
		{"no rows", []arrow.Array{ints()}, []bool{true}, []int32{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer failOnPanic(t)
			got := SortIndices(tt.cols, tt.asc)
			want := make([]int, len(tt.want))
			for i, w := range tt.want {
				want[i] = int(w)
			}
			checkOrder(t, got, want)
		})
	}
}
