package kernel

import "math"

// Few groups. Rows of one group often come in runs (a sorted or clustered
// key, or a single group), and a float add into a group's sum then waits
// for the add before it, through memory: 3.3 ns a row on the 2-core EPYC,
// where a copy of the column takes 0.33. Up to fewGroups groups, each
// group's sums are kept in four banks, rows going to the banks in turn, so
// that four adds are in flight; the banks are added up at the end (so a
// float sum rounds in another order than a plain loop's).

// fewGroups is the most groups that aggregate in banks: 4×(n+1) sums stay
// in the L1 cache.
const fewGroups = 256

// slotChunk is how many rows' bank slots are worked out at a time where
// some rows are null.
const slotChunk = 1024

// banked is a few-group aggregate's four banks of n+1 slots: slot g+1 for
// group g, slot 0 for rows dropped (group -1) or null, which nobody reads.
type banked[T int64 | float64] struct{ b0, b1, b2, b3 []T }

func newBanked[T int64 | float64](n int) banked[T] {
	w := n + 1
	b := make([]T, 4*w)
	return banked[T]{b[:w], b[w : 2*w], b[2*w : 3*w], b[3*w:]}
}

// bankAdd adds x[i], as a T, into slot slots[i]+shift of bank i%4; nil x
// adds one a row (a count).
func bankAdd[T, S int64 | float64](k banked[T], x []S, slots []int32, shift int32) {
	b0, b1, b2, b3 := k.b0, k.b1, k.b2, k.b3
	i := 0
	if x == nil {
		for ; i+4 <= len(slots); i += 4 {
			b0[slots[i]+shift]++
			b1[slots[i+1]+shift]++
			b2[slots[i+2]+shift]++
			b3[slots[i+3]+shift]++
		}
		for ; i < len(slots); i++ {
			b0[slots[i]+shift]++
		}
		return
	}
	x = x[:len(slots)]
	for ; i+4 <= len(slots); i += 4 {
		b0[slots[i]+shift] += T(x[i])
		b1[slots[i+1]+shift] += T(x[i+1])
		b2[slots[i+2]+shift] += T(x[i+2])
		b3[slots[i+3]+shift] += T(x[i+3])
	}
	for ; i < len(slots); i++ {
		b0[slots[i]+shift] += T(x[i])
	}
}

// total is each group's sum over the banks.
func (k banked[T]) total(n int) []T {
	out := make([]T, n)
	for g := range out {
		out[g] = (k.b0[g+1] + k.b1[g+1]) + (k.b2[g+1] + k.b3[g+1])
	}
	return out
}

// eachChunk calls f with the slots of successive chunks of rows (group+1,
// or 0 where the row is null) and the chunk's first row; with no nulls,
// once, with ids themselves and a shift of 1.
func eachChunk(ids []int32, valid []byte, off int, f func(slots []int32, from int, shift int32)) {
	if valid == nil {
		f(ids, 0, 1)
		return
	}
	var buf [slotChunk]int32
	for from := 0; from < len(ids); from += slotChunk {
		chunk := ids[from:min(from+slotChunk, len(ids))]
		slots := buf[:len(chunk)]
		for i, g := range chunk {
			s := g + 1
			if j := off + from + i; valid[j>>3]&(1<<(j&7)) == 0 {
				s = 0
			}
			slots[i] = s
		}
		f(slots, from, 0)
	}
}

// sumFew is sumBy of few groups. Integer sums are not banked: their adds
// wait less (1.0 against 1.2 ns a value banked, one group), and they check
// each add for overflow.
func sumFew[T int64 | float64](x []T, valid []byte, off int, ids []int32, n int) []T {
	k := newBanked[T](n)
	eachChunk(ids, valid, off, func(slots []int32, from int, shift int32) {
		bankAdd(k, x[from:from+len(slots)], slots, shift)
	})
	return k.total(n)
}

