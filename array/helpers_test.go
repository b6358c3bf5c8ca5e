package array_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/duskdata/dusk/array"
	"github.com/duskdata/dusk/collections/testcluster"
)

// newClient starts a local cluster of two workers for t (testcluster.Local).
func newClient(t testing.TB) context.Context { return testcluster.Local(t) }

// chunkings of a 2-d shape (13, 7): whole, even, uneven last chunks, ones.
var chunkings2 = [][]int{{13, 7}, {5, 3}, {4, 7}, {13, 2}, {1, 1}, {6, 4}}

// chunkings1 of a 1-d length 23.
var chunkings1 = [][]int{{23}, {5}, {7}, {1}, {22}}

func randFloats(seed uint64, n int) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = r.NormFloat64() * 10
	}
	return out
}

func randInts(seed uint64, n int) []int64 {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]int64, n)
	for i := range out {
		out[i] = r.Int64N(41) - 20 // many ties, for arg reductions
	}
	return out
}

func compute(t *testing.T, ctx context.Context, a *array.Array) *array.Dense {
	t.Helper()
	d, err := a.Compute(ctx)
	if err != nil {
		t.Fatalf("compute %v: %v", a, err)
	}
	return d
}

// checkDense compares d with the reference shape and values.
func checkDense(t *testing.T, what string, d *array.Dense, shape []int, want []float64) {
	t.Helper()
	if len(d.Shape) != len(shape) {
		t.Fatalf("%s: shape %v, want %v", what, d.Shape, shape)
	}
	for i := range shape {
		if d.Shape[i] != shape[i] {
			t.Fatalf("%s: shape %v, want %v", what, d.Shape, shape)
		}
	}
	got := d.Float64s()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !close(got[i], want[i]) {
			t.Fatalf("%s: element %d = %v, want %v", what, i, got[i], want[i])
		}
	}
}

func close(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
