//go:build !goexperiment.simd || !amd64

package kernel

// SIMD says this build has no SIMD kernels: they need GOEXPERIMENT=simd
// on amd64.
const SIMD = false

// arithFloatsSIMD has no SIMD twin in this build: it never runs.
func arithFloatsSIMD(x []float64, xs float64, y []float64, ys float64, op ArithOp, out []float64) bool {
	return false
}
