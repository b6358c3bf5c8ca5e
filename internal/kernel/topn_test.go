package kernel

import (
	"cmp"
	"math"
	"math/rand"
	"slices"
	"testing"
)

// TestGroupTopNAgainstSort checks GroupTopN against a stable sort of each
// group's rows, for k on both sides of smallTopN, both directions, ties,
// NaNs, nulls and rows in no group.
func TestGroupTopNAgainstSort(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const rows, groups = 3000, 40
	x := make([]float64, rows)
	ok := make([]bool, rows)
	ids := make([]int32, rows)
	for i := range x {
		x[i] = float64(rng.Intn(30)) // many ties
		if rng.Intn(20) == 0 {
			x[i] = math.NaN()
		}
		ok[i] = rng.Intn(10) != 0
		ids[i] = int32(rng.Intn(groups+1)) - 1 // -1: in no group
	}
	col := NewFloat64(x, validBitmap(ok))
	defer col.Release()
	for _, k := range []int{1, 2, 3, smallTopN, smallTopN + 1, 50, 200} {
		for _, largest := range []bool{true, false} {
			var want []int32
			for g := range int32(groups) {
				var seg []int32
				for i, id := range ids {
					if id == g && ok[i] && !math.IsNaN(x[i]) {
						seg = append(seg, int32(i))
					}
				}
				slices.SortStableFunc(seg, func(a, b int32) int {
					if largest {
						return cmp.Compare(x[b], x[a])
					}
					return cmp.Compare(x[a], x[b])
				})
				want = append(want, seg[:min(k, len(seg))]...)
			}
			if got := GroupTopN(col, ids, groups, k, largest); !slices.Equal(got, want) {
				t.Fatalf("k=%d largest=%v: %v\nwant %v", k, largest, got[:min(10, len(got))], want[:min(10, len(want))])
			}
		}
	}
}
