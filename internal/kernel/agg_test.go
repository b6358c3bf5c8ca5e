package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/alloc"
)

var allAggFuncs = []AggFunc{Sum, Mean, Count, Size, Min, Max, Var, Std}

// refGroup is what the reference keeps of a group: how many rows it has
// and its non-null values.
type refGroup struct {
	rows  int
	ints  []int64
	flts  []float64 // the values as float64, int or not
	isInt bool
}

// refAggregate groups every row by its keys, without chunks.
func refAggregate(keys []col, vals col) map[string]*refGroup {
	groups := map[string]*refGroup{}
	for i := 0; i < vals.len(); i++ {
		tuple, ok := keyTuple(keys, i)
		if !ok {
			continue
		}
		g := groups[tuple]
		if g == nil {
			g = &refGroup{isInt: vals.kind == KindInt}
			groups[tuple] = g
		}
		g.rows++
		if vals.valid[i] {
			if g.isInt {
				g.ints = append(g.ints, vals.ints[i])
			}
			g.flts = append(g.flts, asFloat(vals, i))
		}
	}
	return groups
}

// keyTuple names row i's keys; false if one is null.
func keyTuple(keys []col, i int) (string, bool) {
	tuple := make([]any, len(keys))
	for c, k := range keys {
		if tuple[c] = k.key(i); tuple[c] == nil {
			return "", false
		}
	}
	return fmt.Sprintf("%#v", tuple), true
}

// answer is f over g's values: the value and whether it is not null, as
// int64 or float64, and the size of the numbers it came from (for the
// float tolerance).
func (g *refGroup) answer(f AggFunc) (i int64, x float64, ok bool, scale float64) {
	n := len(g.flts)
	var sum, sumAbs, sumSq float64
	for _, v := range g.flts {
		sum += v
		sumAbs += math.Abs(v)
		sumSq += v * v
	}
	switch f {
	case Count:
		return int64(n), 0, true, 0
	case Size:
		return int64(g.rows), 0, true, 0
	case Sum:
		if g.isInt {
			for _, v := range g.ints {
				i += v
			}
			return i, 0, true, 0
		}
		return 0, sum, true, sumAbs
	case Mean:
		if n == 0 {
			return 0, 0, false, 0
		}
		return 0, sum / float64(n), true, sumAbs / float64(n)
	case Min, Max:
		if n == 0 {
			return 0, 0, false, 0
		}
		if g.isInt {
			i = g.ints[0]
			for _, v := range g.ints {
				if (f == Min && v < i) || (f == Max && v > i) {
					i = v
				}
			}
			return i, 0, true, 0
		}
		x = g.flts[0]
		for _, v := range g.flts {
			if (f == Min && v < x) || (f == Max && v > x) {
				x = v
			}
		}
		return 0, x, true, 0
	}
	// Var and Std: two passes, ddof=1.
	if n < 2 {
		return 0, 0, false, 0
	}
	mean := sum / float64(n)
	var m2 float64
	for _, v := range g.flts {
		m2 += (v - mean) * (v - mean)
	}
	x, scale = m2/float64(n-1), sumSq/float64(n)
	if f == Std {
		x, scale = math.Sqrt(x), math.Sqrt(scale)
	}
	return 0, x, true, scale
}

// closeTo is a relative tolerance of 1e-9, relative to the larger of the
// answer and scale, the size of the numbers it came from (a sum that
// cancels to near zero is not held to 1e-9 of itself).
func closeTo(got, want, scale float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= 1e-9*math.Max(math.Abs(want), scale)
}

// aggValues makes a value column shaped by s with moderate values, so that
// the float answers can be held to a tight tolerance.
func aggValues(rng *rand.Rand, ct colType, s shape) col {
	tail := 0
	if s.off > 0 {
		tail = rng.Intn(4)
	}
	m := s.off + s.n + tail
	c := col{kind: ct.kind(), valid: genValid(rng, m, s.nulls)}
	if ct == tInt {
		for i := 0; i < m; i++ {
			c.ints = append(c.ints, rng.Int63n(2001)-1000)
		}
		b := array.NewInt64Builder(genMem)
		defer b.Release()
		b.AppendValues(c.ints, c.valid)
		c.arr = b.NewArray()
	} else {
		for i := 0; i < m; i++ {
			c.flts = append(c.flts, rng.NormFloat64()*30+50)
		}
		b := array.NewFloat64Builder(genMem)
		defer b.Release()
		b.AppendValues(c.flts, c.valid)
		c.arr = b.NewArray()
	}
	if s.off == 0 && tail == 0 {
		return c
	}
	out := c.slice(s.off, s.off+s.n)
	out.arr = array.NewSlice(c.arr, int64(s.off), int64(s.off+s.n))
	c.arr.Release()
	return out
}

// cuts splits n rows into chunks: [cuts[k], cuts[k+1]).
type splitter struct {
	name string
	cuts func(rng *rand.Rand, n int) []int
}

