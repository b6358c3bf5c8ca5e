//go:build !goexperiment.simd || !amd64

package kernel

// cmpScalarSIMD has no SIMD twin in this build: it never runs.
func cmpScalarSIMD[T int32 | int64 | float64](x []T, s T, op CmpOp, out []uint8) bool { return false }

// cmpArraysSIMD has no SIMD twin in this build: it never runs.
func cmpArraysSIMD[T int32 | int64 | float64](x, y []T, op CmpOp, out []uint8) bool { return false }
