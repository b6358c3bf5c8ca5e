package array_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/duskdata/dusk/array"
)

// BenchmarkBigSum sums a random matrix generated chunk by chunk, reporting
// elements per second per core (each of the NumCPU workers runs one task).
func BenchmarkBigSum(b *testing.B) {
	ctx := newClient(b)
	const n, chunk = 20000, 4000
	a := array.Random(42, []int{n, n}, []int{chunk, chunk}).Sum()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := a.Compute(ctx); err != nil {
			b.Fatal(err)
		}
	}
	el := float64(n) * n * float64(b.N) / time.Since(start).Seconds()
	b.ReportMetric(el, "elem/s")
	b.ReportMetric(el/float64(runtime.NumCPU()), "elem/s/core")
	b.SetBytes(8 * n * n)
}

// BenchmarkRandomKernel is the generator and sum alone, on one core: the
// speed BigSum aims at.
func BenchmarkRandomKernel(b *testing.B) {
	const n = 1 << 24
	b.SetBytes(8 * n)
	for i := 0; i < b.N; i++ {
		array.RandomSumKernel(42, 0, n)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
}

// BenchmarkSum compares the chunked Sum of a persisted in-memory array with
// a plain loop over the same data in this process.
func BenchmarkSum(b *testing.B) {
	const n = 1 << 24
	data := randFloats(9, n)
	b.Run("plain-loop", func(b *testing.B) {
		b.SetBytes(8 * n)
		var s float64
		for i := 0; i < b.N; i++ {
			s = 0
			for _, v := range data {
				s += v
			}
		}
		sink = s
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
	})
	b.Run("chunked", func(b *testing.B) {
		ctx := newClient(b)
		a, err := array.FromSlice(data, []int{n}, []int{1 << 20}).Persist(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer a.Release()
		s := a.Sum()
		b.SetBytes(8 * n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := s.Compute(ctx); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
	})
}

var sink float64
