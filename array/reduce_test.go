package array_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/duskdata/dusk/array"
)

// refReduce reduces data of shape (rows, cols) over axis (-1: all) as NumPy.
func refReduce(kind string, data []float64, shape []int, axis int) ([]int, []float64) {
	var groups [][]float64 // each output element's inputs, in index order
	var outShape []int
	switch len(shape) {
	case 1:
		groups = [][]float64{data}
		if axis < 0 {
			break
		}
	case 2:
		r, c := shape[0], shape[1]
		switch axis {
		case -1:
			groups = [][]float64{data}
		case 0:
			outShape = []int{c}
			for j := 0; j < c; j++ {
				var g []float64
				for i := 0; i < r; i++ {
					g = append(g, data[i*c+j])
				}
				groups = append(groups, g)
			}
		case 1:
			outShape = []int{r}
			for i := 0; i < r; i++ {
				groups = append(groups, data[i*c:(i+1)*c])
			}
		}
	}
	out := make([]float64, len(groups))
	for o, g := range groups {
		var s float64
		for _, v := range g {
			s += v
		}
		mean := s / float64(len(g))
		var m2 float64
		for _, v := range g {
			m2 += (v - mean) * (v - mean)
		}
		bi := 0
		for i, v := range g {
			if kind == "min" || kind == "argmin" {
				if v < g[bi] {
					bi = i
				}
			} else if v > g[bi] {
				bi = i
			}
		}
		switch kind {
		case "sum":
			out[o] = s
		case "mean":
			out[o] = mean
		case "var":
			out[o] = m2 / float64(len(g))
		case "std":
			out[o] = math.Sqrt(m2 / float64(len(g)))
		case "min", "max":
			out[o] = g[bi]
		case "argmin", "argmax":
			out[o] = float64(bi)
		}
	}
	return outShape, out
}

func reduceBy(a *array.Array, kind string, axis []int) *array.Array {
	switch kind {
	case "sum":
		return a.Sum(axis...)
	case "mean":
		return a.Mean(axis...)
	case "var":
		return a.Var(axis...)
	case "std":
		return a.Std(axis...)
	case "min":
		return a.Min(axis...)
	case "max":
		return a.Max(axis...)
	case "argmin":
		return a.ArgMin(axis...)
	case "argmax":
		return a.ArgMax(axis...)
	}
	panic(kind)
}

var reductions = []string{"sum", "mean", "var", "std", "min", "max", "argmin", "argmax"}

func TestReductions(t *testing.T) {
	ctx := newClient(t)
	shape := []int{13, 7}
	fdata := randFloats(1, 91)
	idata := randInts(2, 91)
	iasf := make([]float64, len(idata))
	for i, v := range idata {
		iasf[i] = float64(v)
	}
	for _, ch := range chunkings2 {
		for _, dt := range []string{"float", "int"} {
			a, ref := array.FromSlice(fdata, shape, ch), fdata
			if dt == "int" {
				a, ref = array.FromSlice(idata, shape, ch), iasf
			}
			for _, kind := range reductions {
				for _, axis := range [][]int{nil, {0}, {1}, {-1}} {
					ax := -1
					if axis != nil {
						ax = (axis[0] + 2) % 2
					}
					what := fmt.Sprintf("%s %s axis %v chunks %v", dt, kind, axis, ch)
					d := compute(t, ctx, reduceBy(a, kind, axis))
					ws, want := refReduce(kind, ref, shape, ax)
					checkDense(t, what, d, ws, want)
					if dt == "int" && (kind == "sum" || kind == "min" || kind == "max") && d.DType != array.Int64 {
						t.Errorf("%s: dtype %s, want int64", what, d.DType)
					}
				}
			}
		}
	}
}

func TestReductions1D(t *testing.T) {
	ctx := newClient(t)
	data := randFloats(3, 23)
	for _, ch := range chunkings1 {
		a := array.FromSlice(data, []int{23}, ch)
		for _, kind := range reductions {
			d := compute(t, ctx, reduceBy(a, kind, []int{0}))
			ws, want := refReduce(kind, data, []int{23}, -1)
			checkDense(t, fmt.Sprintf("%s chunks %v", kind, ch), d, ws, want)
		}
	}
}

// TestRandomReductions checks the streamed reductions of a random array
// against the same array computed whole.
func TestRandomReductions(t *testing.T) {
	ctx := newClient(t)
	shape := []int{37, 29}
	whole := compute(t, ctx, array.Random(7, shape, nil))
	for _, v := range whole.F {
		if v < 0 || v >= 1 {
			t.Fatalf("random value %v outside [0, 1)", v)
		}
	}
	for _, ch := range [][]int{{37, 29}, {10, 10}, {36, 5}, {1, 29}} {
		r := array.Random(7, shape, ch)
		d := compute(t, ctx, r)
		checkDense(t, fmt.Sprintf("random chunks %v", ch), d, shape, whole.F)
		for _, kind := range reductions {
			d := compute(t, ctx, reduceBy(r, kind, nil))
			ws, want := refReduce(kind, whole.F, shape, -1)
			checkDense(t, fmt.Sprintf("random %s chunks %v", kind, ch), d, ws, want)
		}
	}
	other := compute(t, ctx, array.Random(8, shape, nil))
	if other.F[0] == whole.F[0] && other.F[1] == whole.F[1] {
		t.Errorf("seeds 7 and 8 give the same values")
	}
}

func TestManyChunksTree(t *testing.T) {
	ctx := newClient(t)
	n := 1000
	d := compute(t, ctx, array.Arange(n, 7).Sum())
	if got := d.I[0]; got != int64(n*(n-1)/2) {
		t.Fatalf("sum of arange(%d) = %d, want %d", n, got, n*(n-1)/2)
	}
}

func TestEmptyReductionFails(t *testing.T) {
	if err := array.Zeros(array.Float64, []int{0}, nil).Max().Err(); err == nil {
		t.Fatal("max of an empty array: no error")
	}
	if err := array.Zeros(array.Float64, []int{3}, nil).Sum(1).Err(); err == nil {
		t.Fatal("sum over axis 1 of a 1-d array: no error")
	}
}