var splitters = []splitter{
	{"one-chunk", func(rng *rand.Rand, n int) []int { return []int{0, n} }},
	{"random-chunks", func(rng *rand.Rand, n int) []int {
		cuts := []int{0, n}
		for k := rng.Intn(6); k > 0; k-- {
			cuts = append(cuts, rng.Intn(n+1)) // may repeat: empty chunks
		}
		sortInts(cuts)
		return cuts
	}},
	{"one-row-chunks", func(rng *rand.Rand, n int) []int {
		if n > 64 {
			return []int{0, n / 3, n / 3, n/3 + 1, n}
		}
		if n == 0 {
			return []int{0, 0} // one empty chunk; Merge needs at least one
		}
		return append(seq(n), n)
	}},
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// treeAggregate runs f the way a combine step does: Partial per chunk with
// its own Grouper, Merge over the chunks' key columns with a fresh
// Grouper, then Final. It returns the final column and the groups' keys.
func treeAggregate(t *testing.T, f AggFunc, keyTypes []arrow.DataType, keyChunks [][]arrow.Array, valChunks []arrow.Array, kind Kind) (arrow.Array, []arrow.Array) {
	t.Helper()
	final, keys, err := treeAggregateErr(t, f, keyTypes, keyChunks, valChunks, kind)
	if err != nil {
		t.Fatal(err)
	}
	return final, keys
}

// treeAggregateErr is treeAggregate, returning the error of Partial or
// Merge (ErrOverflow).
func treeAggregateErr(t *testing.T, f AggFunc, keyTypes []arrow.DataType, keyChunks [][]arrow.Array, valChunks []arrow.Array, kind Kind) (arrow.Array, []arrow.Array, error) {
	t.Helper()
	var states [][]arrow.Array
	var partKeys [][]arrow.Array
	for c, keys := range keyChunks {
		g, err := NewGrouper(keyTypes)
		if err != nil {
			t.Fatal(err)
		}
		ids := g.Add(keys, nil)
		var vals []arrow.Array
		if f != Size {
			vals = []arrow.Array{valChunks[c]}
		}
		st, err := Partial(f, vals, ids, g.NumGroups())
		if err != nil {
			releaseAll(append(states, partKeys...)...)
			return nil, nil, err
		}
		checkTypes(t, fmt.Sprintf("Partial of chunk %d", c), st, f.StateTypes(kindTypeOf(kind)), g.NumGroups())
		states = append(states, st)
		partKeys = append(partKeys, g.Keys())
	}
	g, err := NewGrouper(plainTypes(keyTypes))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([][]int32, len(partKeys))
	for c, keys := range partKeys {
		ids[c] = g.Add(keys, nil)
	}
	merged, err := Merge(f, states, ids, g.NumGroups())
	if err != nil {
		releaseAll(append(states, partKeys...)...)
		return nil, nil, err
	}
	checkTypes(t, "Merge", merged, f.StateTypes(kindTypeOf(kind)), g.NumGroups())
	final := Final(f, merged)
	checkTypes(t, "Final", []arrow.Array{final}, []arrow.DataType{f.ResultType(kindTypeOf(kind))}, g.NumGroups())
	releaseAll(append(append(states, partKeys...), merged)...)
	return final, g.Keys(), nil
}

func plainTypes(types []arrow.DataType) []arrow.DataType {
	out := make([]arrow.DataType, len(types))
	for i, t := range types {
		out[i] = PlainType(t)
	}
	return out
}

// checkTypes checks the types and lengths of state or result columns.
func checkTypes(t *testing.T, what string, got []arrow.Array, want []arrow.DataType, n int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d columns, want %d", what, len(got), len(want))
	}
	for i, a := range got {
		if !arrow.TypeEqual(a.DataType(), want[i]) || a.Len() != n {
			t.Fatalf("%s column %d: %s with %d rows, want %s with %d", what, i, a.DataType(), a.Len(), want[i], n)
		}
	}
}

