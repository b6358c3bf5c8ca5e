package array_test

import (
	"slices"
	"testing"

	"github.com/duskdata/dusk/array"
	"github.com/duskdata/dusk/collections/testcluster"
)

// TestArrayGPUPath runs sums, means and elementwise arithmetic through the
// GPU path, with gpu.Reference standing in for the device, and checks them
// against sequential sums; operations without a kernel stay on the CPU.
func TestArrayGPUPath(t *testing.T) {
	ctx, calls := testcluster.LocalGPU(t)
	fs, is := randFloats(5, 1000), randInts(6, 1000)
	var fsum, fdiv float64
	var isum, isq int64
	for i := range fs {
		fsum += fs[i]
		fdiv += fs[i] / (fs[i] + 1000)
		isum += is[i]
		isq += is[i] * is[i]
	}
	fa := array.FromSlice(fs, []int{1000}, []int{300})
	ia := array.FromSlice(is, []int{1000}, []int{300})
	for _, tc := range []struct {
		name string
		a    *array.Array
		want float64
		gpu  bool // the kernels run; else the CPU's
	}{
		{"float sum", fa.Sum(), fsum, true},
		{"float mean", fa.Mean(), fsum / 1000, true},
		{"int sum", ia.Sum(), float64(isum), true},
		{"int mean", ia.Mean(), float64(isum) / 1000, false},
		{"float max", fa.Max(), slices.Max(fs), false},
		// Elementwise: fa·2 + fa - 1 sums to 3·fsum - n; ia·ia - ia, to
		// the sum of squares minus isum.
		{"float elementwise", fa.MulScalar(2).Add(fa).SubScalar(1).Sum(), 3*fsum - 1000, true},
		{"int elementwise", ia.Mul(ia).Sub(ia).Sum(), float64(isq - isum), true},
		{"float division", fa.Div(fa.AddScalar(1000)).Sum(), fdiv, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := calls.Load()
			d := compute(t, ctx, tc.a)
			checkDense(t, tc.name, d, []int{}, []float64{tc.want})
			if ran := calls.Load() > before; ran != tc.gpu {
				t.Errorf("kernels ran: %v, want %v", ran, tc.gpu)
			}
		})
	}
}
