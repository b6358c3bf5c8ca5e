package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/alloc"
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

	// Holistic ones need a group's rows together (gathered by a shuffle):
	// no partial state merges.
	Median   // of the non-null values, as float64; null for none
	Quantile // the q-quantile, interpolated linearly as pandas; as float64
	First    // the group's first non-null value in the rows' order
	Last     // the group's last non-null value
	Nunique  // distinct non-null values
)

// aggDesc describes one aggregation, once: its name, the columns it
// reads, the kinds it takes, its state and answer types, and either its
// three steps as a tree reduction (partial, merge, final) or, for a
// holistic one, its kernel over a group's rows (whole). Partial reads its columns widened (Widen;
// WidenFloat where floats say averages and spreads), so an entry's steps
// see int64, float64 or, for Count, any column.
type aggDesc struct {
	name    string
	inputs  int                                      // columns read: 0 (Size), 1, or 2 (Corr)
	accepts func(Kind) bool                          // the input kinds it takes; nil: any
	wants   string                                   // what it takes, for the error
	floats  bool                                     // reads its input as floats (decimals scaled)
	int32s  bool                                     // reads an int32 input as it is, not widened
	result  func(wide arrow.DataType) arrow.DataType // the answer's type, of the widened input's
	keeps   bool                                     // an integer-like input's answer keeps its logical type
	states  []arrow.DataType                         // the state's types; nil: the answer's alone
	oneRow  OneRow                                   // a group of one row's state, uncomputed
	gpu     bool                                     // the GPU has a partial for it (int64 and float64 without nulls)
	same    bool                                     // the answer has the input's own type (First, Last)
	zero    bool                                     // its answer over no rows is 0, not null
	// whole is a holistic aggregation's kernel: each group's answer from
	// the rows grouped by ids (-1: dropped) into n groups; q is Quantile's
	// fraction.
	whole   func(col arrow.Array, ids []int32, n int, q float64) (arrow.Array, error)
	partial func(cols []arrow.Array, ids []int32, n int) []arrow.Array
	merge   func(states [][]arrow.Array, ids [][]int32, n int) []arrow.Array
	final   func(state []arrow.Array) arrow.Array
}

var (
	// The kinds each takes are the type table's (logical.go).
	numeric   = func(k Kind) bool { return k.Logical().Numeric }
	orderable = func(k Kind) bool { return k.Logical().Ordered }
	summable  = func(k Kind) bool { return k.Logical().Additive }
	// keepWide: an integer-like input answers in int64, others in float64.
	keepWide = func(w arrow.DataType) arrow.DataType { return w }
	// extremeType: a string's extreme is a plain string, of a dictionary's
	// values too.
	extremeType = func(w arrow.DataType) arrow.DataType {
		if w.ID() == arrow.DICTIONARY {
			return String
		}
		return w
	}
	alwaysInt = func(arrow.DataType) arrow.DataType { return Int64 }
	alwaysF64 = func(arrow.DataType) arrow.DataType { return Float64 }
	moments   = []arrow.DataType{Int64, Float64, Float64} // count, mean, m2
)

// aggs describes every AggFunc, indexed by it.
var aggs = [...]aggDesc{
	Sum: {name: "sum", inputs: 1, zero: true, accepts: summable, wants: "a numeric or duration column", result: keepWide, int32s: true, keeps: true, oneRow: OneRowValue, gpu: true,
		partial: partialSum, merge: mergeSum, final: finalState},
	Mean: {name: "mean", inputs: 1, accepts: numeric, wants: "a numeric column", floats: true, result: alwaysF64, oneRow: OneRowFloatMean, gpu: true,
		states: []arrow.DataType{Float64, Int64}, partial: partialMean, merge: mergeMeans, final: finalMean},
	Count: {name: "count", inputs: 1, zero: true, result: alwaysInt, oneRow: OneRowCount, gpu: true, partial: partialCount, merge: mergeSums, final: finalState},
	Size:  {name: "size", zero: true, result: alwaysInt, oneRow: OneRowCount, gpu: true, partial: partialSize, merge: mergeSums, final: finalState},
	Min: {name: "min", inputs: 1, accepts: orderable, wants: "an ordered column (a number, date, timestamp, duration, string or bool)", result: extremeType,
		keeps: true, oneRow: OneRowValue, gpu: true, partial: partialExtreme(true), merge: mergeExtremes(true), final: finalState},
	Max: {name: "max", inputs: 1, accepts: orderable, wants: "an ordered column (a number, date, timestamp, duration, string or bool)", result: extremeType,
		keeps: true, oneRow: OneRowValue, gpu: true, partial: partialExtreme(false), merge: mergeExtremes(false), final: finalState},
	Var: {name: "var", inputs: 1, accepts: numeric, wants: "a numeric column", floats: true, result: alwaysF64,
		states: moments, partial: partialMoments, merge: mergeMoments, final: finalSpread(false)},
	Std: {name: "std", inputs: 1, accepts: numeric, wants: "a numeric column", floats: true, result: alwaysF64,
		states: moments, partial: partialMoments, merge: mergeMoments, final: finalSpread(true)},
	Corr: {name: "corr", inputs: 2, accepts: numeric, wants: "numeric columns", floats: true, result: alwaysF64,
		states:  []arrow.DataType{Int64, Float64, Float64, Float64, Float64, Float64}, // count, mean x, mean y, m2 x, m2 y, co-moment
		partial: partialCorr, merge: mergeCorr, final: finalCorr},
	Median: {name: "median", inputs: 1, accepts: numeric, wants: "a numeric column", floats: true, result: alwaysF64,
		whole: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) { return GroupMedian(c, ids, n) }},
	Quantile: {name: "quantile", inputs: 1, accepts: numeric, wants: "a numeric column", floats: true, result: alwaysF64, whole: GroupQuantile},
	First: {name: "first", inputs: 1, same: true,
		whole: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return GroupFirst(c, ids, n), nil
		}},
	Last: {name: "last", inputs: 1, same: true,
		whole: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return GroupLast(c, ids, n), nil
		}},
	Nunique: {name: "nunique", inputs: 1, zero: true, result: alwaysInt,
		whole: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return GroupNunique(c, ids, n), nil
		}},
}