// meanFew is meanBy of few groups.
func meanFew[T int64 | float64](x []T, valid []byte, off int, ids []int32, n int) ([]float64, []int64) {
	sums, counts := newBanked[float64](n), newBanked[int64](n)
	eachChunk(ids, valid, off, func(slots []int32, from int, shift int32) {
		bankMean(sums, counts, x[from:from+len(slots)], slots, shift)
	})
	return sums.total(n), counts.total(n)
}

// bankMean adds x[i] into slot slots[i]+shift of sums' bank i%4 and one
// into the same slot of counts': a mean's two states in one pass over the
// slots, where a pass each read them twice.
func bankMean[S int64 | float64](sums banked[float64], counts banked[int64], x []S, slots []int32, shift int32) {
	s0, s1, s2, s3 := sums.b0, sums.b1, sums.b2, sums.b3
	c0, c1, c2, c3 := counts.b0, counts.b1, counts.b2, counts.b3
	x = x[:len(slots)]
	i := 0
	for ; i+4 <= len(slots); i += 4 {
		g0, g1, g2, g3 := slots[i]+shift, slots[i+1]+shift, slots[i+2]+shift, slots[i+3]+shift
		s0[g0] += float64(x[i])
		c0[g0]++
		s1[g1] += float64(x[i+1])
		c1[g1]++
		s2[g2] += float64(x[i+2])
		c2[g2]++
		s3[g3] += float64(x[i+3])
		c3[g3]++
	}
	for ; i < len(slots); i++ {
		g := slots[i] + shift
		s0[g] += float64(x[i])
		c0[g]++
	}
}

// countFew is countBy of few groups.
func countFew(valid []byte, off int, ids []int32, n int) []int64 {
	k := newBanked[int64](n)
	eachChunk(ids, valid, off, func(slots []int32, _ int, shift int32) { bankAdd[int64, int64](k, nil, slots, shift) })
	return k.total(n)
}

// extremeFew is extremeBy of few groups: each group's minimum (or maximum)
// in four banks, so that four comparisons are in flight (farExtremes says
// the rest).
func extremeFew[T int64 | float64](x []T, valid []byte, off int, ids []int32, n int, isMin bool) []T {
	far := farEnd[T](isMin)
	k := newBanked[T](n)
	for _, b := range [][]T{k.b0, k.b1, k.b2, k.b3} {
		for i := range b {
			b[i] = far
		}
	}
	eachChunk(ids, valid, off, func(slots []int32, from int, shift int32) {
		bankExtreme(k, x[from:from+len(slots)], slots, shift, isMin)
	})
	vals := make([]T, n)
	for g := range vals {
		vals[g] = pick(pick(k.b0[g+1], k.b1[g+1], isMin), pick(k.b2[g+1], k.b3[g+1], isMin), isMin)
	}
	return vals
}

// extremeMany is extremeBy of many groups: one slot a group, starting at
// the far end (farExtremes).
func extremeMany[T int64 | float64](x []T, valid []byte, off int, ids []int32, n int, isMin bool) []T {
	far := farEnd[T](isMin)
	vals := make([]T, n)
	for g := range vals {
		vals[g] = far
	}
	x = x[:len(ids)]
	switch {
	case valid == nil && isMin:
		for i, g := range ids {
			if g >= 0 && x[i] < vals[g] {
				vals[g] = x[i]
			}
		}
	case valid == nil:
		for i, g := range ids {
			if g >= 0 && x[i] > vals[g] {
				vals[g] = x[i]
			}
		}
	default:
		for i, g := range ids {
			if g >= 0 && IsValid(valid, off, i) && ((isMin && x[i] < vals[g]) || (!isMin && x[i] > vals[g])) {
				vals[g] = x[i]
			}
		}
	}
	return vals
}