// checkAggregate compares a final column, row g for the group whose keys
// are row g of keys, with the reference groups.
func checkAggregate(t *testing.T, f AggFunc, final arrow.Array, keys []arrow.Array, ref map[string]*refGroup) {
	t.Helper()
	keyCols := make([]col, len(keys))
	for i, k := range keys {
		keyCols[i] = readCol(t, k)
	}
	got := readCol(t, final)
	if got.len() != len(ref) {
		t.Errorf("%s: %d groups, want %d", f, got.len(), len(ref))
	}
	seen := map[string]bool{}
	bad := 0
	for g := 0; g < got.len(); g++ {
		tuple, ok := keyTuple(keyCols, g)
		if !ok {
			t.Errorf("%s: group %d has a null key", f, g)
			continue
		}
		if seen[tuple] {
			t.Errorf("%s: key %s is two groups", f, tuple)
		}
		seen[tuple] = true
		r := ref[tuple]
		if r == nil {
			t.Errorf("%s: group %s is not in the data", f, tuple)
			continue
		}
		wi, wx, wok, scale := r.answer(f)
		var good bool
		switch {
		case got.valid[g] != wok:
		case !wok:
			good = true
		case got.kind == KindInt:
			good = got.ints[g] == wi
		default:
			good = closeTo(got.flts[g], wx, scale)
		}
		if !good {
			want := "null"
			if wok && got.kind == KindInt {
				want = fmt.Sprint(wi)
			} else if wok {
				want = fmt.Sprint(wx)
			}
			t.Errorf("%s of group %s (%d rows, %d values) = %s, want %s", f, tuple, r.rows, len(r.flts), got.show(g), want)
			if bad++; bad == 5 {
				t.Errorf("%s: stopping after 5 differences", f)
				return
			}
		}
	}
}

var aggKeySets = [][]colType{{tInt}, {tDict}, {tString, tBool}, {tFloat}}

func TestAggregateMatchesReference(t *testing.T) {
	for _, f := range allAggFuncs {
		for _, vt := range []colType{tInt, tFloat} {
			for _, kts := range aggKeySets {
				for _, sp := range splitters {
					t.Run(fmt.Sprintf("%s/%s/by-%s/%s", f, vt, names(kts), sp.name), func(t *testing.T) {
						forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
							aggregateOnce(t, rng, f, vt, kts, sp, s)
						})
					})
				}
			}
		}
	}
}

func aggregateOnce(t *testing.T, rng *rand.Rand, f AggFunc, vt colType, kts []colType, sp splitter, s shape) {
	keyShape := s
	if keyShape.nulls == allNulls {
		keyShape.nulls = someNulls // all-null values are the interesting case
	}
	var keys []col
	keyTypes := arrowTypes(kts)
	for i, kt := range kts {
		ks := keyShape
		if ks.off > 0 {
			ks.off += i + 1
		}
		keys = append(keys, genCol(rng, kt, ks))
	}
	vals := aggValues(rng, vt, s)
	defer release(append(keys, vals)...)

	cuts := sp.cuts(rng, s.n)
	var keyChunks [][]arrow.Array
	var valChunks []arrow.Array
	for k := 0; k+1 < len(cuts); k++ {
		i, j := int64(cuts[k]), int64(cuts[k+1])
		var kc []arrow.Array
		for _, c := range keys {
			kc = append(kc, array.NewSlice(c.arr, i, j))
		}
		keyChunks = append(keyChunks, kc)
		valChunks = append(valChunks, array.NewSlice(vals.arr, i, j))
	}
	defer func() {
		for k := range valChunks {
			valChunks[k].Release()
			for _, a := range keyChunks[k] {
				a.Release()
			}
		}
	}()

	final, groupKeys := treeAggregate(t, f, keyTypes, keyChunks, valChunks, vt.kind())
	defer releaseAll([]arrow.Array{final}, groupKeys)
	checkAggregate(t, f, final, groupKeys, refAggregate(keys, vals))
}

// Partial, Merge and Final on a small hand-checked example.
func TestAggregateExample(t *testing.T) {
	keys := strs("a", "b", "a", "a", nil, "b", "c")
	vals := ints(1, 2, 3, nil, 5, nil, nil)
	want := map[AggFunc]*col{
		Sum:   intCol(4, 2, 0),
		Mean:  floatCol(2.0, 2.0, nil),
		Count: intCol(2, 1, 0),
		Size:  intCol(3, 2, 1),
		Min:   intCol(1, 2, nil),
		Max:   intCol(3, 2, nil),
		Var:   floatCol(2.0, nil, nil),
		Std:   floatCol(math.Sqrt2, nil, nil),
	}
	for _, f := range allAggFuncs {
		t.Run(f.String(), func(t *testing.T) {
			defer failOnPanic(t)
			// Two chunks: rows 0-2 and 3-6.
			var chunks [][]arrow.Array
			var vchunks []arrow.Array
			for _, r := range [][2]int64{{0, 3}, {3, 7}} {
				chunks = append(chunks, []arrow.Array{array.NewSlice(keys, r[0], r[1])})
				vchunks = append(vchunks, array.NewSlice(vals, r[0], r[1]))
			}
			defer releaseAll(vchunks, chunks[0], chunks[1])
			final, groupKeys := treeAggregate(t, f, []arrow.DataType{String}, chunks, vchunks, KindInt)
			defer releaseAll([]arrow.Array{final}, groupKeys)
			checkCol(t, "keys", readCol(t, groupKeys[0]), col{kind: KindString, valid: []bool{true, true, true}, strs: []string{"a", "b", "c"}})
			checkCol(t, f.String(), readCol(t, final), *want[f])
		})
	}
}

