package kernel

// Shapes, generators and readers shared by the kernel tests.
//
// A generated column comes with the plain Go values of its rows (a col),
// built through Arrow's own builders, not this package's constructors; a
// kernel's result is read back through Arrow's accessors (readCol). So a
// test compares plain Go values from an obviously-correct reference with
// plain Go values read from the kernel's output.

import (
	"fmt"
	"math"
	"math/rand"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// nullMode says which rows of a generated column are null.
type nullMode int

const (
	noNulls nullMode = iota
	someNulls
	allNulls
)

func (m nullMode) String() string { return [...]string{"nonull", "somenull", "allnull"}[m] }

// shape is one input shape: rows, nulls, and how many rows are sliced off
// the front of a longer array (0: not sliced).
type shape struct {
	n     int
	nulls nullMode
	off   int
}

func (s shape) String() string { return fmt.Sprintf("n=%d/%s/off=%d", s.n, s.nulls, s.off) }

// shapes is every length (fixed ones and a few random) with every null
// mode, plain and sliced at an offset that is not a multiple of 8.
func shapes() []shape {
	rng := rand.New(rand.NewSource(1))
	lengths := []int{0, 1, 7, 64, 1000}
	for i := 0; i < 3; i++ {
		lengths = append(lengths, 2+rng.Intn(300))
	}
	var out []shape
	for _, n := range lengths {
		for _, m := range []nullMode{noNulls, someNulls, allNulls} {
			for _, off := range []int{0, 5} {
				out = append(out, shape{n: n, nulls: m, off: off})
			}
		}
	}
	return out
}

// forShapes runs f as one subtest per shape, each with its own fixed seed.
func forShapes(t *testing.T, f func(t *testing.T, s shape, rng *rand.Rand)) {
	t.Helper()
	for i, s := range shapes() {
		t.Run(s.String(), func(t *testing.T) {
			defer failOnPanic(t)
			f(t, s, rand.New(rand.NewSource(int64(1000+i))))
		})
	}
}

// failOnPanic turns a panic in a subtest into that subtest's failure, so one
// bug does not hide the others.
func failOnPanic(t *testing.T) {
	if r := recover(); r != nil {
		t.Fatalf("panic: %v\n%s", r, debug.Stack())
	}
}

// colType is a kind of generated column; strings come plain or dictionary-encoded.
type colType int

const (
	tInt colType = iota
	tFloat
	tString
	tDict
	tBool
)

var allColTypes = []colType{tInt, tFloat, tString, tDict, tBool}

func (c colType) String() string { return [...]string{"int64", "float64", "string", "dict", "bool"}[c] }

func (c colType) kind() Kind {
	return [...]Kind{KindInt, KindFloat, KindString, KindString, KindBool}[c]
}

func (c colType) arrowType() arrow.DataType {
	return [...]arrow.DataType{Int64, Float64, String, Dict, Bool}[c]
}

// col is a column's rows as plain Go values; only the slice of its kind is
// set. Values under null rows are whatever the array holds there.
type col struct {
	arr   arrow.Array // nil for a reference computed in a test
	kind  Kind
	valid []bool
	ints  []int64
	flts  []float64
	strs  []string
	bools []bool
}

func (c col) len() int { return len(c.valid) }

// slice returns rows [i, j) of c's values (not its array).
func (c col) slice(i, j int) col {
	out := col{kind: c.kind, valid: c.valid[i:j]}
	switch c.kind {
	case KindInt:
		out.ints = c.ints[i:j]
	case KindFloat:
		out.flts = c.flts[i:j]
	case KindString:
		out.strs = c.strs[i:j]
	case KindBool:
		out.bools = c.bools[i:j]
	}
	return out
}

// gather returns c's values at idx.
func (c col) gather(idx []int) col {
	out := col{kind: c.kind}
	for _, i := range idx {
		out.valid = append(out.valid, c.valid[i])
		switch c.kind {
		case KindInt:
			out.ints = append(out.ints, c.ints[i])
		case KindFloat:
			out.flts = append(out.flts, c.flts[i])
		case KindString:
			out.strs = append(out.strs, c.strs[i])
		case KindBool:
			out.bools = append(out.bools, c.bools[i])
		}
	}
	return out
}

// key is row i as a comparable value: floats by value (-0 is 0, every NaN
// alike), nil for null.
func (c col) key(i int) any {
	if !c.valid[i] {
		return nil
	}
	switch c.kind {
	case KindInt:
		return c.ints[i]
	case KindFloat:
		v := c.flts[i]
		if v != v {
			return "NaN"
		}
		if v == 0 {
			return 0.0
		}
		return v
	case KindString:
		return "s:" + c.strs[i]
	}
	return c.bools[i]
}

// Pools the generators draw from: small so that values repeat, with the
// awkward values mixed in.
var (
	intSpecials   = []int64{math.MinInt64, math.MaxInt64, math.MinInt64 + 1, -1, 0, 1 << 53, 1<<53 + 1}
	floatSpecials = []float64{math.Copysign(0, -1), 0, math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300, 5e-324, 0.1}
	stringPool    = []string{"", "a", "A", "ab", "abc", "b", "ba", "z", "é", "日本", "a\x00b", "a longer string of some bytes"}
)

func genInt(rng *rand.Rand) int64 {
	if rng.Intn(20) == 0 {
		return intSpecials[rng.Intn(len(intSpecials))]
	}
	return rng.Int63n(21) - 10
}

func genFloat(rng *rand.Rand) float64 {
	if rng.Intn(10) == 0 {
		return floatSpecials[rng.Intn(len(floatSpecials))]
	}
	return float64(rng.Intn(41)-20) / 2
}

func genString(rng *rand.Rand) string { return stringPool[rng.Intn(len(stringPool))] }

func genValid(rng *rand.Rand, n int, m nullMode) []bool {
	v := make([]bool, n)
	for i := range v {
		switch m {
		case noNulls:
			v[i] = true
		case someNulls:
			v[i] = rng.Intn(4) != 0
		}
	}
	return v
}

// genCol makes a column of type ct shaped by s: when s.off > 0 it is a
// slice, starting at row s.off, of a longer array. The caller releases arr.
func genCol(rng *rand.Rand, ct colType, s shape) col {
	tail := 0
	if s.off > 0 {
		tail = rng.Intn(4)
	}
	full := genFull(rng, ct, s.off+s.n+tail, s.nulls)
	if s.off == 0 && tail == 0 {
		return full
	}
	out := full.slice(s.off, s.off+s.n)
	out.arr = array.NewSlice(full.arr, int64(s.off), int64(s.off+s.n))
	full.arr.Release()
	return out
}

// genMem allocates generated columns; withCheckedMem swaps it for a
// checked allocator.
var genMem memory.Allocator = memory.DefaultAllocator

// withCheckedMem runs f with generated columns allocated from a checked
// allocator, and fails if anything allocated then is still held after f.
func withCheckedMem(t *testing.T, f func(mem *memory.CheckedAllocator)) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	genMem = mem
	defer func() { genMem = memory.DefaultAllocator }()
	f(mem)
	mem.AssertSize(t, 0)
}