func (f AggFunc) String() string { return aggs[f].name }

// AggFuncs lists every aggregation of the table, in its order.
func AggFuncs() []AggFunc {
	out := make([]AggFunc, len(aggs))
	for f := range aggs {
		out[f] = AggFunc(f)
	}
	return out
}

// ParseAggFunc maps a name such as "sum" to its AggFunc.
func ParseAggFunc(name string) (AggFunc, error) {
	for f := range aggs {
		if aggs[f].name == name {
			return AggFunc(f), nil
		}
	}
	return 0, fmt.Errorf("unknown aggregation %q", name)
}

// Inputs is how many columns f reads: 0 for Size, 2 for Corr, else 1.
func (f AggFunc) Inputs() int { return aggs[f].inputs }

// CheckInput reports whether f applies to a column of kind k.
func (f AggFunc) CheckInput(k Kind) error {
	if d := aggs[f]; d.accepts != nil && !d.accepts(k) {
		return fmt.Errorf("%s needs %s, not %s", f, d.wants, k)
	}
	return nil
}

// ResultType is the type of f's answer over a column of type t, as the
// kernels compute it: sums, minima and maxima of integer-like columns
// (integers, dates, timestamps, durations, decimals up to 18 digits as
// their unscaled values) are int64, which the caller retypes to the
// logical type; of strings and bools their own type; the rest float64
// (counts int64).
func (f AggFunc) ResultType(t arrow.DataType) arrow.DataType {
	if aggs[f].same {
		return t
	}
	w := arrow.DataType(Float64)
	if t != nil {
		switch k, _ := KindOf(t); {
		case WideType(t).ID() == arrow.INT64:
			w = Int64
		case k == KindString:
			w = String // a minimum or maximum of strings
		case k == KindBool:
			w = Bool // of bools
		}
	}
	return aggs[f].result(w)
}

// LogicalResultType is the logical type of f's answer over a column of
// type t: ResultType's, but where f keeps its input's type (a sum, a
// minimum, a maximum) an integer-like input's answer is of its logical
// type, a date's a date, a decimal's a decimal (a sum one of 18 digits).
func (f AggFunc) LogicalResultType(t arrow.DataType) arrow.DataType {
	out := f.ResultType(t)
	if out.ID() != arrow.INT64 || !aggs[f].keeps {
		return out
	}
	switch t := t.(type) {
	case *arrow.Decimal128Type:
		if f == Sum {
			return &arrow.Decimal128Type{Precision: 18, Scale: t.Scale}
		}
		return t
	case *arrow.Date32Type, *arrow.TimestampType, *arrow.DurationType:
		return t
	}
	return out
}

// OneRow is what the partial state of a group of one row is, without
// computing it, for the aggregations that know (rows that are each their
// own group: a grouping by a unique key).
type OneRow uint8

const (
	OneRowComputed  OneRow = iota // computed as any group's
	OneRowValue                   // the row's value (a sum, a minimum, a maximum of a column without nulls)
	OneRowCount                   // one (a count of a column without nulls, a size)
	OneRowFloatMean               // a float's value and one (a mean's sum and count)
)

// ZeroOverNothing reports whether f's answer over no rows is 0 (a sum,
// count, size or distinct count), not null.
func (f AggFunc) ZeroOverNothing() bool { return aggs[f].zero }

// Holistic reports whether f needs a group's rows together (Whole
// computes it) rather than reducing as a tree (Partial, Merge, Final).
func (f AggFunc) Holistic() bool { return aggs[f].whole != nil }

// Whole computes a holistic f over col for rows grouped by ids (-1:
// dropped) into n groups; q is Quantile's fraction. A numeric one reads
// integers of every width and decimals at their value, as float64.
func Whole(f AggFunc, col arrow.Array, ids []int32, n int, q float64) (arrow.Array, error) {
	d := aggs[f]
	if d.whole == nil {
		panic(fmt.Sprintf("kernel: %s is not holistic", f))
	}
	if d.floats {
		col = WidenFloat(col)
		defer col.Release()
	}
	return d.whole(col, ids, n, q)
}

// OneRow is what f's state of a one-row group is.
func (f AggFunc) OneRow() OneRow { return aggs[f].oneRow }

// OnGPU reports whether the GPU computes f's partial (of int64 and float64
// columns without nulls).
func (f AggFunc) OnGPU() bool { return aggs[f].gpu }

// StateTypes are the types of f's partial state columns over type t.
func (f AggFunc) StateTypes(t arrow.DataType) []arrow.DataType {
	if st := aggs[f].states; st != nil {
		return st
	}
	return []arrow.DataType{f.ResultType(t)}
}

// ErrOverflow is the error of an integer sum (of integers, decimals as
// their unscaled values, or durations) that passes the range of int64: it
// fails rather than wraps.
var ErrOverflow = errors.New("the sum passes the range of a 64-bit integer (of a decimal: 18 digits); cast the column to float64 to sum it approximately")

// overflowed turns the panic of a sum that overflowed, or of a value out
// of the range kernels compute in (RangeError), into *err.
func overflowed(err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(error); ok && IsDataFault(e) {
			*err = e
			return
		}
		panic(r)
	}
}

// IsDataFault reports whether a kernel's panic value err is a fault of
// the data (a sum past int64, a uint64 past int64's range), which callers
// report as an error, not as a bug.
func IsDataFault(err error) bool {
	var re *RangeError
	return errors.Is(err, ErrOverflow) || errors.As(err, &re)
}