// int64 Sum wraps as Go's int64 does; Min and Max are exact at the extremes.
func TestAggregateIntExtremes(t *testing.T) {
	for _, f := range []AggFunc{Sum, Min, Max, Count, Size} {
		t.Run(f.String(), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				key := genCol(rng, tBool, shape{n: s.n, nulls: someNulls, off: s.off})
				vals := genCol(rng, tInt, s) // genInt: MinInt64, MaxInt64 and friends
				defer release(key, vals)
				half := int64(s.n / 2)
				chunks := [][]arrow.Array{{array.NewSlice(key.arr, 0, half)}, {array.NewSlice(key.arr, half, int64(s.n))}}
				vchunks := []arrow.Array{array.NewSlice(vals.arr, 0, half), array.NewSlice(vals.arr, half, int64(s.n))}
				defer releaseAll(vchunks, chunks[0], chunks[1])
				final, groupKeys, err := treeAggregateErr(t, f, []arrow.DataType{Bool}, chunks, vchunks, KindInt)
				if f == Sum && sumsOverflow(key.arr.(*array.Boolean), vals.arr.(*array.Int64)) {
					// A sum past int64's range fails rather than wraps.
					if !errors.Is(err, ErrOverflow) {
						t.Fatalf("a sum past int64's range gave %v, want ErrOverflow", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				defer releaseAll([]arrow.Array{final}, groupKeys)
				checkAggregate(t, f, final, groupKeys, refAggregate([]col{key}, vals))
			})
		})
	}
}

// sumsOverflow reports whether a sum of vals' valid rows grouped by key
// (null keys left out) passes int64's range as the tree adds them: each
// half's whole sum of a group (Partial over few groups is exact whatever
// the order), then the halves' sums in order (Merge's running sums).
func sumsOverflow(key *array.Boolean, vals *array.Int64) bool {
	var merged [2]big.Int
	half := vals.Len() / 2
	for _, r := range [][2]int{{0, half}, {half, vals.Len()}} {
		var sums [2]big.Int
		for i := r[0]; i < r[1]; i++ {
			if key.IsNull(i) || vals.IsNull(i) {
				continue
			}
			g := 0
			if key.Value(i) {
				g = 1
			}
			sums[g].Add(&sums[g], big.NewInt(vals.Value(i)))
		}
		for g := range sums {
			if !sums[g].IsInt64() {
				return true
			}
			if merged[g].Add(&merged[g], &sums[g]); !merged[g].IsInt64() {
				return true
			}
		}
	}
	return false
}

func TestAggFuncNamesAndTypes(t *testing.T) {
	for _, f := range allAggFuncs {
		got, err := ParseAggFunc(f.String())
		if err != nil || got != f {
			t.Errorf("ParseAggFunc(%q) = %v, %v", f.String(), got, err)
		}
	}
	if _, err := ParseAggFunc("mode"); err == nil {
		t.Errorf("ParseAggFunc(mode) succeeded")
	}
	tests := []struct {
		f          AggFunc
		intResult  arrow.DataType
		fltResult  arrow.DataType
		stringOK   bool
		boolOK     bool
		stateCount int
	}{
		{Sum, Int64, Float64, false, false, 1},
		{Mean, Float64, Float64, false, false, 2},
		{Count, Int64, Int64, true, true, 1},
		{Size, Int64, Int64, true, true, 1},
		{Min, Int64, Float64, true, true, 1}, // false < true
		{Max, Int64, Float64, true, true, 1},
		{Var, Float64, Float64, false, false, 3},
		{Std, Float64, Float64, false, false, 3},
	}
	for _, tt := range tests {
		if got := tt.f.ResultType(Int64); !arrow.TypeEqual(got, tt.intResult) {
			t.Errorf("%s.ResultType(int64) = %s, want %s", tt.f, got, tt.intResult)
		}
		if got := tt.f.ResultType(Float64); !arrow.TypeEqual(got, tt.fltResult) {
			t.Errorf("%s.ResultType(float64) = %s, want %s", tt.f, got, tt.fltResult)
		}
		if n := len(tt.f.StateTypes(Int64)); n != tt.stateCount {
			t.Errorf("%s has %d state columns, want %d", tt.f, n, tt.stateCount)
		}
		for _, k := range []Kind{KindInt, KindFloat} {
			if err := tt.f.CheckInput(k); err != nil {
				t.Errorf("%s.CheckInput(%s): %v", tt.f, k, err)
			}
		}
		for k, ok := range map[Kind]bool{KindString: tt.stringOK, KindBool: tt.boolOK} {
			if err := tt.f.CheckInput(k); (err == nil) != ok {
				t.Errorf("%s.CheckInput(%s) = %v", tt.f, k, err)
			}
		}
	}
}

func releaseAll(lists ...[]arrow.Array) {
	for _, l := range lists {
		for _, a := range l {
			a.Release()
		}
	}
}