// farExtremes finishes extremes that started at the far end (+Inf or
// MaxInt64 for a minimum) so that no row asked whether its group had a
// value yet: a NaN never passes the comparison, so NaNs are left out as
// pandas leaves them. A group still at the far end is looked at again, in
// one pass over the rows made only if there is one: with no valid row it
// has no value (null), with NaNs alone it is NaN, and otherwise the far
// end is its value. It returns the validity of vals, nil if all valid.
func farExtremes[T int64 | float64](vals, x []T, valid []byte, off int, ids []int32, isMin bool) []byte {
	far := farEnd[T](isMin)
	var again []bool
	for g, v := range vals {
		if v == far {
			if again == nil {
				again = make([]bool, len(vals))
			}
			again[g] = true
		}
	}
	if again == nil {
		return nil
	}
	const (
		none   = 0 // no valid row
		nan    = 1 // NaNs alone
		number = 2 // a value that is a number: the far end itself
	)
	found := make([]uint8, len(vals))
	for i, g := range ids {
		if g >= 0 && again[g] && IsValid(valid, off, i) {
			what := uint8(number)
			if x[i] != x[i] {
				what = nan
			}
			found[g] = max(found[g], what)
		}
	}
	seen := make([]uint8, len(vals))
	for g := range seen {
		seen[g] = 1
		switch {
		case !again[g]:
		case found[g] == none:
			seen[g], vals[g] = 0, 0
		case found[g] == nan:
			vals[g] = T(math.NaN())
		}
	}
	return packValidIfNull(seen)
}

// farEnd is where a minimum's (isMin) or maximum's banks start: a value no
// other passes.
func farEnd[T int64 | float64](isMin bool) T {
	var zero T
	_, isFloat := any(zero).(float64)
	switch {
	case isFloat && isMin:
		return T(math.Inf(1))
	case isFloat:
		return T(math.Inf(-1))
	case isMin:
		return T(math.MaxInt64)
	}
	return T(math.MinInt64)
}

// pick is the lesser (isMin) or greater of a and b.
func pick[T int64 | float64](a, b T, isMin bool) T {
	if (isMin && b < a) || (!isMin && b > a) {
		return b
	}
	return a
}

// bankExtreme lowers (isMin) or raises slot slots[i]+shift of bank i%4 to
// x[i] where x[i] passes it.
func bankExtreme[T int64 | float64](k banked[T], x []T, slots []int32, shift int32, isMin bool) {
	if !isMin {
		bankMax(k, x, slots, shift)
		return
	}
	b0, b1, b2, b3 := k.b0, k.b1, k.b2, k.b3
	x = x[:len(slots)]
	i := 0
	for ; i+4 <= len(slots); i += 4 {
		if s := slots[i] + shift; x[i] < b0[s] {
			b0[s] = x[i]
		}
		if s := slots[i+1] + shift; x[i+1] < b1[s] {
			b1[s] = x[i+1]
		}
		if s := slots[i+2] + shift; x[i+2] < b2[s] {
			b2[s] = x[i+2]
		}
		if s := slots[i+3] + shift; x[i+3] < b3[s] {
			b3[s] = x[i+3]
		}
	}
	for ; i < len(slots); i++ {
		if s := slots[i] + shift; x[i] < b0[s] {
			b0[s] = x[i]
		}
	}
}

// bankMax is bankExtreme of a maximum.
func bankMax[T int64 | float64](k banked[T], x []T, slots []int32, shift int32) {
	b0, b1, b2, b3 := k.b0, k.b1, k.b2, k.b3
	x = x[:len(slots)]
	i := 0
	for ; i+4 <= len(slots); i += 4 {
		if s := slots[i] + shift; x[i] > b0[s] {
			b0[s] = x[i]
		}
		if s := slots[i+1] + shift; x[i+1] > b1[s] {
			b1[s] = x[i+1]
		}
		if s := slots[i+2] + shift; x[i+2] > b2[s] {
			b2[s] = x[i+2]
		}
		if s := slots[i+3] + shift; x[i+3] > b3[s] {
			b3[s] = x[i+3]
		}
	}
	for ; i < len(slots); i++ {
		if s := slots[i] + shift; x[i] > b0[s] {
			b0[s] = x[i]
		}
	}
}