// Partial computes f's state columns over cols (f.Inputs() of them) for
// rows grouped by ids (-1: dropped) into n groups; ErrOverflow where an
// integer sum passes int64's range.
func Partial(f AggFunc, cols []arrow.Array, ids []int32, n int) (out []arrow.Array, err error) {
	defer overflowed(&err)
	d := aggs[f]
	if len(cols) != d.inputs {
		panic(fmt.Sprintf("kernel: %s reads %d columns, not %d", f, d.inputs, len(cols)))
	}
	wide := make([]arrow.Array, len(cols))
	for i, c := range cols {
		switch {
		case d.floats:
			wide[i] = WidenFloat(c)
		case d.accepts == nil: // any column, its values not read (Count)
			wide[i] = widenKey(c)
		case d.int32s && c.DataType().ID() == arrow.INT32:
			// Summed as read: a widened copy cost more than the sum.
			c.Retain()
			wide[i] = c
		default:
			wide[i] = Widen(c)
		}
		defer wide[i].Release()
	}
	return d.partial(wide, ids, n), nil
}

// Partials computes several aggregations' states over the same groups, as
// Partial each, with what they share computed once: each group's count of
// rows, which every mean of a column without nulls holds (db-benchmark's
// q4 counted its 100 groups' rows three times), and the passes over the
// group ids of such means and of sums of float64 columns without nulls
// (TPC-H q1's four sums and three means of four groups). failed is the
// index of the aggregation that err is about.
func Partials(fs []AggFunc, cols [][]arrow.Array, ids []int32, n int) (out [][]arrow.Array, failed int, err error) {
	out = make([][]arrow.Array, len(fs))
	var shared []int // the means and float sums of columns without nulls
	var xs []arrow.Array
	means := false
	for i, f := range fs {
		switch {
		case f == Mean && cols[i][0].NullN() == 0:
			means = true
		case f == Sum && cols[i][0].NullN() == 0 && cols[i][0].DataType().ID() == arrow.FLOAT64:
		default:
			continue
		}
		shared, xs = append(shared, i), append(xs, cols[i][0])
	}
	if len(shared) > 0 {
		sums, rows := floatSums(xs, ids, n, means)
		for j, i := range shared {
			out[i] = []arrow.Array{sums[j]}
			if fs[i] == Mean {
				rows.Retain()
				out[i] = append(out[i], rows)
			}
		}
		if rows != nil {
			rows.Release()
		}
	}
	for i, f := range fs {
		if out[i] != nil {
			continue
		}
		if out[i], err = Partial(f, cols[i], ids, n); err != nil {
			for _, st := range out {
				for _, c := range st {
					c.Release()
				}
			}
			return nil, i, err
		}
	}
	return out, 0, nil
}

// floatSums sums columns without nulls by group as float64, as meanBy and
// sumBy do, and counts each group's rows where count asks (nil rows
// otherwise). Of few groups, a chunk of rows goes at a time through every
// column and the count, so that the chunk's group ids are read from the L1
// cache after the first; each row goes to the bank it would alone, so the
// sums round as a column's alone.
func floatSums(cols []arrow.Array, ids []int32, n int, count bool) (sums []arrow.Array, rows arrow.Array) {
	ints, floats := make([][]int64, len(cols)), make([][]float64, len(cols))
	for j, c := range cols {
		wide := WidenFloat(c)
		defer wide.Release()
		if a, ok := wide.(*array.Int64); ok {
			ints[j] = a.Int64Values()[:len(ids)]
		} else {
			floats[j], _ = Col(wide).floats()
			floats[j] = floats[j][:len(ids)]
		}
	}
	out := make([]arrow.Array, len(cols))
	if n > fewGroups {
		for j := range cols {
			if ints[j] != nil {
				out[j] = NewFloat64(floatSumBy(ints[j], ids, n), nil)
			} else {
				out[j] = NewFloat64(floatSumBy(floats[j], ids, n), nil)
			}
		}
		if count {
			rows = NewInt64(countBy(nil, 0, ids, n), nil)
		}
		return out, rows
	}
	counts := newBanked[int64](n)
	banks := make([]banked[float64], len(cols))
	for j := range banks {
		banks[j] = newBanked[float64](n)
	}
	const chunk = 4096 // a multiple of the banks
	for lo := 0; lo < len(ids); lo += chunk {
		hi := min(lo+chunk, len(ids))
		for j, b := range banks {
			if ints[j] != nil {
				bankAdd(b, ints[j][lo:hi], ids[lo:hi], 1)
			} else {
				bankAdd(b, floats[j][lo:hi], ids[lo:hi], 1)
			}
		}
		if count {
			bankAdd[int64, int64](counts, nil, ids[lo:hi], 1)
		}
	}
	for j, b := range banks {
		out[j] = NewFloat64(b.total(n), nil)
	}
	if count {
		rows = NewInt64(counts.total(n), nil)
	}
	return out, rows
}

