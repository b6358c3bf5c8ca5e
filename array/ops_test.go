package array_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/duskdata/dusk/array"
)

func TestCreate(t *testing.T) {
	ctx := newClient(t)
	for _, ch := range chunkings1 {
		checkDense(t, fmt.Sprint("zeros ", ch), compute(t, ctx, array.Zeros(array.Float64, []int{23}, ch)), []int{23}, make([]float64, 23))
		ones := make([]float64, 23)
		ar := make([]float64, 23)
		for i := range ones {
			ones[i], ar[i] = 1, float64(i)
		}
		d := compute(t, ctx, array.Ones(array.Int64, []int{23}, ch))
		checkDense(t, fmt.Sprint("ones ", ch), d, []int{23}, ones)
		if d.DType != array.Int64 {
			t.Errorf("ones int64: dtype %s", d.DType)
		}
		checkDense(t, fmt.Sprint("arange ", ch), compute(t, ctx, array.Arange(23, ch[0])), []int{23}, ar)
	}
	data := randFloats(4, 91)
	for _, ch := range chunkings2 {
		a := array.FromSlice(data, []int{13, 7}, ch)
		checkDense(t, fmt.Sprint("from slice ", ch), compute(t, ctx, a), []int{13, 7}, data)
	}
	if err := array.FromSlice(data, []int{5, 5}, nil).Err(); err == nil {
		t.Error("FromSlice with the wrong shape: no error")
	}
}

func TestElementwise(t *testing.T) {
	ctx := newClient(t)
	shape := []int{13, 7}
	x, y := randFloats(5, 91), randFloats(6, 91)
	xi, yi := randInts(7, 91), randInts(8, 91)
	bin := map[string]func(a, b *array.Array) *array.Array{
		"add": (*array.Array).Add, "sub": (*array.Array).Sub, "mul": (*array.Array).Mul,
		"div": (*array.Array).Div, "max": (*array.Array).Maximum, "min": (*array.Array).Minimum,
	}
	ref := map[string]func(a, b float64) float64{
		"add": func(a, b float64) float64 { return a + b }, "sub": func(a, b float64) float64 { return a - b },
		"mul": func(a, b float64) float64 { return a * b }, "div": func(a, b float64) float64 { return a / b },
		"max": math.Max, "min": math.Min,
	}
	for i, ch := range chunkings2 {
		other := chunkings2[(i+1)%len(chunkings2)] // different chunks: b is rechunked to a's
		for name, f := range bin {
			want := make([]float64, 91)
			for j := range want {
				want[j] = ref[name](x[j], y[j])
			}
			got := compute(t, ctx, f(array.FromSlice(x, shape, ch), array.FromSlice(y, shape, other)))
			checkDense(t, fmt.Sprintf("%s chunks %v/%v", name, ch, other), got, shape, want)

			for j := range want {
				want[j] = ref[name](x[j], 2.5)
			}
			got = compute(t, ctx, f(array.FromSlice(x, shape, ch), array.Scalar(2.5)))
			checkDense(t, fmt.Sprintf("%s scalar chunks %v", name, ch), got, shape, want)
			for j := range want {
				want[j] = ref[name](2.5, x[j])
			}
			got = compute(t, ctx, f(array.Scalar(2.5), array.FromSlice(x, shape, ch)))
			checkDense(t, fmt.Sprintf("scalar %s chunks %v", name, ch), got, shape, want)

			if name == "div" {
				continue
			}
			for j := range want {
				want[j] = ref[name](float64(xi[j]), float64(yi[j]))
			}
			got = compute(t, ctx, f(array.FromSlice(xi, shape, ch), array.FromSlice(yi, shape, other)))
			checkDense(t, fmt.Sprintf("int %s chunks %v", name, ch), got, shape, want)
			if got.DType != array.Int64 {
				t.Errorf("int %s: dtype %s", name, got.DType)
			}
		}
	}
}

func TestUnary(t *testing.T) {
	ctx := newClient(t)
	x := randFloats(9, 23)
	un := map[string]func(*array.Array) *array.Array{
		"neg": (*array.Array).Neg, "abs": (*array.Array).Abs, "sqrt": (*array.Array).Sqrt,
		"exp": (*array.Array).Exp, "log": (*array.Array).Log, "sin": (*array.Array).Sin,
		"cos": (*array.Array).Cos, "tanh": (*array.Array).Tanh, "floor": (*array.Array).Floor,
	}
	ref := map[string]func(float64) float64{
		"neg": func(v float64) float64 { return -v }, "abs": math.Abs, "sqrt": math.Sqrt, "exp": math.Exp,
		"log": math.Log, "sin": math.Sin, "cos": math.Cos, "tanh": math.Tanh, "floor": math.Floor,
	}
	for _, ch := range chunkings1 {
		for name, f := range un {
			want := make([]float64, len(x))
			for i, v := range x {
				want[i] = ref[name](v)
			}
			checkDense(t, fmt.Sprintf("%s chunks %v", name, ch), compute(t, ctx, f(array.FromSlice(x, []int{23}, ch))), []int{23}, want)
		}
	}
}

// TestLazyScalar centres an array on its own mean: a 0-d result feeds every
// chunk task without being computed first.
func TestLazyScalar(t *testing.T) {
	ctx := newClient(t)
	x := randFloats(10, 91)
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= 91
	for _, ch := range chunkings2 {
		a := array.FromSlice(x, []int{13, 7}, ch)
		want := make([]float64, 91)
		for i, v := range x {
			want[i] = v - mean
		}
		checkDense(t, fmt.Sprint("centred ", ch), compute(t, ctx, a.Sub(a.Mean())), []int{13, 7}, want)
	}
}

