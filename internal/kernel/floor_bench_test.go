package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// BenchmarkAggFloor times the grouped aggregations of a column of 1M
// values by groups drawn at random (1, 4, 1k or 1M of them), in ns a value
// and MB/s of the values read, beside the floor: a copy of the same bytes.
// Run with -bench AggFloor; the CPU is in the header go test prints.
func BenchmarkAggFloor(b *testing.B) {
	const rows = 1 << 20
	r := rand.New(rand.NewPCG(1, 2))
	floats, ints := make([]float64, rows), make([]int64, rows)
	for i := range floats {
		floats[i], ints[i] = r.Float64()*100, r.Int64N(1000)
	}
	perValue := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/value")
	}
	b.Run("floor=copy", func(b *testing.B) {
		dst := make([]float64, rows)
		b.SetBytes(8 * rows)
		for range b.N {
			copy(dst, floats)
		}
		perValue(b)
	})
	for _, groups := range []int{1, 4, 1000, rows} {
		ids := make([]int32, rows)
		for i := range ids {
			ids[i] = int32(r.IntN(groups))
		}
		for _, c := range []struct {
			name string
			f    AggFunc
			col  arrow.Array
		}{
			{"sum-float", Sum, NewFloat64(floats, nil)},
			{"sum-int", Sum, NewInt64(ints, nil)},
			{"mean-float", Mean, NewFloat64(floats, nil)},
			{"min-float", Min, NewFloat64(floats, nil)},
			{"count", Count, NewFloat64(floats, nil)},
		} {
			b.Run(fmt.Sprintf("%s/groups=%d", c.name, groups), func(b *testing.B) {
				b.SetBytes(8 * rows)
				for range b.N {
					st, err := Partial(c.f, []arrow.Array{c.col}, ids, groups)
					if err != nil {
						b.Fatal(err)
					}
					for _, s := range st {
						s.Release()
					}
				}
				perValue(b)
			})
		}
	}
}