// Merge merges f's state columns from several chunks into n groups:
// states[c] are chunk c's state columns and ids[c] the group of each of
// its rows, negative for a row in no group (a null key), which is left out;
// ErrOverflow where an integer sum passes int64's range.
func Merge(f AggFunc, states [][]arrow.Array, ids [][]int32, n int) (out []arrow.Array, err error) {
	all, _, err := MergeAll([]AggFunc{f}, [][][]arrow.Array{states}, ids, n)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// MergeAll merges several aggregations' state chunks (states[i], the
// i-th's) over the same groups, as Merge each, with the chunks holding
// rows in no group found once for all. failed is the index of the
// aggregation that err is about.
func MergeAll(fs []AggFunc, states [][][]arrow.Array, ids [][]int32, n int) (out [][]arrow.Array, failed int, err error) {
	ungrouped := make([]bool, len(ids))
	for c, g := range ids {
		ungrouped[c] = anyNegative(g)
	}
	out = make([][]arrow.Array, len(fs))
	for i, f := range fs {
		if out[i], err = mergeGrouped(f, states[i], ids, ungrouped, n); err != nil {
			for _, st := range out[:i] {
				for _, c := range st {
					c.Release()
				}
			}
			return nil, i, err
		}
	}
	return out, 0, nil
}

// mergeGrouped is Merge with the chunks that hold rows in no group known.
func mergeGrouped(f AggFunc, states [][]arrow.Array, ids [][]int32, ungrouped []bool, n int) (out []arrow.Array, err error) {
	defer overflowed(&err)
	states, ids, release := grouped(states, ids, ungrouped)
	defer release()
	return aggs[f].merge(states, ids, n), nil
}

// grouped returns the chunks with their rows in no group left out, copying
// only the chunks that ungrouped says have such rows, and a function that
// releases the copies.
func grouped(states [][]arrow.Array, ids [][]int32, ungrouped []bool) ([][]arrow.Array, [][]int32, func()) {
	var made []arrow.Array
	copied := false
	release := func() {
		for _, a := range made {
			a.Release()
		}
	}
	for c, g := range ids {
		if !ungrouped[c] {
			continue
		}
		if !copied {
			states, ids, copied = slices.Clone(states), slices.Clone(ids), true
		}
		var rows, kept []int32
		for i, id := range g {
			if id >= 0 {
				rows, kept = append(rows, int32(i)), append(kept, id)
			}
		}
		cols := make([]arrow.Array, len(states[c]))
		for i, col := range states[c] {
			cols[i] = Take(col, rows)
			made = append(made, cols[i])
		}
		states[c], ids[c] = cols, kept
	}
	return states, ids, release
}

// anyNegative reports whether any of ids is negative (a row in no group),
// by one OR of them all: no branch a row, where a test of each row's cost
// a combine of 1e8 rows 0.3 s.
func anyNegative(ids []int32) bool {
	acc := int32(0)
	for _, id := range ids {
		acc |= id
	}
	return acc < 0
}

// Final turns f's state columns into its answer.
func Final(f AggFunc, state []arrow.Array) arrow.Array {
	out := FinalOrNull(f, state)
	if !aggs[f].zero || out.NullN() == 0 {
		return out
	}
	// A group with no value: 0 (a sum's, pandas' min_count=0).
	defer out.Release()
	switch a := out.(type) {
	case *array.Int64:
		return NewInt64(zeroNulls(a, a.Int64Values()), nil)
	case *array.Float64:
		return NewFloat64(zeroNulls(a, a.Float64Values()), nil)
	}
	panic(fmt.Sprintf("kernel: %s's answer is %s", f, out.DataType()))
}

// zeroNulls is a copy of a's values with 0 where a is null.
func zeroNulls[T int64 | float64](a arrow.Array, vals []T) []T {
	valid, off := Validity(a)
	v := slices.Clone(vals)
	for i := range v {
		if !IsValid(valid, off, i) {
			v[i] = 0
		}
	}
	return v
}

// FinalOrNull is Final with a group of no value null for every
// aggregation: SQL's sum of no values is null.
func FinalOrNull(f AggFunc, state []arrow.Array) arrow.Array {
	for i, c := range state {
		if _, ones := c.(*array.Null); ones {
			state = slices.Clone(state)
			state[i] = NewInt64(onesOf(c.Len()), nil)
			defer state[i].Release()
		}
	}
	return aggs[f].final(state)
}

// OneEach is a count state of one for each of n rows (each row its own
// group, its value not null): a column of the null type, which holds no
// buffer to fill or move; the merges add one a row for it, and Final reads
// it as ones.
func OneEach(n int) arrow.Array { return array.NewNull(n) }

func onesOf(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// ---- partials

func partialSize(_ []arrow.Array, ids []int32, n int) []arrow.Array {
	if n <= fewGroups {
		return []arrow.Array{NewInt64(countFew(nil, 0, ids, n), nil)}
	}
	counts := make([]int64, n)
	for _, g := range ids {
		if g >= 0 {
			counts[g]++
		}
	}
	return []arrow.Array{NewInt64(counts, nil)}
}

func partialCount(cols []arrow.Array, ids []int32, n int) []arrow.Array {
	valid, off := Validity(cols[0])
	return []arrow.Array{NewInt64(countBy(valid, off, ids, n), nil)}
}

func countBy(valid []byte, off int, ids []int32, n int) []int64 {
	if n <= fewGroups {
		return countFew(valid, off, ids, n)
	}
	counts := make([]int64, n)
	for i, g := range ids {
		if g >= 0 && IsValid(valid, off, i) {
			counts[g]++
		}
	}
	return counts
}

// partialSum adds each group's values; its state is null for a group
// with no value (only where the column holds nulls: every group of a
// chunk has a row), which Final makes 0 and FinalOrNull keeps.
func partialSum(cols []arrow.Array, ids []int32, n int) []arrow.Array {
	valid, off := Validity(cols[0])
	var seen []byte
	if valid != nil {
		seen = make([]byte, (n+7)/8)
		for i, g := range ids {
			if g >= 0 && IsValid(valid, off, i) {
				seen[g>>3] |= 1 << (g & 7)
			}
		}
	}
	switch a := cols[0].(type) {
	case *array.Int64:
		return []arrow.Array{NewInt64(sumIntsBy(a.Int64Values(), valid, off, ids, n), seen)}
	case *array.Int32:
		return []arrow.Array{NewInt64(sumIntsBy(a.Int32Values(), valid, off, ids, n), seen)}
	}
	x, _ := Col(cols[0]).floats()
	return []arrow.Array{NewFloat64(sumBy(x, valid, off, ids, n), seen)}
}

func partialExtreme(isMin bool) func([]arrow.Array, []int32, int) []arrow.Array {
	return func(cols []arrow.Array, ids []int32, n int) []arrow.Array {
		valid, off := Validity(cols[0])
		if a, ok := cols[0].(*array.Int64); ok {
			vals, has := extremeBy(a.Int64Values(), valid, off, ids, n, isMin)
			return []arrow.Array{NewInt64(vals, has)}
		}
		if b, ok := cols[0].(*array.Boolean); ok { // false < true
			vals, has := extremeBy(boolInts(b), valid, off, ids, n, isMin)
			return []arrow.Array{intBools(vals, has)}
		}
		if d, ok := cols[0].(*array.Dictionary); ok {
			if out := extremeDictionary(d, ids, n, isMin); out != nil {
				return []arrow.Array{out}
			}
		}
		if get, ok := stringsOf(cols[0]); ok {
			return []arrow.Array{extremeStrings([]func(int) string{get}, cols, [][]int32{ids}, n, isMin)}
		}
		x, _ := Col(cols[0]).floats()
		vals, has := extremeBy(x, valid, off, ids, n, isMin)
		return []arrow.Array{NewFloat64(vals, has)}
	}
}

// boolInts are a bool column's values as 0 and 1, null rows' too.
func boolInts(b *array.Boolean) []int64 {
	out := make([]int64, b.Len())
	for i := range out {
		if b.Value(i) {
			out[i] = 1
		}
	}
	return out
}

// intBools is boolInts undone.
func intBools(vals []int64, valid []byte) *array.Boolean {
	out := make([]uint8, len(vals))
	for i, v := range vals {
		out[i] = uint8(v)
	}
	return NewBool(out, valid)
}

func partialMean(cols []arrow.Array, ids []int32, n int) []arrow.Array {
	valid, off := Validity(cols[0])
	var sums []float64
	var counts []int64
	if a, ok := cols[0].(*array.Int64); ok {
		// Converted as summed: a float64 copy of the column cost more than
		// the sums (db-benchmark q4 at 1e8 rows, 0.7 of 1.2 s of CPU).
		sums, counts = meanBy(a.Int64Values(), valid, off, ids, n)
	} else {
		x, _ := Col(cols[0]).floats()
		sums, counts = meanBy(x, valid, off, ids, n)
	}
	return []arrow.Array{NewFloat64(sums, nil), NewInt64(counts, nil)}
}

// partialMoments is (count, mean, m2) in two passes: the mean of each
// group, then the squares around it.
func partialMoments(cols []arrow.Array, ids []int32, n int) []arrow.Array {
	valid, off := Validity(cols[0])
	if a, ok := cols[0].(*array.Int64); ok {
		return momentsBy(a.Int64Values(), valid, off, ids, n)
	}
	x, _ := Col(cols[0]).floats()
	return momentsBy(x, valid, off, ids, n)
}

// momentsBy is partialMoments over x, each value converted to float64 as
// it is read (a converted copy of an integer column cost more than the
// sums).
func momentsBy[T int64 | float64](x []T, valid []byte, off int, ids []int32, n int) []arrow.Array {
	means, counts := meanBy(x, valid, off, ids, n)
	for g := range means {
		if counts[g] > 0 {
			means[g] /= float64(counts[g])
		}
	}
	m2 := make([]float64, n)
	for i, g := range ids {
		if g >= 0 && IsValid(valid, off, i) {
			d := float64(x[i]) - means[g]
			m2[g] += d * d
		}
	}
	return []arrow.Array{NewInt64(counts, nil), NewFloat64(means, nil), NewFloat64(m2, nil)}
}

// partialCorr is Corr's state over the rows where both columns have a
// value, in two passes as partialMoments.
func partialCorr(cols []arrow.Array, ids []int32, n int) []arrow.Array {
	if a, ok := cols[0].(*array.Int64); ok {
		return corrWithX(a.Int64Values(), cols, ids, n)
	}
	xs, _ := Col(cols[0]).floats()
	return corrWithX(xs, cols, ids, n)
}

func corrWithX[X int64 | float64](xs []X, cols []arrow.Array, ids []int32, n int) []arrow.Array {
	if a, ok := cols[1].(*array.Int64); ok {
		return corrBy(xs, a.Int64Values(), cols, ids, n)
	}
	ys, _ := Col(cols[1]).floats()
	return corrBy(xs, ys, cols, ids, n)
}

// corrBy is partialCorr over xs and ys, converted to float64 as read.
func corrBy[X, Y int64 | float64](xs []X, ys []Y, cols []arrow.Array, ids []int32, n int) []arrow.Array {
	xv, xo := Validity(cols[0])
	yv, yo := Validity(cols[1])
	both := func(i int) bool { return IsValid(xv, xo, i) && IsValid(yv, yo, i) }
	// The means are each group's first pair plus the mean difference from
	// it (shifted data), so that a column constant in a group has its value
	// as its mean exactly, and no variance: (0.1+0.1+0.1)/3 is not 0.1, and
	// the few ulps left made a correlation of a constant column a number
	// near 0 rather than null.
	counts := make([]int64, n)
	mx, my := make([]float64, n), make([]float64, n)
	kx, ky := make([]float64, n), make([]float64, n)
	for i, g := range ids {
		if g >= 0 && both(i) {
			x, y := float64(xs[i]), float64(ys[i])
			if counts[g] == 0 {
				kx[g], ky[g] = x, y
			}
			counts[g]++
			mx[g] += x - kx[g]
			my[g] += y - ky[g]
		}
	}
	for g, k := range counts {
		if k > 0 {
			mx[g] = kx[g] + mx[g]/float64(k)
			my[g] = ky[g] + my[g]/float64(k)
		}
	}
	m2x, m2y, cxy := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, g := range ids {
		if g >= 0 && both(i) {
			dx, dy := float64(xs[i])-mx[g], float64(ys[i])-my[g]
			m2x[g] += dx * dx
			m2y[g] += dy * dy
			cxy[g] += dx * dy
		}
	}
	return []arrow.Array{NewInt64(counts, nil), NewFloat64(mx, nil), NewFloat64(my, nil),
		NewFloat64(m2x, nil), NewFloat64(m2y, nil), NewFloat64(cxy, nil)}
}

// sumIntsBy is sumBy of integers, which panics with ErrOverflow where a
// sum passes int64's range: over few groups where a group's whole sum
// does (sumIntsFew), over many where its running sum does, each
// addition's overflow bit (the sign of (a^s)&(b^s)) gathered without a
// branch and checked once.
func sumIntsBy[T int32 | int64](x []T, valid []byte, off int, ids []int32, n int) []int64 {
	if n == 1 && valid == nil && alloc.AreZeros(ids) {
		return []int64{sumInts(x[:len(ids)])}
	}
	if n <= fewGroups {
		return sumIntsFew(x, valid, off, ids, n)
	}
	sums := make([]int64, n)
	var ovf int64
	for i, g := range ids {
		if g >= 0 && (valid == nil || IsValid(valid, off, i)) {
			var o int64
			sums[g], o = addOverflow(sums[g], int64(x[i]))
			ovf |= o
		}
	}
	if ovf < 0 {
		panic(ErrOverflow)
	}
	return sums
}

// sumIntsFew is sumIntsBy of few groups. Each value adds its low 32 bits
// to a group's low sum and its high 32 bits, signed, to its high sum, in
// four banks (row i's in bank i%4) so that adds to one group do not wait
// on each other: neither sum can pass int64's range under 2^31 rows, so
// the total (high<<32 + low, in 128 bits) is exact in any order and is
// checked once. (A running int64 sum chained through memory took 2.5 ns
// a value on a Xeon whose copy takes 0.6, and its overflow depended on
// the order of the rows.)
func sumIntsFew[T int32 | int64](x []T, valid []byte, off int, ids []int32, n int) []int64 {
	w := n + 1 // slot g+1 for group g, slot 0 for rows in no group or null
	all := make([][2]int64, 4*w)
	banks := [4][][2]int64{all[:w], all[w : 2*w], all[2*w : 3*w], all[3*w:]}
	eachChunk(ids, valid, off, func(slots []int32, from int, shift int32) {
		wideBankAdd(banks, x[from:from+len(slots)], slots, shift)
	})
	sums := make([]int64, n)
	for g := range sums {
		var t wide128
		for _, b := range banks {
			t.add(b[g+1][0])
			t.addWide(wide128{lo: uint64(b[g+1][1]) << 32, hi: b[g+1][1] >> 32})
		}
		sums[g] = t.int64()
	}
	return sums
}

// wideBankAdd adds x[i]'s low 32 bits into the first word of slot
// slots[i]+shift of bank i%4 and its high 32 bits, signed, into the
// second (a slot's two words side by side: four slices live in the loop,
// where eight spilled to the stack).
func wideBankAdd[T int32 | int64](banks [4][][2]int64, x []T, slots []int32, shift int32) {
	b0, b1, b2, b3 := banks[0], banks[1], banks[2], banks[3]
	x = x[:len(slots)]
	i := 0
	for ; i+4 <= len(slots); i += 4 {
		v0, v1, v2, v3 := int64(x[i]), int64(x[i+1]), int64(x[i+2]), int64(x[i+3])
		s0, s1, s2, s3 := &b0[slots[i]+shift], &b1[slots[i+1]+shift], &b2[slots[i+2]+shift], &b3[slots[i+3]+shift]
		s0[0], s0[1] = s0[0]+v0&0xffffffff, s0[1]+v0>>32
		s1[0], s1[1] = s1[0]+v1&0xffffffff, s1[1]+v1>>32
		s2[0], s2[1] = s2[0]+v2&0xffffffff, s2[1]+v2>>32
		s3[0], s3[1] = s3[0]+v3&0xffffffff, s3[1]+v3>>32
	}
	for ; i < len(slots); i++ {
		v, s := int64(x[i]), &b0[slots[i]+shift]
		s[0], s[1] = s[0]+v&0xffffffff, s[1]+v>>32
	}
}

// sumInts is the sum of x, in four 128-bit running sums so that additions
// do not wait on each other (Frame.Agg's one group); it panics with
// ErrOverflow where the sum passes int64's range.
func sumInts[T int32 | int64](x []T) int64 {
	var s0, s1, s2, s3 wide128
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0.add(int64(x[i]))
		s1.add(int64(x[i+1]))
		s2.add(int64(x[i+2]))
		s3.add(int64(x[i+3]))
	}
	for ; i < len(x); i++ {
		s0.add(int64(x[i]))
	}
	s0.addWide(s1)
	s0.addWide(s2)
	s0.addWide(s3)
	return s0.int64()
}

// wide128 is a 128-bit sum of int64s: its low word and the carries and
// signs above it. It is exact whatever the order of the additions, where
// an int64's running sum can pass its range on the way to a total that
// fits.
type wide128 struct {
	lo uint64
	hi int64
}

func (w *wide128) add(v int64) {
	var c uint64
	w.lo, c = bits.Add64(w.lo, uint64(v), 0)
	w.hi += int64(c) + v>>63
}

func (w *wide128) addWide(v wide128) {
	var c uint64
	w.lo, c = bits.Add64(w.lo, v.lo, 0)
	w.hi += v.hi + int64(c)
}

// int64 is the sum, which panics with ErrOverflow past int64's range.
func (w wide128) int64() int64 {
	if w.hi != int64(w.lo)>>63 {
		panic(ErrOverflow)
	}
	return int64(w.lo)
}

// addOverflow is a + b, wrapped, and the addition's overflow bit (the
// sign of (a^s)&(b^s)) for the caller to OR into a local: through a
// pointer, the OR went to memory each row (a grouped integer sum of 1,000
// groups took 2.7–2.9 ns a value against 1.5–2.1).
func addOverflow(a, b int64) (s, ovf int64) {
	s = a + b
	return s, (a ^ s) & (b ^ s)
}

func sumBy(x []float64, valid []byte, off int, ids []int32, n int) []float64 {
	if n <= fewGroups {
		return sumFew(x, valid, off, ids, n)
	}
	sums := make([]float64, n)
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

// meanBy is a mean's state by group in one pass: the sum of x's valid rows
// as float64, each converted as it is added, and their count.
func meanBy[T int64 | float64](x []T, valid []byte, off int, ids []int32, n int) ([]float64, []int64) {
	if n <= fewGroups {
		return meanFew(x, valid, off, ids, n)
	}
	sums, counts := make([]float64, n), make([]int64, n)
	if valid == nil {
		for i, g := range ids {
			if g >= 0 {
				sums[g] += float64(x[i])
				counts[g]++
			}
		}
		return sums, counts
	}
	for i, g := range ids {
		if g >= 0 && IsValid(valid, off, i) {
			sums[g] += float64(x[i])
			counts[g]++
		}
	}
	return sums, counts
}

// floatSumBy is meanBy's and sumBy's sums of a column without nulls, of
// many groups.
func floatSumBy[T int64 | float64](x []T, ids []int32, n int) []float64 {
	sums := make([]float64, n)
	for i, g := range ids {
		if g >= 0 {
			sums[g] += float64(x[i])
		}
	}
	return sums
}

// extremeBy returns each group's min (or max) and a validity bitmap that is
// unset for groups without a value.
func extremeBy[T int64 | float64](x []T, valid []byte, off int, ids []int32, n int, isMin bool) ([]T, []byte) {
	var vals []T
	switch {
	case n <= fewGroups:
		vals = extremeFew(x, valid, off, ids, n, isMin)
	case n <= farGroups:
		vals = extremeMany(x, valid, off, ids, n, isMin)
	default:
		return extremeSeen(x, valid, off, ids, n, isMin)
	}
	return vals, farExtremes(vals, x, valid, off, ids, isMin)
}

// farGroups is the most groups whose extremes start at the far end: past
// it the groups' slots leave the caches, and a second pass over the rows
// for groups still at the far end (many, where many groups have no value)
// costs more than a byte a group saying which have one (extremeSeen: 12
// ns a value by a million groups at random, 21 with the second pass).
const farGroups = 1 << 16

// extremeSeen is extremeBy with a byte a group saying whether it has a
// value yet.
func extremeSeen[T int64 | float64](x []T, valid []byte, off int, ids []int32, n int, isMin bool) ([]T, []byte) {
	vals := make([]T, n)
	seen := make([]uint8, n)
	for i, g := range ids {
		if g < 0 || !IsValid(valid, off, i) {
			continue
		}
		v := x[i]
		// A NaN counts only where nothing else comes: NaNs are left out
		// as pandas leaves them, whatever order the rows come in.
		if seen[g] == 0 || vals[g] != vals[g] || (isMin && v < vals[g]) || (!isMin && v > vals[g]) {
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

// ---- merges

// mergeSums adds int64 or float64 states.
func mergeSums(states [][]arrow.Array, ids [][]int32, n int) []arrow.Array {
	if _, ok := states[0][0].(*array.Float64); !ok { // int64, or counts of one a row
		return []arrow.Array{NewInt64(addIntStates(states, ids, n), nil)}
	}
	return []arrow.Array{NewFloat64(addFloatStates(states, ids, n), nil)}
}

// mergeSum adds sums' states (mergeSums); a group is null where every
// state of it is (it has no value).
func mergeSum(states [][]arrow.Array, ids [][]int32, n int) []arrow.Array {
	var seen []byte
	for _, st := range states {
		if st[0].NullN() > 0 {
			seen = make([]byte, (n+7)/8)
			break
		}
	}
	if seen != nil {
		for c, st := range states {
			valid, off := Validity(st[0])
			for i, g := range ids[c] {
				if valid == nil || IsValid(valid, off, i) {
					seen[g>>3] |= 1 << (g & 7)
				}
			}
		}
	}
	if _, ok := states[0][0].(*array.Float64); !ok {
		return []arrow.Array{NewInt64(addIntStates(states, ids, n), seen)}
	}
	return []arrow.Array{NewFloat64(addFloatStates(states, ids, n), seen)}
}

// addIntStates is addStates of int64 states, which panics with ErrOverflow
// where a sum passes int64's range (as sumIntsBy).
func addIntStates(states [][]arrow.Array, ids [][]int32, n int) []int64 {
	out := make([]int64, n)
	var ovf int64
	for c, st := range states {
		if _, ones := st[0].(*array.Null); ones {
			for _, g := range ids[c] {
				out[g]++
			}
			continue
		}
		v := valuesOf[int64](st[0])
		for i, g := range ids[c] {
			var o int64
			out[g], o = addOverflow(out[g], v[i])
			ovf |= o
		}
	}
	if ovf < 0 {
		panic(ErrOverflow)
	}
	return out
}

func addFloatStates(states [][]arrow.Array, ids [][]int32, n int) []float64 {
	out := make([]float64, n)
	for c, st := range states {
		v := st[0].(*array.Float64).Float64Values()
		for i, g := range ids[c] {
			out[g] += v[i]
		}
	}
	return out
}

func mergeExtremes(isMin bool) func([][]arrow.Array, [][]int32, int) []arrow.Array {
	return func(states [][]arrow.Array, ids [][]int32, n int) []arrow.Array {
		if _, ok := states[0][0].(*array.Int64); ok {
			return []arrow.Array{mergeExtreme[int64](states, ids, n, isMin)}
		}
		if _, ok := states[0][0].(*array.Boolean); ok {
			ints := make([][]arrow.Array, len(states))
			for c, st := range states {
				b := st[0].(*array.Boolean)
				ints[c] = []arrow.Array{NewInt64(boolInts(b), AlignedValid(b))}
			}
			m := mergeExtreme[int64](ints, ids, n, isMin).(*array.Int64)
			return []arrow.Array{intBools(m.Int64Values(), AlignedValid(m))}
		}
		if _, ok := stringsOf(states[0][0]); ok {
			gets, cols := make([]func(int) string, len(states)), make([]arrow.Array, len(states))
			for c, st := range states {
				if gets[c], ok = stringsOf(st[0]); !ok {
					panic(fmt.Sprintf("kernel: extreme states of strings and of %s", TypeName(st[0].DataType())))
				}
				cols[c] = st[0]
			}
			return []arrow.Array{extremeStrings(gets, cols, ids, n, isMin)}
		}
		return []arrow.Array{mergeExtreme[float64](states, ids, n, isMin)}
	}
}

func mergeMeans(states [][]arrow.Array, ids [][]int32, n int) []arrow.Array {
	sums, counts := make([]float64, n), make([]int64, n)
	for c, st := range states {
		s := st[0].(*array.Float64).Float64Values()
		if _, ones := st[1].(*array.Null); ones {
			for i, g := range ids[c] {
				sums[g] += s[i]
				counts[g]++
			}
			continue
		}
		k := st[1].(*array.Int64).Int64Values()
		for i, g := range ids[c] {
			sums[g] += s[i]
			counts[g] += k[i]
		}
	}
	return []arrow.Array{NewFloat64(sums, nil), NewInt64(counts, nil)}
}

// mergeMoments is Chan et al.'s parallel merge of (count, mean, m2).
func mergeMoments(states [][]arrow.Array, ids [][]int32, n int) []arrow.Array {
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
			means[g], m2[g] = MergeMoments(float64(na), means[g], m2[g], float64(nb), mu[i], sq[i])
			counts[g] = na + nb
		}
	}
	return []arrow.Array{NewInt64(counts, nil), NewFloat64(means, nil), NewFloat64(m2, nil)}
}

// MergeMoments merges two summaries of values, each its count, mean and
// sum of squared deviations from the mean (M2), by Chan et al.'s parallel
// formula: the variance's merge, of groupings here and of arrays' chunks
// (array's var and std).
func MergeMoments(na, ma, m2a, nb, mb, m2b float64) (mean, m2 float64) {
	if na == 0 {
		return mb, m2b
	}
	n := na + nb
	d := mb - ma
	return ma + d*nb/n, m2a + m2b + d*d*na*nb/n
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
			if seen[g] == 0 || vals[g] != vals[g] || (isMin && v < vals[g]) || (!isMin && v > vals[g]) { // NaNs: as extremeBy
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

// stringsOf returns a string column's values by row, plain or a
// dictionary of strings; false for a column of another type.
func stringsOf(a arrow.Array) (func(int) string, bool) {
	switch a := a.(type) {
	case *array.String:
		return a.Value, true
	case *array.Dictionary:
		d, ok := a.Dictionary().(*array.String)
		if !ok {
			return nil, false
		}
		return func(i int) string { return d.Value(a.GetValueIndex(i)) }, true
	}
	return nil, false
}

// extremeDictionary is extremeStrings of one column of int32 indices into
// a dictionary of strings: the dictionary's values are ranked once and
// each row compares its value's rank (a maximum of TPC-H's l_returnflag
// 0.54 → 0.2 s at SF10, where each row read its string). Nil for other
// dictionaries.
func extremeDictionary(a *array.Dictionary, ids []int32, n int, isMin bool) arrow.Array {
	dict, ok := a.Dictionary().(*array.String)
	codes, ok2 := a.Indices().(*array.Int32)
	if !ok || !ok2 {
		return nil
	}
	order := make([]int32, dict.Len()) // the values' positions in their order
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(dict.Value(int(x)), dict.Value(int(y))) })
	rank := make([]int32, dict.Len())
	for r, v := range order {
		rank[v] = int32(r)
	}
	best := minusOnes(n)
	valid, off := Validity(a)
	for i, g := range ids {
		if g < 0 || !IsValid(valid, off, i) {
			continue
		}
		r := rank[codes.Value(i)]
		if b := best[g]; b < 0 || isMin && r < b || !isMin && r > b {
			best[g] = r
		}
	}
	return groupStrings(n, func(g int) (string, bool) {
		if best[g] < 0 {
			return "", false
		}
		return dict.Value(int(order[best[g]])), true
	})
}

// extremeStrings is the least (isMin) or greatest string of each of n
// groups over chunks of rows: get[c] reads chunk c's values (cols[c]'s,
// whose nulls are left out), ids[c] gives each row's group (negative: in
// none); null where a group has no value. Strings order by their bytes,
// as DuckDB's and Polars' do.
func extremeStrings(get []func(int) string, cols []arrow.Array, ids [][]int32, n int, isMin bool) arrow.Array {
	best := make([]string, n)
	seen := make([]bool, n)
	for c, g := range ids {
		valid, off := Validity(cols[c])
		for i, id := range g {
			if id < 0 || !IsValid(valid, off, i) {
				continue
			}
			v := get[c](i)
			if !seen[id] || isMin && v < best[id] || !isMin && v > best[id] {
				best[id], seen[id] = v, true
			}
		}
	}
	return groupStrings(n, func(g int) (string, bool) { return best[g], seen[g] })
}

// groupStrings is a string column of a value for each of n groups, null
// where value says a group has none.
func groupStrings(n int, value func(g int) (string, bool)) arrow.Array {
	offsets := make([]int32, n+1)
	var data []byte
	has := make([]uint8, n)
	for g := range n {
		if v, ok := value(g); ok {
			data = append(data, v...)
			has[g] = 1
		}
		offsets[g+1] = int32(len(data))
	}
	return NewString(offsets, data, packValidIfNull(has))
}

// ---- finals

// finalState is the state itself: sums, counts, minima and maxima.
func finalState(state []arrow.Array) arrow.Array {
	state[0].Retain()
	return state[0]
}

func finalMean(state []arrow.Array) arrow.Array {
	s, k := state[0].(*array.Float64).Float64Values(), state[1].(*array.Int64).Int64Values()
	out, valid := make([]float64, len(s)), make([]uint8, len(s))
	for g := range out {
		if k[g] > 0 {
			out[g], valid[g] = s[g]/float64(k[g]), 1
		}
	}
	return NewFloat64(out, packValidIfNull(valid))
}

// finalSpread is the sample variance (ddof=1), or its root.
func finalSpread(root bool) func([]arrow.Array) arrow.Array {
	return func(state []arrow.Array) arrow.Array {
		k, m2 := state[0].(*array.Int64).Int64Values(), state[2].(*array.Float64).Float64Values()
		out, valid := make([]float64, len(k)), make([]uint8, len(k))
		for g := range out {
			if k[g] > 1 {
				out[g], valid[g] = m2[g]/float64(k[g]-1), 1
				if root {
					out[g] = math.Sqrt(out[g])
				}
			}
		}
		return NewFloat64(out, packValidIfNull(valid))
	}
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