// genFull makes an unsliced column of n rows.
func genFull(rng *rand.Rand, ct colType, n int, m nullMode) col {
	c := col{kind: ct.kind(), valid: genValid(rng, n, m)}
	mem := genMem
	switch ct {
	case tInt:
		c.ints = make([]int64, n)
		for i := range c.ints {
			c.ints[i] = genInt(rng)
		}
		b := array.NewInt64Builder(mem)
		defer b.Release()
		b.AppendValues(c.ints, c.valid)
		c.arr = b.NewArray()
	case tFloat:
		c.flts = make([]float64, n)
		for i := range c.flts {
			c.flts[i] = genFloat(rng)
		}
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.AppendValues(c.flts, c.valid)
		c.arr = b.NewArray()
	case tString:
		c.strs = make([]string, n)
		for i := range c.strs {
			c.strs[i] = genString(rng)
		}
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendValues(c.strs, c.valid)
		c.arr = b.NewArray()
	case tDict:
		c.strs = make([]string, n)
		for i := range c.strs {
			c.strs[i] = genString(rng)
		}
		c.arr = dictArray(rng, c.strs, c.valid)
	case tBool:
		c.bools = make([]bool, n)
		for i := range c.bools {
			c.bools[i] = rng.Intn(2) == 0
		}
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		b.AppendValues(c.bools, c.valid)
		c.arr = b.NewArray()
	}
	return c
}