// kindTypeOf is the column type of the kinds the aggregation tests use.
func kindTypeOf(k Kind) arrow.DataType {
	return map[Kind]arrow.DataType{KindInt: Int64, KindFloat: Float64, KindString: String, KindBool: Bool}[k]
}

// TestAggTypes checks the types sums, minima and maxima compute in over
// the wider column types: integer-like ones as int64, others as float64.
func TestAggTypes(t *testing.T) {
	for _, tt := range []struct {
		typ        arrow.DataType
		sum, minOf arrow.DataType
		ok         bool
	}{
		{arrow.PrimitiveTypes.Int32, Int64, Int64, true},
		{arrow.PrimitiveTypes.Float32, Float64, Float64, true},
		{&arrow.Decimal128Type{Precision: 15, Scale: 2}, Int64, Int64, true},
		{&arrow.Decimal128Type{Precision: 30, Scale: 2}, Float64, Float64, true},
		{arrow.FixedWidthTypes.Date32, nil, Int64, false},
		{arrow.FixedWidthTypes.Timestamp_us, nil, Int64, false},
	} {
		k, err := KindOf(tt.typ)
		if err != nil {
			t.Fatal(err)
		}
		if err := Sum.CheckInput(k); (err == nil) != tt.ok {
			t.Errorf("Sum.CheckInput(%s) = %v", tt.typ, err)
		}
		if err := Min.CheckInput(k); err != nil {
			t.Errorf("Min.CheckInput(%s) = %v", tt.typ, err)
		}
		if tt.ok && !arrow.TypeEqual(Sum.ResultType(tt.typ), tt.sum) {
			t.Errorf("Sum.ResultType(%s) = %s, want %s", tt.typ, Sum.ResultType(tt.typ), tt.sum)
		}
		if got := Min.ResultType(tt.typ); !arrow.TypeEqual(got, tt.minOf) {
			t.Errorf("Min.ResultType(%s) = %s, want %s", tt.typ, got, tt.minOf)
		}
	}
}

// TestCorrMatchesReference computes Corr over chunks (Partial, Merge,
// Final) of rows in groups, with nulls in either column, against Pearson's
// formula over each group's rows where both have values.
func TestCorrMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const groups, rows, chunks = 5, 3000, 4
	type pair struct{ x, y float64 }
	want := make([][]pair, groups)
	var states [][]arrow.Array
	var ids [][]int32
	for c := 0; c < chunks; c++ {
		n := rows / chunks
		xs, ys := make([]float64, n), make([]float64, n)
		xv, yv := make([]bool, n), make([]bool, n)
		g := make([]int32, n)
		for i := range xs {
			g[i] = int32(rng.Intn(groups))
			xs[i] = rng.NormFloat64()
			ys[i] = 0.5*xs[i] + rng.NormFloat64()*float64(g[i])/2
			xv[i], yv[i] = rng.Intn(9) != 0, rng.Intn(7) != 0
			if xv[i] && yv[i] {
				want[g[i]] = append(want[g[i]], pair{xs[i], ys[i]})
			}
		}
		x, y := NewFloat64(xs, validBitmap(xv)), NewFloat64(ys, validBitmap(yv))
		st, _ := Partial(Corr, []arrow.Array{x, y}, g, groups)
		states = append(states, st)
		// Each chunk's groups map to themselves in the merge.
		ids = append(ids, []int32{0, 1, 2, 3, 4})
	}
	merged, _ := Merge(Corr, states, ids, groups)
	got := Final(Corr, merged).(*array.Float64)
	for g, ps := range want {
		var mx, my float64
		for _, p := range ps {
			mx += p.x / float64(len(ps))
			my += p.y / float64(len(ps))
		}
		var sxy, sxx, syy float64
		for _, p := range ps {
			sxy += (p.x - mx) * (p.y - my)
			sxx += (p.x - mx) * (p.x - mx)
			syy += (p.y - my) * (p.y - my)
		}
		r := sxy / math.Sqrt(sxx*syy)
		if math.Abs(got.Value(g)-r) > 1e-9 {
			t.Errorf("group %d: corr %v, want %v", g, got.Value(g), r)
		}
	}
}

// TestCorrOfConstantColumn: a column constant in a group has no variance,
// so its correlation is null, also where its values do not sum exactly
// ((0.1 + 0.1 + 0.1) / 3 is not 0.1 in float64), over chunks merged.
func TestCorrOfConstantColumn(t *testing.T) {
	xs := []float64{1, 2, 4, 1.39, 1.39, 1.39}
	ys := []float64{0.1, 0.1, 0.1, 5, 1, 2}
	g := []int32{0, 0, 0, 1, 1, 1}
	a, _ := Partial(Corr, []arrow.Array{NewFloat64(xs[:4], nil), NewFloat64(ys[:4], nil)}, g[:4], 2)
	b, _ := Partial(Corr, []arrow.Array{NewFloat64(xs[4:], nil), NewFloat64(ys[4:], nil)}, g[4:], 2)
	merged, _ := Merge(Corr, [][]arrow.Array{a, b}, [][]int32{{0, 1}, {0, 1}}, 2)
	got := Final(Corr, merged)
	for i := range 2 {
		if got.IsValid(i) {
			t.Errorf("group %d: corr %v of a constant column, want null", i, got.(*array.Float64).Value(i))
		}
	}
}

