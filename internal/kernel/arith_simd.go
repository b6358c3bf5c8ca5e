//go:build goexperiment.simd && amd64

package kernel

import "simd/archsimd"

// SIMD says this build has the AVX2 kernels (GOEXPERIMENT=simd); the CPU
// must have AVX2 too for them to run (each checks).
const SIMD = true

// arithFloatsSIMD is arith of float64s four at a time in AVX2 registers,
// where the CPU has AVX2: x op y with a nil slice standing for its scalar.
// Each lane is the IEEE operation the scalar loop does, so the answers are
// the same bit for bit (TestArithSIMDMatchesPortable); one loop for each
// operation and operand form, so that nothing is decided in the loop. It
// reports whether it ran.
func arithFloatsSIMD(x []float64, xs float64, y []float64, ys float64, op ArithOp, out []float64) bool {
	if !archsimd.X86.AVX2() || (x == nil && y == nil) {
		return false
	}
	n := len(out)
	if x != nil {
		x = x[:n]
	}
	if y != nil {
		y = y[:n]
	}
	bx, by := archsimd.BroadcastFloat64x4(xs), archsimd.BroadcastFloat64x4(ys)
	i := 0
	switch {
	case x != nil && y != nil:
		switch op {
		case Add:
			for ; i+4 <= n; i += 4 {
				archsimd.LoadFloat64x4Slice(x[i : i+4]).Add(archsimd.LoadFloat64x4Slice(y[i : i+4])).StoreSlice(out[i : i+4])
			}
		case Sub:
			for ; i+4 <= n; i += 4 {
				archsimd.LoadFloat64x4Slice(x[i : i+4]).Sub(archsimd.LoadFloat64x4Slice(y[i : i+4])).StoreSlice(out[i : i+4])
			}
		case Mul:
			for ; i+4 <= n; i += 4 {
				archsimd.LoadFloat64x4Slice(x[i : i+4]).Mul(archsimd.LoadFloat64x4Slice(y[i : i+4])).StoreSlice(out[i : i+4])
			}
		case Div:
			for ; i+4 <= n; i += 4 {
				archsimd.LoadFloat64x4Slice(x[i : i+4]).Div(archsimd.LoadFloat64x4Slice(y[i : i+4])).StoreSlice(out[i : i+4])
			}
		}
	case x != nil:
		switch op {
		case Add:
			for ; i+4 <= n; i += 4 {
				archsimd.LoadFloat64x4Slice(x[i : i+4]).Add(by).StoreSlice(out[i : i+4])
			}
		case Sub:
			for ; i+4 <= n; i += 4 {
				archsimd.LoadFloat64x4Slice(x[i : i+4]).Sub(by).StoreSlice(out[i : i+4])
			}
		case Mul:
			for ; i+4 <= n; i += 4 {
				archsimd.LoadFloat64x4Slice(x[i : i+4]).Mul(by).StoreSlice(out[i : i+4])
			}
		case Div:
			for ; i+4 <= n; i += 4 {
				archsimd.LoadFloat64x4Slice(x[i : i+4]).Div(by).StoreSlice(out[i : i+4])
			}
		}
	default:
		switch op {
		case Add:
			for ; i+4 <= n; i += 4 {
				bx.Add(archsimd.LoadFloat64x4Slice(y[i : i+4])).StoreSlice(out[i : i+4])
			}
		case Sub:
			for ; i+4 <= n; i += 4 {
				bx.Sub(archsimd.LoadFloat64x4Slice(y[i : i+4])).StoreSlice(out[i : i+4])
			}
		case Mul:
			for ; i+4 <= n; i += 4 {
				bx.Mul(archsimd.LoadFloat64x4Slice(y[i : i+4])).StoreSlice(out[i : i+4])
			}
		case Div:
			for ; i+4 <= n; i += 4 {
				bx.Div(archsimd.LoadFloat64x4Slice(y[i : i+4])).StoreSlice(out[i : i+4])
			}
		}
	}
	if i < n { // the tail, by the portable loop
		var tx, ty []float64
		if x != nil {
			tx = x[i:]
		}
		if y != nil {
			ty = y[i:]
		}
		arith(tx, xs, ty, ys, op, out[i:])
	}
	return true
}
