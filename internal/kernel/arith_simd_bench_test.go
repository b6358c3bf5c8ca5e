package kernel

import (
	"fmt"
	"testing"
)

// BenchmarkArithLoop times float addition's loop alone, portable and SIMD
// (the twin runs only in a GOEXPERIMENT=simd build on an AVX2 CPU), on
// columns that stay in the L1/L2 cache (4K values) and on ones that do not
// (1M), into a buffer written before: ns a value.
func BenchmarkArithLoop(b *testing.B) {
	for _, n := range []int{4 << 10, 1 << 20} {
		x, y, out := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = float64(i), float64(n-i)
		}
		for _, simd := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d/simd=%v", n, simd), func(b *testing.B) {
				if simd && !arithFloatsSIMD(x, 0, y, 0, Add, out) {
					b.Skip("no SIMD twin in this build or on this CPU")
				}
				for range b.N {
					if !simd || !arithFloatsSIMD(x, 0, y, 0, Add, out) {
						arith(x, 0, y, 0, Add, out)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/value")
			})
		}
	}
}
