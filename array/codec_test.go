package array

import (
	"reflect"
	"testing"

	"github.com/duskdata/dusk/internal/codec/codectest"
)

// TestCodecs round-trips chunks and partials through their codecs, as
// results that move between processes or spill do.
func TestCodecs(t *testing.T) {
	for _, v := range []any{
		&Dense{Shape: []int{2, 3}, DType: Float64, F: []float64{1, 2, 3, 4, 5, 6.5}},
		&Dense{Shape: []int{3}, DType: Int64, I: []int64{-1, 0, 1 << 62}},
		&Dense{Shape: []int{}, DType: Float64, F: []float64{7}},
		&Dense{Shape: []int{0, 4}, DType: Int64, I: []int64{}},
		&partial{Shape: []int{2}, N: 5, F: []float64{1, 2}, X: []int64{3, 4}},
		&partial{Shape: []int{}, N: 9, I: []int64{-3}},
		&partial{Shape: []int{1}, N: 2, F: []float64{0.5}, M: []float64{0.25}},
	} {
		got := codectest.RoundTrip(t, v)
		if !reflect.DeepEqual(got, v) {
			t.Errorf("%#v came back as %#v", v, got)
		}
	}
}

// TestRandomSumStreams checks that a full reduction of a random array runs
// one task per chunk that never stores the chunk, plus the tree above it (100 → 13 → 2 → 1).
func TestRandomSumStreams(t *testing.T) {
	a := Random(1, []int{100, 100}, []int{10, 10}).Sum()
	l := newLowering()
	l.keys(a)
	ops := map[string]int{}
	for _, task := range l.g.Tasks() {
		ops[task.Op]++
	}
	if ops[opSource] != 0 || ops[opReduceGen] != 100 || ops[opReduceCombine] != 15 || ops[opReduceFinal] != 1 {
		t.Errorf("tasks by operation: %v", ops)
	}
}
