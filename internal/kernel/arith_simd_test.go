package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestArithSIMDMatchesPortable checks the SIMD twin of float arithmetic
// against the portable loop, bit for bit, on lengths 0 to a few thousand,
// starts off any alignment, and values with NaNs, infinities, -0 and
// subnormals, for every operation and operand form. In a build without
// SIMD (GOEXPERIMENT=simd unset, or not amd64) it checks that the twin
// never runs; .ci/run runs it in both builds.
func TestArithSIMDMatchesPortable(t *testing.T) {
	wantRun := SIMD && cpu.X86.HasAVX2
	r := rand.New(rand.NewPCG(55, 3))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 5e-324, math.MaxFloat64, 1}
	draw := func() float64 {
		if r.IntN(6) == 0 {
			return specials[r.IntN(len(specials))]
		}
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10))
	}
	ran := 0
	for trial := range 300 {
		n, skew := r.IntN(3000), r.IntN(4) // skew: a start off the allocation's alignment
		if trial < 10 {
			n = trial
		}
		xb, yb := make([]float64, n+skew), make([]float64, n+skew)
		for i := range xb {
			xb[i], yb[i] = draw(), draw()
		}
		x, y, xs, ys := xb[skew:], yb[skew:], draw(), draw()
		for _, form := range [][2]bool{{true, true}, {true, false}, {false, true}} {
			fx, fy := x, y
			if !form[0] {
				fx = nil
			}
			if !form[1] {
				fy = nil
			}
			for op := Add; op <= Div; op++ {
				want, got := make([]float64, n), make([]float64, n)
				arith(fx, xs, fy, ys, op, want)
				if !arithFloatsSIMD(fx, xs, fy, ys, op, got) {
					if wantRun {
						t.Fatalf("the SIMD twin did not run on an AVX2 CPU in a SIMD build")
					}
					continue
				}
				if !wantRun {
					t.Fatalf("the SIMD twin ran where it should not")
				}
				ran++
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("trial %d %s form %v row %d: SIMD %v, portable %v", trial, op, form, i, got[i], want[i])
					}
				}
			}
		}
	}
	t.Logf("SIMD build %v, AVX2 %v: the twin ran %d times", SIMD, cpu.X86.HasAVX2, ran)
}

// TestCompareSIMDMatchesPortable checks the SIMD twins of a column's
// comparison with a scalar and with another column against the portable
// loops, as
// TestArithSIMDMatchesPortable does, for int64s (their extremes among
// them) and float64s (NaN, infinities, -0), every operation and scalar.
func TestCompareSIMDMatchesPortable(t *testing.T) {
	wantRun := SIMD && cpu.X86.HasAVX2
	r := rand.New(rand.NewPCG(55, 4))
	fspecial := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1, -1}
	ispecial := []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}
	ran := 0
	for trial := range 200 {
		n, skew := r.IntN(3000), r.IntN(4)
		if trial < 10 {
			n = trial
		}
		fb, ib := make([]float64, n+skew), make([]int64, n+skew)
		for i := range fb {
			fb[i], ib[i] = fspecial[r.IntN(len(fspecial))], ispecial[r.IntN(len(ispecial))]
			if r.IntN(2) == 0 {
				fb[i], ib[i] = float64(r.IntN(7)-3), int64(r.IntN(7)-3)
			}
		}
		fx, ix := fb[skew:], ib[skew:]
		fs, is := fspecial[r.IntN(len(fspecial))], ispecial[r.IntN(len(ispecial))]
		if r.IntN(2) == 0 {
			fs, is = float64(r.IntN(7)-3), int64(r.IntN(7)-3)
		}
		for op := Eq; op <= Ge; op++ {
			for _, ints := range []bool{false, true} {
				want, got := make([]uint8, n), make([]uint8, n)
				var did bool
				switch {
				case ints && trial%2 == 0:
					cmpScalar(ix, is, op, want)
					did = cmpScalarSIMD(ix, is, op, got)
				case ints: // against the column reversed
					iy := slices.Clone(ix)
					slices.Reverse(iy)
					cmpArrays(ix, iy, op, want)
					did = cmpArraysSIMD(ix, iy, op, got)
				case trial%2 == 0:
					cmpScalar(fx, fs, op, want)
					did = cmpScalarSIMD(fx, fs, op, got)
				default:
					fy := slices.Clone(fx)
					slices.Reverse(fy)
					cmpArrays(fx, fy, op, want)
					did = cmpArraysSIMD(fx, fy, op, got)
				}
				if did != wantRun {
					t.Fatalf("the SIMD twin ran: %v, want %v", did, wantRun)
				}
				if !did {
					continue
				}
				ran++
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("trial %d %s ints %v row %d (%v %v / %v %v): SIMD %d, portable %d", trial, op, ints, i, fx[i], fs, ix[i], is, got[i], want[i])
					}
				}
			}
		}
	}
	t.Logf("SIMD build %v, AVX2 %v: the twin ran %d times", SIMD, cpu.X86.HasAVX2, ran)
}
