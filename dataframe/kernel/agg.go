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
)

var aggNames = [...]string{"sum", "mean", "count", "size", "min", "max", "var", "std"}

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

// CheckInput reports whether f applies to a column of kind k.
func (f AggFunc) CheckInput(k Kind) error {
	switch f {
	case Count, Size:
		return nil
	}
	if k != KindInt && k != KindFloat {
		return fmt.Errorf("%s needs a numeric column, not %s", f, k)
	}
	return nil
}

// ResultType is the type of f's answer over a column of kind k.
func (f AggFunc) ResultType(k Kind) arrow.DataType {
	switch f {
	case Count, Size:
		return Int64
	case Sum, Min, Max:
		if k == KindInt {
			return Int64
		}
	}
	return Float64
}

// StateTypes are the types of f's partial state columns over kind k.
func (f AggFunc) StateTypes(k Kind) []arrow.DataType {
	switch f {
	case Sum, Min, Max:
		return []arrow.DataType{f.ResultType(k)}
	case Mean:
		return []arrow.DataType{Float64, Int64}
	case Count, Size:
		return []arrow.DataType{Int64}
	}
	return []arrow.DataType{Int64, Float64, Float64} // count, mean, m2
}

// Partial computes f's state columns over col (nil for Size) for rows
// grouped by ids (-1: dropped) into n groups.
func Partial(f AggFunc, col arrow.Array, ids []int32, n int) []arrow.Array {
	switch f {
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