func TestRechunkSliceTranspose(t *testing.T) {
	ctx := newClient(t)
	shape := []int{13, 7}
	x := randFloats(11, 91)
	xi := randInts(12, 91)
	for _, ch := range chunkings2 {
		a := array.FromSlice(x, shape, ch)
		for _, to := range chunkings2 {
			r := a.Rechunk(to)
			checkDense(t, fmt.Sprintf("rechunk %v to %v", ch, to), compute(t, ctx, r), shape, x)
		}
		tr := make([]float64, 91)
		for i := 0; i < 13; i++ {
			for j := 0; j < 7; j++ {
				tr[j*13+i] = x[i*7+j]
			}
		}
		checkDense(t, fmt.Sprint("transpose ", ch), compute(t, ctx, a.Transpose()), []int{7, 13}, tr)
		checkDense(t, fmt.Sprint("int transpose ", ch), compute(t, ctx, array.FromSlice(xi, shape, ch).Transpose(1, 0).Transpose()), shape, asFloats(xi))
		for _, s := range [][4]int{{0, 13, 0, 7}, {2, 11, 1, 6}, {5, 6, 3, 4}, {-4, 100, -3, -1}, {4, 4, 0, 7}, {12, 13, 0, 1}} {
			lo0, hi0, lo1, hi1 := clip(s[0], 13), clip(s[1], 13), clip(s[2], 7), clip(s[3], 7)
			var want []float64
			for i := lo0; i < hi0; i++ {
				for j := lo1; j < hi1; j++ {
					want = append(want, x[i*7+j])
				}
			}
			got := compute(t, ctx, a.Slice([]int{s[0], s[2]}, []int{s[1], s[3]}))
			checkDense(t, fmt.Sprintf("slice %v chunks %v", s, ch), got, []int{hi0 - lo0, hi1 - lo1}, want)
		}
	}
	x3 := randFloats(13, 60)
	a3 := array.FromSlice(x3, []int{3, 4, 5}, []int{2, 3, 2})
	want := make([]float64, 60)
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			for k := 0; k < 5; k++ {
				want[(k*3+i)*4+j] = x3[(i*4+j)*5+k] // axes (2, 0, 1)
			}
		}
	}
	checkDense(t, "3-d transpose", compute(t, ctx, a3.Transpose(2, 0, 1)), []int{5, 3, 4}, want)
	checkDense(t, "3-d sum axis 1 after rechunk", compute(t, ctx, a3.Rechunk([]int{1, 4, 5}).Sum(1)), []int{3, 5}, sum3(x3))
}

func sum3(x []float64) []float64 {
	out := make([]float64, 15)
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			for k := 0; k < 5; k++ {
				out[i*5+k] += x[(i*4+j)*5+k]
			}
		}
	}
	return out
}

func clip(i, n int) int {
	if i < 0 {
		i += n
	}
	return min(max(i, 0), n)
}

func asFloats(x []int64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

func TestMatMul(t *testing.T) {
	ctx := newClient(t)
	m, k, n := 9, 13, 7
	x, y := randFloats(14, m*k), randFloats(15, k*n)
	want := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for l := 0; l < k; l++ {
				want[i*n+j] += x[i*k+l] * y[l*n+j]
			}
		}
	}
	for _, cx := range [][]int{{9, 13}, {4, 5}, {2, 13}, {1, 1}} {
		for _, cy := range [][]int{{13, 7}, {5, 3}, {6, 2}} {
			got := compute(t, ctx, array.FromSlice(x, []int{m, k}, cx).MatMul(array.FromSlice(y, []int{k, n}, cy)))
			checkDense(t, fmt.Sprintf("matmul chunks %v × %v", cx, cy), got, []int{m, n}, want)
		}
	}
	xi, yi := randInts(16, m*k), randInts(17, k*n)
	wi := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for l := 0; l < k; l++ {
				wi[i*n+j] += float64(xi[i*k+l] * yi[l*n+j])
			}
		}
	}
	got := compute(t, ctx, array.FromSlice(xi, []int{m, k}, []int{4, 4}).MatMul(array.FromSlice(yi, []int{k, n}, []int{3, 3})))
	checkDense(t, "int matmul", got, []int{m, n}, wi)
	if got.DType != array.Int64 {
		t.Errorf("int matmul dtype %s", got.DType)
	}
	if err := array.Zeros(array.Float64, []int{2, 3}, nil).MatMul(array.Zeros(array.Float64, []int{2, 3}, nil)).Err(); err == nil {
		t.Error("matmul of misaligned shapes: no error")
	}
}

func TestPersist(t *testing.T) {
	ctx := newClient(t)
	x := randFloats(18, 91)
	a, err := array.FromSlice(x, []int{13, 7}, []int{5, 3}).MulScalar(2).Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	want := make([]float64, 91)
	var s float64
	for i, v := range x {
		want[i] = 2 * v
		s += 2 * v
	}
	checkDense(t, "persisted", compute(t, ctx, a), []int{13, 7}, want)
	checkDense(t, "sum of persisted", compute(t, ctx, a.Sum()), []int{}, []float64{s})
}
