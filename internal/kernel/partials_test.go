package kernel

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// Partials gives each aggregation the states Partial gives it alone, for
// means and sums of columns with and without nulls (whose row counts and
// passes it shares) beside other aggregations, few groups and many, rows in
// no group.
func TestPartialsMatchPartial(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, rows := range []int{0, 1, 7, 1000, 5000} {
		for _, groups := range []int{1, 100, fewGroups + 1, 3000} {
			t.Run(fmt.Sprintf("rows=%d/groups=%d", rows, groups), func(t *testing.T) {
				ids := make([]int32, rows)
				ints, floats := make([]int64, rows), make([]float64, rows)
				valid := make([]byte, (rows+7)/8)
				for i := range ids {
					ids[i] = int32(rng.Intn(groups+1)) - 1 // -1: no group
					ints[i], floats[i] = rng.Int63n(1000)-500, rng.NormFloat64()
					if rng.Intn(4) > 0 {
						valid[i/8] |= 1 << (i % 8)
					}
				}
				cols := []arrow.Array{NewInt64(ints, nil), NewFloat64(floats, nil), NewInt64(ints, valid), NewFloat64(floats, valid)}
				fs := []AggFunc{Mean, Mean, Sum, Mean, Mean, Count, Max, Sum, Sum, Size}
				in := [][]arrow.Array{{cols[0]}, {cols[1]}, {cols[0]}, {cols[2]}, {cols[3]}, {cols[3]}, {cols[1]}, {cols[1]}, {cols[3]}, {}}
				got, _, err := Partials(fs, in, ids, groups)
				if err != nil {
					t.Fatal(err)
				}
				for i, f := range fs {
					want, err := Partial(f, in[i], ids, groups)
					if err != nil {
						t.Fatal(err)
					}
					for c := range want {
						if !array.Equal(got[i][c], want[c]) {
							t.Errorf("%s (%d) state %d:\n got %v\nwant %v", f, i, c, got[i][c], want[c])
						}
						want[c].Release()
						got[i][c].Release()
					}
				}
			})
		}
	}
}

// BenchmarkPartialsMeans is db-benchmark's q4 on one partition at 1e8
// rows: three means of columns without nulls over 100 groups, 1.25M rows.
func BenchmarkPartialsMeans(b *testing.B) {
	const rows, groups = 1_250_000, 100
	rng := rand.New(rand.NewSource(1))
	ids := make([]int32, rows)
	v1, v2, v3 := make([]int64, rows), make([]int64, rows), make([]float64, rows)
	for i := range ids {
		ids[i] = int32(rng.Intn(groups))
		v1[i], v2[i], v3[i] = rng.Int63n(5)+1, rng.Int63n(15)+1, rng.Float64()*100
	}
	in := [][]arrow.Array{{NewInt64(v1, nil)}, {NewInt64(v2, nil)}, {NewFloat64(v3, nil)}}
	fs := []AggFunc{Mean, Mean, Mean}
	benchPartials(b, fs, in, ids, groups)
}

// BenchmarkPartialsQ1 is TPC-H q1's aggregation of one partition: four
// sums and three means of float64 columns without nulls and a count over
// four groups, 1M rows.
func BenchmarkPartialsQ1(b *testing.B) {
	const rows, groups = 1 << 20, 4
	rng := rand.New(rand.NewSource(1))
	ids := make([]int32, rows)
	var cols []arrow.Array
	for range 4 {
		x := make([]float64, rows)
		for i := range x {
			x[i] = rng.Float64() * 1000
		}
		cols = append(cols, NewFloat64(x, nil))
	}
	for i := range ids {
		ids[i] = int32(rng.Intn(groups))
	}
	fs := []AggFunc{Sum, Sum, Sum, Sum, Mean, Mean, Mean, Size}
	in := [][]arrow.Array{{cols[0]}, {cols[1]}, {cols[2]}, {cols[3]}, {cols[0]}, {cols[1]}, {cols[2]}, {}}
	benchPartials(b, fs, in, ids, groups)
}

// benchPartials times fs over in by Partials, and by Partial one by one.
func benchPartials(b *testing.B, fs []AggFunc, in [][]arrow.Array, ids []int32, groups int) {
	release := func(st []arrow.Array) {
		for _, c := range st {
			c.Release()
		}
	}
	perRow := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/row")
	}
	b.Run("partials", func(b *testing.B) {
		for range b.N {
			out, _, _ := Partials(fs, in, ids, groups)
			for _, st := range out {
				release(st)
			}
		}
		perRow(b)
	})
	b.Run("each", func(b *testing.B) {
		for range b.N {
			for i, f := range fs {
				st, _ := Partial(f, in[i], ids, groups)
				release(st)
			}
		}
		perRow(b)
	})
}
