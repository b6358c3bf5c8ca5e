package array_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/duskdata/dusk/array"
)

// A slice of a generated array (Random, Arange, Full) is generated: its
// elements equal the same slice of the whole array made in memory, its
// graph has no task that cuts a chunk, and its reductions (streamed, a
// block at a time) equal a plain loop over those elements, argmin counting
// from the slice's own origin.
func TestSliceOfGenerated(t *testing.T) {
	ctx := newClient(t)
	const rows, cols = 37, 23
	gens := []struct {
		name string
		a    *array.Array
	}{
		{"random", array.Random(7, []int{rows, cols}, []int{10, 8})},
		{"ones", array.Ones(array.Float64, []int{rows, cols}, []int{10, 8})},
		{"full int", array.Full(array.Int64, 3, []int{rows, cols}, []int{10, 8})},
	}
	boxes := [][4]int{{0, rows, 0, cols}, {5, 30, 3, 20}, {11, 12, 0, cols}, {-7, rows, -5, cols}}
	for _, g := range gens {
		whole := compute(t, ctx, g.a).Float64s()
		for _, b := range boxes {
			s := g.a.Slice([]int{b[0], b[2]}, []int{b[1], b[3]})
			lo0, hi0, lo1, hi1 := clipped(b[0], rows), clipped(b[1], rows), clipped(b[2], cols), clipped(b[3], cols)
			var want []float64
			for i := lo0; i < hi0; i++ {
				want = append(want, whole[i*cols+lo1:i*cols+hi1]...)
			}
			what := fmt.Sprintf("%s[%d:%d, %d:%d]", g.name, b[0], b[1], b[2], b[3])
			checkDense(t, what, compute(t, ctx, s), []int{hi0 - lo0, hi1 - lo1}, want)
			if ops := array.Ops(s); slices.ContainsFunc(ops, func(op string) bool { return op != "array-source" }) {
				t.Errorf("%s: made by %v; want its chunks generated alone", what, ops)
			}
			sum, mn, arg := 0.0, want[0], 0
			for i, v := range want {
				sum += v
				if v < mn {
					mn, arg = v, i
				}
			}
			for _, r := range []struct {
				name string
				a    *array.Array
				want float64
			}{{"sum", s.Sum(), sum}, {"min", s.Min(), mn}, {"argmin", s.ArgMin(), float64(arg)}, {"mean", s.Mean(), sum / float64(len(want))}} {
				if got := compute(t, ctx, r.a).Float(0); !close(got, r.want) {
					t.Errorf("%s.%s = %v; want %v", what, r.name, got, r.want)
				}
			}
			// A slice of the slice is the generator's too.
			inner := s.Slice([]int{1}, []int{2})
			if got := compute(t, ctx, inner).Float64s(); hi0-lo0 > 1 && got[0] != want[hi1-lo1] {
				t.Errorf("%s[1:2] starts with %v; want %v", what, got[0], want[hi1-lo1])
			}
		}
	}
	// Arange, one axis.
	a := array.Arange(100, 30).Slice([]int{17}, []int{64})
	if got := compute(t, ctx, a.Sum()).Float(0); got != float64((17+63)*47/2) {
		t.Errorf("arange(100)[17:64].sum = %v", got)
	}
	if got := compute(t, ctx, a.ArgMax()).Float(0); got != 46 {
		t.Errorf("arange(100)[17:64].argmax = %v; want 46", got)
	}
}

func clipped(i, n int) int {
	if i < 0 {
		i += n
	}
	return min(max(i, 0), n)
}