// TestEveryAggregationHasAReference walks the table of aggregations: each
// tree-reduced entry is checked against a reference, by
// TestAggregateMatchesReference, or for Corr, which reads two columns, by
// TestCorrMatchesReference; each holistic one by a test of its kernel in
// holistic_test.go (holisticChecked), through Whole.
func TestEveryAggregationHasAReference(t *testing.T) {
	for f := range aggs {
		switch f := AggFunc(f); {
		case f.Holistic():
			if !slices.Contains(holisticChecked, f) {
				t.Errorf("holistic aggregation %s has no reference check: add one to holistic_test.go and list it in holisticChecked", f)
			}
		case !slices.Contains(allAggFuncs, f) && f != Corr:
			t.Errorf("aggregation %s has no reference check: add it to allAggFuncs", f)
		}
	}
}

// TestOneEachCounts merges and finishes count states of one a row
// (OneEach) beside counts held as numbers, against the counts written out.
func TestOneEachCounts(t *testing.T) {
	ids := [][]int32{{0, 1, 0, 2}, {2, 0}}
	sums := []arrow.Array{NewFloat64([]float64{1, 2, 3, 4}, nil), NewFloat64([]float64{5, 6}, nil)}
	for _, c := range []struct {
		fn     AggFunc
		states [][]arrow.Array
		want   []float64
	}{
		{Mean, [][]arrow.Array{{sums[0], OneEach(4)}, {sums[1], NewInt64([]int64{2, 3}, nil)}}, []float64{10.0 / 5, 2, 9.0 / 3}},
		{Mean, [][]arrow.Array{{sums[0], OneEach(4)}, {sums[1], OneEach(2)}}, []float64{10.0 / 3, 2, 9.0 / 2}},
		{Size, [][]arrow.Array{{OneEach(4)}, {NewInt64([]int64{2, 3}, nil)}}, []float64{5, 1, 3}},
		{Count, [][]arrow.Array{{OneEach(4)}, {OneEach(2)}}, []float64{3, 1, 2}},
	} {
		merged, err := Merge(c.fn, c.states, ids, 3)
		if err != nil {
			t.Fatal(err)
		}
		got := readCol(t, Final(c.fn, merged))
		for g, w := range c.want {
			v := got.key(g)
			if f, ok := v.(int64); ok {
				v = float64(f)
			}
			if v != w {
				t.Errorf("%v: group %d = %v, want %v", c.fn, g, v, w)
			}
		}
	}
	if got := readCol(t, Final(Size, []arrow.Array{OneEach(3)})); got.len() != 3 || got.key(2) != int64(1) {
		t.Errorf("Final of ones: %v", got.ints)
	}
}

