package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFewGroups checks the banked few-group sums, means and counts against
// a plain loop, on random lengths, groups (the dropped -1 among them) and
// nulls; float sums within rounding, since the banks add in another order.
func TestFewGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 1))
	for trial := range 300 {
		rows, n := r.IntN(3000), 1+r.IntN(fewGroups)
		ids, ints, floats := make([]int32, rows), make([]int64, rows), make([]float64, rows)
		var valid []byte
		if trial%2 == 1 {
			valid = make([]byte, (rows+7+3)/8)
		}
		off := trial % 3
		for i := range ids {
			ids[i] = int32(r.IntN(n+1)) - 1
			if trial%5 == 0 {
				ids[i] = int32(i * n / max(rows, 1)) // runs, as a sorted key
			}
			ints[i], floats[i] = r.Int64N(1<<40)-1<<39, r.NormFloat64()*1e6
			if valid != nil && r.IntN(4) != 0 {
				valid[(off+i)>>3] |= 1 << ((off + i) & 7)
			}
		}
		wantI, wantF, wantC, mag := make([]int64, n), make([]float64, n), make([]int64, n), make([]float64, n)
		for i, g := range ids {
			if g >= 0 && IsValid(valid, off, i) {
				wantI[g] += ints[i]
				wantF[g] += floats[i]
				wantC[g]++
				mag[g] += math.Abs(floats[i]) + math.Abs(float64(ints[i]))
			}
		}
		gotI := sumFew(ints, valid, off, ids, n)
		gotF := sumFew(floats, valid, off, ids, n)
		gotC := countFew(valid, off, ids, n)
		meanS, meanC := meanFew(ints, valid, off, ids, n)
		for g := range n {
			if gotI[g] != wantI[g] || gotC[g] != wantC[g] || meanC[g] != wantC[g] {
				t.Fatalf("trial %d group %d: sum %d count %d mean count %d, want %d %d", trial, g, gotI[g], gotC[g], meanC[g], wantI[g], wantC[g])
			}
			if tol := 1e-12 * mag[g]; math.Abs(gotF[g]-wantF[g]) > tol || math.Abs(meanS[g]-float64(wantI[g])) > tol {
				t.Fatalf("trial %d group %d: float sum %v, mean's sum %v; want %v, %v", trial, g, gotF[g], meanS[g], wantF[g], wantI[g])
			}
		}
	}
}