// dictArray encodes strs with a dictionary of its own: the distinct valid
// strings in a random order, plus some entries no row uses. Null rows
// point anywhere in it; when no row is valid the dictionary is empty and
// null rows hold index 0, out of its range, as Arrow's dictionary builder
// makes them.
func dictArray(rng *rand.Rand, strs []string, valid []bool) *array.Dictionary {
	var entries []string
	seen := map[string]bool{}
	anyValid := false
	for i, s := range strs {
		if valid[i] {
			anyValid = true
			if !seen[s] {
				seen[s] = true
				entries = append(entries, s)
			}
		}
	}
	if anyValid {
		for i := 0; i < 2; i++ {
			entries = append(entries, fmt.Sprintf("unused-%d", rng.Intn(1000)))
		}
	}
	rng.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	pos := map[string]int32{}
	for i, e := range entries {
		if _, ok := pos[e]; !ok {
			pos[e] = int32(i)
		}
	}
	indices := make([]int32, len(strs))
	for i, s := range strs {
		switch {
		case valid[i]:
			indices[i] = pos[s]
		case len(entries) > 0:
			indices[i] = int32(rng.Intn(len(entries)))
		}
	}
	return newDictArray(entries, indices, valid)
}

// newDictArray builds a dictionary array from its parts with Arrow's builders.
func newDictArray(entries []string, indices []int32, valid []bool) *array.Dictionary {
	db := array.NewStringBuilder(genMem)
	defer db.Release()
	db.AppendValues(entries, nil)
	dict := db.NewArray()
	defer dict.Release()
	ib := array.NewInt32Builder(genMem)
	defer ib.Release()
	ib.AppendValues(indices, valid)
	idx := ib.NewArray()
	defer idx.Release()
	data := array.NewDataWithDictionary(Dict, idx.Len(), idx.Data().Buffers(), idx.NullN(), 0, dict.Data().(*array.Data))
	defer data.Release()
	return array.NewDictionaryData(data)
}

// Builders for small hand-written columns; nil in a slice of pointers or
// anys is a null row.

func ints(vals ...any) *array.Int64 {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		b.Append(toInt64(v))
	}
	return b.NewInt64Array()
}

func toInt64(v any) int64 {
	switch v := v.(type) {
	case int:
		return int64(v)
	case int64:
		return v
	}
	panic(fmt.Sprintf("not an int: %T", v))
}

func floats(vals ...any) *array.Float64 {
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	defer b.Release()
	for _, v := range vals {
		switch v := v.(type) {
		case nil:
			b.AppendNull()
		case int:
			b.Append(float64(v))
		case float64:
			b.Append(v)
		default:
			panic(fmt.Sprintf("not a float: %T", v))
		}
	}
	return b.NewFloat64Array()
}

func strs(vals ...any) *array.String {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		b.Append(v.(string))
	}
	return b.NewStringArray()
}

// dictStrs encodes vals with a dictionary of entries.
func dictStrs(entries []string, vals ...any) *array.Dictionary {
	pos := map[string]int32{}
	for i, e := range entries {
		pos[e] = int32(i)
	}
	indices := make([]int32, len(vals))
	valid := make([]bool, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		j, ok := pos[v.(string)]
		if !ok {
			panic(fmt.Sprintf("%q is not in the dictionary", v))
		}
		indices[i], valid[i] = j, true
	}
	return newDictArray(entries, indices, valid)
}

