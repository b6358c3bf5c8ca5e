package kernel

import (
	"fmt"
	"math"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// AggFunc is an aggregation computed as a tree reduction: a partial state
// per chunk (Partial), states merged (Merge), and the answer (Final).
type AggFunc uint8

const (
	Sum   AggFunc = iota // of the non-null values; 0 for none (pandas' min_count=0)
	Mean                 // of the non-null values; null for none
	Count                // non-null values
	Size                 // rows, null or not
	Min                  // null for none
	Max                  // null for none
	Var                  // sample variance (ddof=1, as pandas); null for fewer than 2 values
	Std                  // sample standard deviation (ddof=1)
	Corr                 // Pearson correlation of two columns over rows where both have values; null for fewer than 2 or no variance
)

var aggNames = [...]string{"sum", "mean", "count", "size", "min", "max", "var", "std", "corr"}

func (f AggFunc) String() string { return aggNames[f] }

// ParseAggFunc maps a name such as "sum" to its AggFunc.
func ParseAggFunc(name string) (AggFunc, error) {
	for i, n := range aggNames {
		if n == name {
			return AggFunc(i), nil
		}
	}
	return 0, fmt.Errorf("unknown aggregation %q", name)
}

// Inputs is how many columns f reads: 0 for Size, 2 for Corr (see
// PartialPair), else 1.
func (f AggFunc) Inputs() int {
	switch f {
	case Size:
		return 0
	case Corr:
		return 2
	}
	return 1
}

// CheckInput reports whether f applies to a column of kind k.
func (f AggFunc) CheckInput(k Kind) error {
	switch {
	case f == Count || f == Size:
		return nil
	case k == KindInt || k == KindFloat || k == KindDecimal:
		return nil
	case (f == Min || f == Max) && (k == KindDate || k == KindTimestamp || k == KindDuration):
		return nil
	case f == Sum && k == KindDuration:
		return nil
	}
	if f == Min || f == Max {
		return fmt.Errorf("%s needs a number, date, timestamp or duration column, not %s", f, k)
	}
	return fmt.Errorf("%s needs a numeric column, not %s", f, k)
}

// ResultType is the type of f's answer over a column of type t, as the
// kernels compute it: sums, minima and maxima of integer-like columns
// (integers, dates, timestamps, durations, decimals up to 18 digits as
// their unscaled values) are int64, which the caller retypes to the
// logical type; the rest float64.
func (f AggFunc) ResultType(t arrow.DataType) arrow.DataType {
	switch f {
	case Count, Size:
		return Int64
	case Sum, Min, Max:
		if t != nil && WideType(t).ID() == arrow.INT64 {
			return Int64
		}
	}
	return Float64
}

// StateTypes are the types of f's partial state columns over type t.
func (f AggFunc) StateTypes(t arrow.DataType) []arrow.DataType {
	switch f {
	case Sum, Min, Max:
		return []arrow.DataType{f.ResultType(t)}
	case Mean:
		return []arrow.DataType{Float64, Int64}
	case Count, Size:
		return []arrow.DataType{Int64}
	case Corr:
		return []arrow.DataType{Int64, Float64, Float64, Float64, Float64, Float64} // count, mean x, mean y, m2 x, m2 y, co-moment
	}
	return []arrow.DataType{Int64, Float64, Float64} // count, mean, m2
}

// Partial computes f's state columns over col (nil for Size) for rows
// grouped by ids (-1: dropped) into n groups. Corr takes PartialPair.
func Partial(f AggFunc, col arrow.Array, ids []int32, n int) []arrow.Array {
	if col != nil {
		if f == Sum || f == Min || f == Max || f == Count {
			col = Widen(col)
		} else {
			col = WidenFloat(col)
		}
		defer col.Release()
	}
	switch f {
	case Corr:
		panic("kernel: corr reads two columns: call PartialPair")
	case Size:
		counts := make([]int64, n)
		for _, g := range ids {
			if g >= 0 {
				counts[g]++
			}
		}
		return []arrow.Array{NewInt64(counts, nil)}
	case Count:
		counts := make([]int64, n)
		valid, off := Validity(col)
		for i, g := range ids {
			if g >= 0 && IsValid(valid, off, i) {
				counts[g]++
			}
		}
		return []arrow.Array{NewInt64(counts, nil)}
	}
	valid, off := Validity(col)
	switch f {
	case Sum:
		if a, ok := col.(*array.Int64); ok {
			return []arrow.Array{NewInt64(sumBy(a.Int64Values(), valid, off, ids, n), nil)}
		}
		x, _ := Col(col).floats()
		return []arrow.Array{NewFloat64(sumBy(x, valid, off, ids, n), nil)}
	case Min, Max:
		if a, ok := col.(*array.Int64); ok {
			vals, has := extremeBy(a.Int64Values(), valid, off, ids, n, f == Min)
			return []arrow.Array{NewInt64(vals, has)}
		}
		x, _ := Col(col).floats()
		vals, has := extremeBy(x, valid, off, ids, n, f == Min)
		return []arrow.Array{NewFloat64(vals, has)}
	}
	x, _ := Col(col).floats()
	sums := sumBy(x, valid, off, ids, n)
	counts := make([]int64, n)
	for i, g := range ids {
		if g >= 0 && IsValid(valid, off, i) {
			counts[g]++
		}
	}
	if f == Mean {
		return []arrow.Array{NewFloat64(sums, nil), NewInt64(counts, nil)}
	}
	// Two passes: the mean of each group, then the squares around it.
	means := make([]float64, n)
	for g := range means {
		if counts[g] > 0 {
			means[g] = sums[g] / float64(counts[g])
		}
	}
	m2 := make([]float64, n)
	for i, g := range ids {
		if g >= 0 && IsValid(valid, off, i) {
			d := x[i] - means[g]
			m2[g] += d * d
		}
	}
	return []arrow.Array{NewInt64(counts, nil), NewFloat64(means, nil), NewFloat64(m2, nil)}
}

// PartialPair computes the state columns of f, an aggregation of two
// numeric columns (Corr), over the rows grouped by ids where both x and y
// have a value.
func PartialPair(f AggFunc, x, y arrow.Array, ids []int32, n int) []arrow.Array {
	if f != Corr {
		panic(fmt.Sprintf("kernel: %s reads %d columns, not 2", f, f.Inputs()))
	}
	xs, _ := Col(x).floats()
	ys, _ := Col(y).floats()
	xv, xo := Validity(x)
	yv, yo := Validity(y)
	both := func(i int) bool { return IsValid(xv, xo, i) && IsValid(yv, yo, i) }
	// Two passes, as for Var: the means, then the moments around them.
	counts := make([]int64, n)
	mx, my := make([]float64, n), make([]float64, n)
	for i, g := range ids {
		if g >= 0 && both(i) {
			counts[g]++
			mx[g] += xs[i]
			my[g] += ys[i]
		}
	}
	for g, k := range counts {
		if k > 0 {
			mx[g] /= float64(k)
			my[g] /= float64(k)
		}
	}
	m2x, m2y, cxy := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, g := range ids {
		if g >= 0 && both(i) {
			dx, dy := xs[i]-mx[g], ys[i]-my[g]
			m2x[g] += dx * dx
			m2y[g] += dy * dy
			cxy[g] += dx * dy
		}
	}
	return []arrow.Array{NewInt64(counts, nil), NewFloat64(mx, nil), NewFloat64(my, nil),
		NewFloat64(m2x, nil), NewFloat64(m2y, nil), NewFloat64(cxy, nil)}
}

func sumBy[T int64 | float64](x []T, valid []byte, off int, ids []int32, n int) []T {
	sums := make([]T, n)
	if valid == nil {
		for i, g := range ids {
			if g >= 0 {
				sums[g] += x[i]
			}
		}
		return sums
	}
	for i, g := range ids {
		if g >= 0 && IsValid(valid, off, i) {
			sums[g] += x[i]
		}
	}
	return sums
}

// extremeBy returns each group's min (or max) and a validity bitmap that is
// unset for groups without a value.
func extremeBy[T int64 | float64](x []T, valid []byte, off int, ids []int32, n int, isMin bool) ([]T, []byte) {
	vals := make([]T, n)
	seen := make([]uint8, n)
	for i, g := range ids {
		if g < 0 || !IsValid(valid, off, i) {
			continue
		}
		v := x[i]
		if seen[g] == 0 || (isMin && v < vals[g]) || (!isMin && v > vals[g]) {
			vals[g] = v
			seen[g] = 1
		}
	}
	return vals, packValidIfNull(seen)
}

// packValidIfNull packs a byte-per-row validity, or returns nil if all set.
func packValidIfNull(seen []uint8) []byte {
	for _, s := range seen {
		if s == 0 {
			return packValid(seen)
		}
	}
	return nil
}

// Merge merges f's state columns from several chunks into n groups:
// states[c] are chunk c's state columns and ids[c] the group of each of
// its rows.
func Merge(f AggFunc, states [][]arrow.Array, ids [][]int32, n int) []arrow.Array {
	switch f {
	case Sum, Count, Size:
		if _, ok := states[0][0].(*array.Int64); ok || f != Sum {
			out := make([]int64, n)
			for c, st := range states {
				v := st[0].(*array.Int64).Int64Values()
				for i, g := range ids[c] {
					out[g] += v[i]
				}
			}
			return []arrow.Array{NewInt64(out, nil)}
		}
		out := make([]float64, n)
		for c, st := range states {
			v := st[0].(*array.Float64).Float64Values()
			for i, g := range ids[c] {
				out[g] += v[i]
			}
		}
		return []arrow.Array{NewFloat64(out, nil)}
	case Min, Max:
		if _, ok := states[0][0].(*array.Int64); ok {
			return []arrow.Array{mergeExtreme[int64](states, ids, n, f == Min)}
		}
		return []arrow.Array{mergeExtreme[float64](states, ids, n, f == Min)}
	case Mean:
		sums, counts := make([]float64, n), make([]int64, n)
		for c, st := range states {
			s, k := st[0].(*array.Float64).Float64Values(), st[1].(*array.Int64).Int64Values()
			for i, g := range ids[c] {
				sums[g] += s[i]
				counts[g] += k[i]
			}
		}
		return []arrow.Array{NewFloat64(sums, nil), NewInt64(counts, nil)}
	case Corr:
		return mergeCorr(states, ids, n)
	}
	// Chan et al.'s parallel merge of (count, mean, m2).
	counts, means, m2 := make([]int64, n), make([]float64, n), make([]float64, n)
	for c, st := range states {
		k := st[0].(*array.Int64).Int64Values()
		mu := st[1].(*array.Float64).Float64Values()
		sq := st[2].(*array.Float64).Float64Values()
		for i, g := range ids[c] {
			nb := k[i]
			if nb == 0 {
				continue
			}
			na := counts[g]
			if na == 0 {
				counts[g], means[g], m2[g] = nb, mu[i], sq[i]
				continue
			}
			tot := float64(na + nb)
			delta := mu[i] - means[g]
			means[g] += delta * float64(nb) / tot
			m2[g] += sq[i] + delta*delta*float64(na)*float64(nb)/tot
			counts[g] = na + nb
		}
	}
	return []arrow.Array{NewInt64(counts, nil), NewFloat64(means, nil), NewFloat64(m2, nil)}
}

// mergeCorr merges (count, mean x, mean y, m2 x, m2 y, co-moment) states
// with Chan et al.'s formulas, the co-moment as the m2s.
func mergeCorr(states [][]arrow.Array, ids [][]int32, n int) []arrow.Array {
	counts := make([]int64, n)
	mx, my := make([]float64, n), make([]float64, n)
	m2x, m2y, cxy := make([]float64, n), make([]float64, n), make([]float64, n)
	for c, st := range states {
		k := st[0].(*array.Int64).Int64Values()
		bmx, bmy := st[1].(*array.Float64).Float64Values(), st[2].(*array.Float64).Float64Values()
		bm2x, bm2y := st[3].(*array.Float64).Float64Values(), st[4].(*array.Float64).Float64Values()
		bcxy := st[5].(*array.Float64).Float64Values()
		for i, g := range ids[c] {
			nb := k[i]
			if nb == 0 {
				continue
			}
			na := counts[g]
			if na == 0 {
				counts[g], mx[g], my[g], m2x[g], m2y[g], cxy[g] = nb, bmx[i], bmy[i], bm2x[i], bm2y[i], bcxy[i]
				continue
			}
			tot := float64(na + nb)
			dx, dy := bmx[i]-mx[g], bmy[i]-my[g]
			w := float64(na) * float64(nb) / tot
			mx[g] += dx * float64(nb) / tot
			my[g] += dy * float64(nb) / tot
			m2x[g] += bm2x[i] + dx*dx*w
			m2y[g] += bm2y[i] + dy*dy*w
			cxy[g] += bcxy[i] + dx*dy*w
			counts[g] = na + nb
		}
	}
	return []arrow.Array{NewInt64(counts, nil), NewFloat64(mx, nil), NewFloat64(my, nil),
		NewFloat64(m2x, nil), NewFloat64(m2y, nil), NewFloat64(cxy, nil)}
}

type number interface{ int64 | float64 }

func valuesOf[T number](a arrow.Array) []T {
	switch a := a.(type) {
	case *array.Int64:
		return any(a.Int64Values()).([]T)
	case *array.Float64:
		return any(a.Float64Values()).([]T)
	}
	panic(fmt.Sprintf("kernel: %s is not numeric", a.DataType()))
}

func mergeExtreme[T number](states [][]arrow.Array, ids [][]int32, n int, isMin bool) arrow.Array {
	vals := make([]T, n)
	seen := make([]uint8, n)
	for c, st := range states {
		x := valuesOf[T](st[0])
		valid, off := Validity(st[0])
		for i, g := range ids[c] {
			if !IsValid(valid, off, i) {
				continue
			}
			v := x[i]
			if seen[g] == 0 || (isMin && v < vals[g]) || (!isMin && v > vals[g]) {
				vals[g] = v
				seen[g] = 1
			}
		}
	}
	valid := packValidIfNull(seen)
	if v, ok := any(vals).([]int64); ok {
		return NewInt64(v, valid)
	}
	return NewFloat64(any(vals).([]float64), valid)
}

// Final turns f's state columns into its answer.
func Final(f AggFunc, state []arrow.Array) arrow.Array {
	switch f {
	case Sum, Count, Size, Min, Max:
		state[0].Retain()
		return state[0]
	case Mean:
		s, k := state[0].(*array.Float64).Float64Values(), state[1].(*array.Int64).Int64Values()
		out, valid := make([]float64, len(s)), make([]uint8, len(s))
		for g := range out {
			if k[g] > 0 {
				out[g], valid[g] = s[g]/float64(k[g]), 1
			}
		}
		return NewFloat64(out, packValidIfNull(valid))
	case Corr:
		return finalCorr(state)
	}
	k, m2 := state[0].(*array.Int64).Int64Values(), state[2].(*array.Float64).Float64Values()
	out, valid := make([]float64, len(k)), make([]uint8, len(k))
	for g := range out {
		if k[g] > 1 {
			out[g], valid[g] = m2[g]/float64(k[g]-1), 1
			if f == Std {
				out[g] = math.Sqrt(out[g])
			}
		}
	}
	return NewFloat64(out, packValidIfNull(valid))
}

// finalCorr is the co-moment over the root of the m2s' product, kept within
// [-1, 1]; null for fewer than 2 rows or a column without variance.
func finalCorr(state []arrow.Array) arrow.Array {
	k := state[0].(*array.Int64).Int64Values()
	m2x, m2y := state[3].(*array.Float64).Float64Values(), state[4].(*array.Float64).Float64Values()
	cxy := state[5].(*array.Float64).Float64Values()
	out, valid := make([]float64, len(k)), make([]uint8, len(k))
	for g := range out {
		if k[g] < 2 || m2x[g] == 0 || m2y[g] == 0 {
			continue
		}
		r := cxy[g] / (math.Sqrt(m2x[g]) * math.Sqrt(m2y[g]))
		out[g], valid[g] = max(-1, min(1, r)), 1
	}
	return NewFloat64(out, packValidIfNull(valid))
}