// Minima and maxima leave NaNs out whatever order they come in, in the
// partial and in the merge: a NaN first stuck (NaN > x is false), so the
// answer hung on the partitioning; found by the differential fuzzer.
func TestExtremesLeaveNaNsOut(t *testing.T) {
	nan := math.NaN()
	for _, vals := range [][]float64{{nan, math.Inf(-1), 3}, {3, nan, math.Inf(-1)}, {math.Inf(-1), 3, nan}} {
		col := NewFloat64(vals, nil)
		for _, c := range []struct {
			f    AggFunc
			want float64
		}{{Min, math.Inf(-1)}, {Max, 3}} {
			st, err := Partial(c.f, []arrow.Array{col}, []int32{0, 0, 0}, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := st[0].(*array.Float64).Value(0); got != c.want {
				t.Errorf("%s of %v = %v, want %v", c.f, vals, got, c.want)
			}
			// Merged from one state per value, in order.
			var states [][]arrow.Array
			var ids [][]int32
			for _, v := range vals {
				states = append(states, []arrow.Array{NewFloat64([]float64{v}, nil)})
				ids = append(ids, []int32{0})
			}
			m, err := Merge(c.f, states, ids, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := m[0].(*array.Float64).Value(0); got != c.want {
				t.Errorf("merged %s of %v = %v, want %v", c.f, vals, got, c.want)
			}
		}
		col.Release()
	}
	only := NewFloat64([]float64{nan, nan}, nil)
	defer only.Release()
	st, _ := Partial(Max, []arrow.Array{only}, []int32{0, 0}, 1)
	if got := st[0].(*array.Float64).Value(0); !math.IsNaN(got) {
		t.Errorf("max of NaNs alone = %v, want NaN", got)
	}
}

// A sum reads an int32 column as it is (aggDesc.int32s): its partial
// states are those of the column widened to int64, for every slice
// offset, nulls and rows in no group (-1).
func TestSumOfInt32sAsRead(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, size := range []int{0, 1, 7, 100, 3000} {
		b32, b64 := array.NewInt32Builder(genMem), array.NewInt64Builder(genMem)
		for i := 0; i < size+5; i++ {
			if rng.Intn(7) == 0 {
				b32.AppendNull()
				b64.AppendNull()
				continue
			}
			v := int32(rng.Uint32())
			b32.Append(v)
			b64.Append(int64(v))
		}
		a32, a64 := b32.NewArray(), b64.NewArray()
		off := int64(rng.Intn(5))
		s32, s64 := array.NewSlice(a32, off, off+int64(size)), array.NewSlice(a64, off, off+int64(size))
		groups := 1 + rng.Intn(4)
		ids := make([]int32, size)
		for i := range ids {
			ids[i] = int32(rng.Intn(groups+1)) - 1
		}
		got, err := Partial(Sum, []arrow.Array{s32}, ids, groups)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Partial(Sum, []arrow.Array{s64}, ids, groups)
		if err != nil {
			t.Fatal(err)
		}
		if !array.Equal(got[0], want[0]) {
			t.Errorf("%d rows at %d: int32 sums %v, widened %v", size, off, got[0], want[0])
		}
		releaseAll(got, want)
		for _, a := range []arrow.Array{a32, a64, s32, s64} {
			a.Release()
		}
		b32.Release()
		b64.Release()
	}
}

// The least and greatest string of each group, over chunks of plain and
// dictionary-encoded strings with nulls and rows in no group, by Partial
// and Merge, against a sequential pass; a group of only nulls is null.
func TestStringExtremes(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	words := []string{"", "a", "ab", "b", "ba", "zz", "Z", "é", "abc"}
	for _, isMin := range []bool{true, false} {
		f := Max
		if isMin {
			f = Min
		}
		const groups = 5
		var states [][]arrow.Array
		var stateIDs [][]int32
		want, seen := make([]string, groups), make([]bool, groups)
		for c := 0; c < 4; c++ {
			n := rng.Intn(40)
			vals, valid, ids := make([]string, n), make([]bool, n), make([]int32, n)
			for i := range vals {
				vals[i], valid[i], ids[i] = words[rng.Intn(len(words))], rng.Intn(5) > 0, int32(rng.Intn(groups))-1
				if ids[i] == groups-2 { // a group of nulls only
					valid[i] = false
				}
				if g := ids[i]; g >= 0 && valid[i] && (!seen[g] || isMin && vals[i] < want[g] || !isMin && vals[i] > want[g]) {
					want[g], seen[g] = vals[i], true
				}
			}
			var col arrow.Array
			if c%2 == 0 {
				b := array.NewStringBuilder(genMem)
				b.AppendValues(vals, valid)
				col = b.NewArray()
				b.Release()
			} else {
				b := array.NewDictionaryBuilder(genMem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
				for i, v := range vals {
					if valid[i] {
						if err := b.AppendString(v); err != nil {
							t.Fatal(err)
						}
					} else {
						b.AppendNull()
					}
				}
				col = b.NewArray()
				b.Release()
			}
			st, err := Partial(f, []arrow.Array{col}, ids, groups) // states a group each

			col.Release()
			if err != nil {
				t.Fatal(err)
			}
			states = append(states, st)
			sids := make([]int32, groups)
			for g := range sids {
				sids[g] = int32(g)
			}
			stateIDs = append(stateIDs, sids)
		}
		merged, err := Merge(f, states, stateIDs, groups)
		if err != nil {
			t.Fatal(err)
		}
		got := merged[0].(*array.String)
		for g := range groups {
			if got.IsNull(g) == seen[g] || seen[g] && got.Value(g) != want[g] {
				t.Errorf("%s of group %d: %q (null %v), want %q (any %v)", f, g, got.Value(g), got.IsNull(g), want[g], seen[g])
			}
		}
		releaseAll(merged)
		for _, st := range states {
			releaseAll(st)
		}
	}
}

// A sum of one group whose ids are alloc.Zeros (Frame.Agg's) adds the
// column without reading the ids, and fails as the grouped sum does where
// the total passes int64's range.
func TestSumOfOneGroupOfZeros(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, size := range []int{1, 3, 4, 5, 1000} {
		vals := make([]int64, size)
		var want int64
		for i := range vals {
			vals[i] = rng.Int63n(1<<40) - 1<<39
			want += vals[i]
		}
		col := NewInt64(vals, nil)
		got, err := Partial(Sum, []arrow.Array{col}, alloc.Zeros[int32](size), 1)
		if err != nil {
			t.Fatal(err)
		}
		if s := got[0].(*array.Int64).Value(0); s != want {
			t.Errorf("%d values: sum %d, want %d", size, s, want)
		}
		releaseAll(got, []arrow.Array{col})
	}
	big := NewInt64([]int64{math.MaxInt64, 1, 2, 3, 4}, nil)
	defer big.Release()
	if _, err := Partial(Sum, []arrow.Array{big}, alloc.Zeros[int32](5), 1); !errors.Is(err, ErrOverflow) {
		t.Errorf("a sum past int64: %v, want ErrOverflow", err)
	}
}

// TestLogicalResultType: a sum, minimum or maximum keeps an integer-like
// input's logical type (a sum of decimals is one of 18 digits); the rest
// answer as the kernels compute.
func TestLogicalResultType(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 9, Scale: 2}
	ts := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	for _, c := range []struct {
		f    AggFunc
		in   arrow.DataType
		want string
	}{
		{Sum, dec, "decimal(18, 2)"},
		{Min, dec, "decimal(9, 2)"},
		{Mean, dec, "float64"},
		{Sum, arrow.PrimitiveTypes.Int8, "int64"},
		{Max, arrow.FixedWidthTypes.Date32, "date32"},
		{Min, ts, ts.String()},
		{Sum, arrow.FixedWidthTypes.Duration_ms, "duration[ms]"},
		{Count, ts, "int64"},
		{Max, Bool, "bool"},
		{Max, String, "utf8"},
	} {
		if got := c.f.LogicalResultType(c.in).String(); got != c.want {
			t.Errorf("%s of %s: %s, want %s", c.f, c.in, got, c.want)
		}
	}
}

// TestSumIntsExact: an integer sum over few groups is its rows' whole sum,
// whatever their order (sumIntsFew, sumInts): rows whose running sum
// passes int64's range on the way to a total that fits sum to that total,
// and only a total past the range is ErrOverflow. Against big.Int sums,
// with rows in no group, nulls, int32 and int64 columns, 1 to 256 groups.
func TestSumIntsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, n := range []int{1, 3, 256} {
		for _, rows := range []int{0, 1, 7, 3000} {
			for _, total := range []string{"fits", "passes"} {
				t.Run(fmt.Sprintf("groups=%d/rows=%d/%s", n, rows, total), func(t *testing.T) {
					vals, ids := make([]int64, rows), make([]int32, rows)
					valid := make([]bool, rows)
					for i := range vals {
						// Blocks of four rows of one group, v+a, v+b, -v,
						// -v with v half of int64's range: a running sum
						// passes the range, the block's total is a+b.
						if i%4 == 0 {
							ids[i], valid[i] = int32(rng.Intn(n+1))-1, rng.Intn(10) > 0 // -1: no group
						} else {
							ids[i], valid[i] = ids[i-i%4], valid[i-i%4]
						}
						v := int64(math.MaxInt64/2 + rng.Int63n(1<<40))
						vals[i] = [4]int64{v + rng.Int63n(1000), v - rng.Int63n(1000), -v, -v}[i%4]
						if total == "passes" && i < 4 {
							ids[i], valid[i], vals[i] = 0, true, math.MaxInt64-rng.Int63n(10)
						}
					}
					if n == 1 && rows > 0 && total == "fits" {
						clear(ids) // sumInts' one group
						for i := range valid {
							valid[i] = true
						}
					}
					want := make([]big.Int, n)
					for i, v := range vals {
						if ids[i] >= 0 && valid[i] {
							want[ids[i]].Add(&want[ids[i]], big.NewInt(v))
						}
					}
					fits := true
					for g := range want {
						fits = fits && want[g].IsInt64()
					}
					if fits != (total == "fits" || rows < 4) {
						t.Fatalf("the totals fit: %v", fits)
					}
					b := array.NewInt64Builder(genMem)
					defer b.Release()
					b.AppendValues(vals, valid)
					col := b.NewArray()
					defer col.Release()
					got, err := Partial(Sum, []arrow.Array{col}, ids, n)
					if !fits {
						if !errors.Is(err, ErrOverflow) {
							t.Fatalf("totals past int64's range: %v, want ErrOverflow", err)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					defer releaseAll(got)
					sums := got[0].(*array.Int64)
					for g := range want {
						if sums.Value(g) != want[g].Int64() {
							t.Errorf("group %d: %d, want %s", g, sums.Value(g), want[g].String())
						}
					}
				})
			}
		}
	}
	for _, x := range [][]int32{nil, {7}, {math.MaxInt32, math.MaxInt32, math.MinInt32, -1, 5}} {
		want := int64(0)
		for _, v := range x {
			want += int64(v)
		}
		if got := sumIntsFew(x, nil, 0, make([]int32, len(x)), 1)[0]; got != want {
			t.Errorf("int32 %v: %d, want %d", x, got, want)
		}
	}
}