func bools(vals ...any) *array.Boolean {
	b := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		b.Append(v.(bool))
	}
	return b.NewBooleanArray()
}

// readCol reads a kernel's output through Arrow's accessors, and checks
// that its null count agrees with its bitmap.
func readCol(t *testing.T, a arrow.Array) col {
	t.Helper()
	n := a.Len()
	c := col{arr: a, valid: make([]bool, n)}
	for i := range c.valid {
		c.valid[i] = a.IsValid(i)
	}
	switch a := a.(type) {
	case *array.Int64:
		c.kind = KindInt
		c.ints = make([]int64, n)
		for i := range c.ints {
			c.ints[i] = a.Value(i)
		}
	case *array.Int32:
		c.kind = KindInt
		c.ints = make([]int64, n)
		for i := range c.ints {
			c.ints[i] = int64(a.Value(i))
		}
	case *array.Float64:
		c.kind = KindFloat
		c.flts = make([]float64, n)
		for i := range c.flts {
			c.flts[i] = a.Value(i)
		}
	case *array.Boolean:
		c.kind = KindBool
		c.bools = make([]bool, n)
		for i := range c.bools {
			c.bools[i] = a.Value(i)
		}
	case *array.String:
		c.kind = KindString
		c.strs = make([]string, n)
		for i := range c.strs {
			c.strs[i] = a.Value(i)
		}
	case *array.Dictionary:
		c.kind = KindString
		c.strs = make([]string, n)
		dict := a.Dictionary().(*array.String)
		for i := range c.strs {
			if c.valid[i] {
				c.strs[i] = dict.Value(a.GetValueIndex(i))
			}
		}
	default:
		t.Fatalf("readCol: unexpected array type %s", a.DataType())
	}
	nulls := 0
	for _, v := range c.valid {
		if !v {
			nulls++
		}
	}
	if a.NullN() != nulls {
		t.Errorf("NullN() is %d but the bitmap has %d nulls", a.NullN(), nulls)
	}
	return c
}

// sameFloat is equality that also holds between two NaNs and tells -0 from 0.
func sameFloat(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// checkCol reports where got differs from want: length, kind, nulls, and
// the values of the rows that are not null.
func checkCol(t *testing.T, what string, got, want col) {
	t.Helper()
	if got.len() != want.len() {
		t.Errorf("%s: %d rows, want %d", what, got.len(), want.len())
		return
	}
	if got.kind != want.kind {
		t.Errorf("%s: kind %s, want %s", what, got.kind, want.kind)
		return
	}
	bad := 0
	for i := range want.valid {
		var ok bool
		switch {
		case got.valid[i] != want.valid[i]:
		case !want.valid[i]:
			ok = true
		case want.kind == KindInt:
			ok = got.ints[i] == want.ints[i]
		case want.kind == KindFloat:
			ok = sameFloat(got.flts[i], want.flts[i])
		case want.kind == KindString:
			ok = got.strs[i] == want.strs[i]
		case want.kind == KindBool:
			ok = got.bools[i] == want.bools[i]
		}
		if !ok {
			t.Errorf("%s row %d: got %s, want %s", what, i, got.show(i), want.show(i))
			if bad++; bad == 5 {
				t.Errorf("%s: stopping after 5 differences", what)
				return
			}
		}
	}
}

// show formats row i for a failure message.
func (c col) show(i int) string {
	if !c.valid[i] {
		return "null"
	}
	switch c.kind {
	case KindInt:
		return fmt.Sprint(c.ints[i])
	case KindFloat:
		return fmt.Sprint(c.flts[i])
	case KindString:
		return fmt.Sprintf("%q", c.strs[i])
	}
	return fmt.Sprint(c.bools[i])
}

// release releases the arrays of cols that have one.
func release(cols ...col) {
	for _, c := range cols {
		if c.arr != nil {
			c.arr.Release()
		}
	}
}

// names lists things for a subtest name.
func names[T fmt.Stringer](xs []T) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = x.String()
	}
	return strings.Join(parts, ",")
}
