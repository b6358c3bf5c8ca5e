package kernel

import (
	"math/rand"
	"testing"
)

// Scatter puts each row in its part's record, in order, every column of
// every type alike, nulls and sliced columns included; a part no row goes
// to has no record.
func TestScatterMatchesReference(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		rec, cols := genRecord(rng, s)
		defer rec.Release()
		for _, n := range []int{1, 3, 40} {
			parts := make([]int32, s.n)
			rows := make([][]int, n)
			for i := range parts {
				parts[i] = int32(rng.Intn(n))
				if n == 3 {
					parts[i] = 2 * int32(rng.Intn(2)) // part 1 stays empty
				}
				rows[parts[i]] = append(rows[parts[i]], i)
			}
			got := Scatter(rec, parts, n)
			if len(got) != n {
				t.Fatalf("%d records, want %d", len(got), n)
			}
			for j, r := range got {
				if len(rows[j]) == 0 {
					if r != nil {
						t.Errorf("part %d of %d has no rows but a record of %d", j, n, r.NumRows())
						r.Release()
					}
					continue
				}
				if !r.Schema().Equal(rec.Schema()) {
					t.Errorf("schema %s, want %s", r.Schema(), rec.Schema())
				}
				checkRecord(t, r, cols, rows[j])
				r.Release()
			}
		}
	})
}
