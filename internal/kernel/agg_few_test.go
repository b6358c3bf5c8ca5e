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

// TestFewExtremes checks minima and maxima, banked for few groups, in one
// slot a group for more, both started at the far end, and with a byte a
// group past farGroups, against a plain
// loop, on random lengths, groups (the dropped -1 and empty ones among
// them) and nulls, with floats holding NaNs (groups of NaNs alone too),
// infinities and the ints' far ends.
func TestFewExtremes(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 2))
	ref := func(x []float64, valid []byte, off int, ids []int32, n int, isMin bool) ([]float64, []bool) {
		vals, seen := make([]float64, n), make([]bool, n)
		for i, g := range ids {
			if g < 0 || !IsValid(valid, off, i) {
				continue
			}
			v := x[i]
			if !seen[g] || vals[g] != vals[g] || (isMin && v < vals[g]) || (!isMin && v > vals[g]) {
				vals[g], seen[g] = v, true
			}
		}
		return vals, seen
	}
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
	for trial := range 400 {
		rows, n := r.IntN(2000), 1+r.IntN(3*fewGroups)
		if trial%40 == 0 { // past farGroups: a byte a group
			n = farGroups + 1 + r.IntN(100)
		}
		ids, floats, ints := make([]int32, rows), make([]float64, rows), make([]int64, rows)
		var valid []byte
		if trial%2 == 1 {
			valid = make([]byte, (rows+7+3)/8)
		}
		off := trial % 3
		nanGroup := int32(r.IntN(n)) // its values are NaN alone
		for i := range ids {
			ids[i] = int32(r.IntN(n+1)) - 1
			floats[i], ints[i] = r.NormFloat64()*1e6, r.Int64N(1<<40)-1<<39
			if r.IntN(8) == 0 {
				floats[i] = specials[r.IntN(len(specials))]
				ints[i] = []int64{math.MaxInt64, math.MinInt64}[r.IntN(2)]
			}
			if ids[i] == nanGroup {
				floats[i] = math.NaN()
			}
			if valid != nil && r.IntN(4) != 0 {
				valid[(off+i)>>3] |= 1 << ((off + i) & 7)
			}
		}
		for _, isMin := range []bool{true, false} {
			wantF, seen := ref(floats, valid, off, ids, n, isMin)
			asF := make([]float64, rows)
			for i, v := range ints {
				asF[i] = float64(v)
			}
			wantI, _ := ref(asF, valid, off, ids, n, isMin)
			gotF, hasF := extremeBy(floats, valid, off, ids, n, isMin)
			gotI, hasI := extremeBy(ints, valid, off, ids, n, isMin)
			for g := range n {
				if IsValid(hasF, 0, g) != seen[g] || IsValid(hasI, 0, g) != seen[g] {
					t.Fatalf("trial %d min %v group %d: has a value %v %v, want %v", trial, isMin, g, IsValid(hasF, 0, g), IsValid(hasI, 0, g), seen[g])
				}
				if !seen[g] {
					continue
				}
				if f, w := gotF[g], wantF[g]; f != w && !(f != f && w != w) {
					t.Fatalf("trial %d min %v group %d: float %v, want %v", trial, isMin, g, f, w)
				}
				if float64(gotI[g]) != wantI[g] {
					t.Fatalf("trial %d min %v group %d: int %v, want %v", trial, isMin, g, gotI[g], wantI[g])
				}
			}
		}
	}
}
