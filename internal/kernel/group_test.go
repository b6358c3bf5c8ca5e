package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// refGrouper numbers key tuples in order of first appearance with a map;
// a tuple with a null is -1. It remembers each group's first row.
type refGrouper struct {
	ids   map[string]int32
	first [][]any // per group, its key values
}

func newRefGrouper() *refGrouper { return &refGrouper{ids: map[string]int32{}} }

func (r *refGrouper) add(keys []col) []int32 {
	n := keys[0].len()
	out := make([]int32, n)
	for i := 0; i < n; i++ {
		tuple := make([]any, len(keys))
		null := false
		for c, k := range keys {
			tuple[c] = k.key(i)
			null = null || tuple[c] == nil
		}
		if null {
			out[i] = -1
			continue
		}
		s := fmt.Sprintf("%#v", tuple)
		id, ok := r.ids[s]
		if !ok {
			id = int32(len(r.first))
			r.ids[s] = id
			r.first = append(r.first, tuple)
		}
		out[i] = id
	}
	return out
}

func arrays(cols []col) []arrow.Array {
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		out[i] = c.arr
	}
	return out
}

func arrowTypes(cts []colType) []arrow.DataType {
	out := make([]arrow.DataType, len(cts))
	for i, ct := range cts {
		out[i] = ct.arrowType()
	}
	return out
}

// checkIDs compares a chunk's group ids with the reference's.
func checkIDs(t *testing.T, what string, got, want []int32) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d ids, want %d", what, len(got), len(want))
		return
	}
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s row %d: id %d, want %d", what, i, got[i], want[i])
			if bad++; bad == 5 {
				t.Errorf("%s: stopping after 5 differences", what)
				return
			}
		}
	}
}

// checkKeys compares Keys() with the reference's first key values: row g
// holds group g's keys, plain (strings not dictionary-encoded), no nulls.
func checkKeys(t *testing.T, g *Grouper, ref *refGrouper, cts []colType) {
	t.Helper()
	keys := g.Keys()
	if len(keys) != len(cts) {
		t.Fatalf("Keys() gave %d columns, want %d", len(keys), len(cts))
	}
	for c, k := range keys {
		defer k.Release()
		if want := PlainType(cts[c].arrowType()); !arrow.TypeEqual(k.DataType(), want) {
			t.Errorf("key column %d is %s, want %s", c, k.DataType(), want)
		}
		got := readCol(t, k)
		if got.len() != len(ref.first) {
			t.Errorf("key column %d has %d rows, want %d", c, got.len(), len(ref.first))
			continue
		}
		for id, tuple := range ref.first {
			if gk := got.key(id); gk != tuple[c] {
				t.Errorf("group %d key column %d = %v, want %v", id, c, gk, tuple[c])
			}
		}
	}
}

// groupChunks feeds chunks of key columns to a Grouper and the reference,
// checking every chunk's ids, NumGroups after each, and Keys at the end.
func groupChunks(t *testing.T, cts []colType, chunks [][]col) {
	t.Helper()
	g, err := NewGrouper(arrowTypes(cts))
	if err != nil {
		t.Fatal(err)
	}
	ref := newRefGrouper()
	for c, keys := range chunks {
		got := g.Add(arrays(keys), nil)
		checkIDs(t, fmt.Sprintf("chunk %d", c), got, ref.add(keys))
		if g.NumGroups() != len(ref.first) {
			t.Errorf("after chunk %d: NumGroups() = %d, want %d", c, g.NumGroups(), len(ref.first))
		}
	}
	checkKeys(t, g, ref, cts)
}

// genChunks makes 1 to 4 chunks of key columns of types cts: the first
// shaped by s, the others of random lengths and offsets. Each dictionary
// column has a dictionary of its own.
func genChunks(rng *rand.Rand, cts []colType, s shape) [][]col {
	chunks := make([][]col, 1+rng.Intn(4))
	for c := range chunks {
		cs := s
		if c > 0 {
			cs.n = rng.Intn(s.n + 2)
			cs.off = rng.Intn(2) * (1 + rng.Intn(9))
		}
		for k, ct := range cts {
			ks := cs
			if ks.off > 0 {
				ks.off += k
			}
			chunks[c] = append(chunks[c], genCol(rng, ct, ks))
		}
	}
	return chunks
}

func releaseChunks(chunks [][]col) {
	for _, ch := range chunks {
		release(ch...)
	}
}

var groupKeySets = [][]colType{
	{tInt}, {tFloat}, {tString}, {tDict}, {tBool},
	{tInt, tString}, {tDict, tBool}, {tFloat, tFloat}, {tBool, tBool},
	{tString, tDict, tInt}, {tDict, tFloat, tBool, tInt},
}

func TestGrouperMatchesReference(t *testing.T) {
	for _, cts := range groupKeySets {
		t.Run(names(cts), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				chunks := genChunks(rng, cts, s)
				defer releaseChunks(chunks)
				groupChunks(t, cts, chunks)
			})
		})
	}
}

// Many distinct keys make the hash tables grow several times.
func TestGrouperManyGroups(t *testing.T) {
	for _, cts := range [][]colType{{tInt}, {tFloat}, {tString}, {tInt, tInt}, {tInt, tFloat, tString}} {
		t.Run(names(cts), func(t *testing.T) {
			defer failOnPanic(t)
			rng := rand.New(rand.NewSource(7))
			var chunks [][]col
			for c := 0; c < 5; c++ {
				var keys []col
				for _, ct := range cts {
					keys = append(keys, wideCol(rng, ct, 10000, 5000))
				}
				chunks = append(chunks, keys)
			}
			defer releaseChunks(chunks)
			groupChunks(t, cts, chunks)
		})
	}
}

// wideCol makes n rows drawn from about distinct values, with a few nulls.
func wideCol(rng *rand.Rand, ct colType, n, distinct int) col {
	c := col{kind: ct.kind(), valid: make([]bool, n)}
	for i := range c.valid {
		c.valid[i] = rng.Intn(50) != 0
	}
	switch ct {
	case tInt:
		b := array.NewInt64Builder(genMem)
		defer b.Release()
		for i := 0; i < n; i++ {
			c.ints = append(c.ints, (rng.Int63n(int64(distinct))-int64(distinct)/2)*0x100000001)
		}
		b.AppendValues(c.ints, c.valid)
		c.arr = b.NewArray()
	case tFloat:
		b := array.NewFloat64Builder(genMem)
		defer b.Release()
		for i := 0; i < n; i++ {
			c.flts = append(c.flts, float64(rng.Intn(distinct))/7)
		}
		b.AppendValues(c.flts, c.valid)
		c.arr = b.NewArray()
	case tString:
		b := array.NewStringBuilder(genMem)
		defer b.Release()
		for i := 0; i < n; i++ {
			c.strs = append(c.strs, fmt.Sprintf("key-%d", rng.Intn(distinct)))
		}
		b.AppendValues(c.strs, c.valid)
		c.arr = b.NewArray()
	default:
		panic("wideCol: " + ct.String())
	}
	return c
}

func TestGrouperExamples(t *testing.T) {
	negZero := math.Copysign(0, -1)
	otherNaN := math.Float64frombits(0x7ff8000000000001)
	negNaN := math.Float64frombits(0xfff8000000000000)
	tests := []struct {
		name string
		keys []arrow.Array
		want []int32
	}{
		{"ints", []arrow.Array{ints(5, 3, 5, nil, 3, 7)}, []int32{0, 1, 0, -1, 1, 2}},
		{"-0 is 0, NaNs together", []arrow.Array{floats(negZero, 0.0, math.NaN(), otherNaN, negNaN, 1.0, nil)}, []int32{0, 0, 1, 1, 1, 2, -1}},
		{"strings", []arrow.Array{strs("b", "", "b", nil, "")}, []int32{0, 1, 0, -1, 1}},
		{"dict", []arrow.Array{dictStrs([]string{"x", "y", "x2"}, "y", "x", nil, "y")}, []int32{0, 1, -1, 0}},
		{"bools", []arrow.Array{bools(true, nil, false, true)}, []int32{0, -1, 1, 0}},
		{"two columns", []arrow.Array{ints(1, 1, 2, 1, nil), strs("a", "b", "a", "a", "a")}, []int32{0, 1, 2, 0, -1}},
		{"null in second column", []arrow.Array{ints(1, 1, 1), bools(true, nil, true)}, []int32{0, -1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer failOnPanic(t)
			types := make([]arrow.DataType, len(tt.keys))
			for i, k := range tt.keys {
				types[i] = k.DataType()
			}
			g, err := NewGrouper(types)
			if err != nil {
				t.Fatal(err)
			}
			checkIDs(t, tt.name, g.Add(tt.keys, nil), tt.want)
		})
	}
}

// The same strings under different dictionaries, and plain, are one group.
func TestGrouperDictionariesDifferAcrossChunks(t *testing.T) {
	defer failOnPanic(t)
	g, err := NewGrouper([]arrow.DataType{Dict})
	if err != nil {
		t.Fatal(err)
	}
	chunks := []struct {
		keys arrow.Array
		want []int32
	}{
		{dictStrs([]string{"a", "b", "c"}, "a", "b", "a"), []int32{0, 1, 0}},
		{dictStrs([]string{"c", "b", "a", "d"}, "d", "a", nil, "b", "c"), []int32{2, 0, -1, 1, 3}},
		{dictStrs([]string{"b"}, "b"), []int32{1}},
		{dictStrs(nil, nil, nil), []int32{-1, -1}},
		{strs("c", "e", "a"), []int32{3, 4, 0}},
	}
	for i, ch := range chunks {
		checkIDs(t, fmt.Sprintf("chunk %d", i), g.Add([]arrow.Array{ch.keys}, nil), ch.want)
	}
	keys := g.Keys()
	defer keys[0].Release()
	got := readCol(t, keys[0])
	want := []string{"a", "b", "d", "c", "e"}
	for i, w := range want {
		if got.strs[i] != w {
			t.Errorf("key of group %d = %q, want %q", i, got.strs[i], w)
		}
	}
}

func TestGrouperEmpty(t *testing.T) {
	defer failOnPanic(t)
	types := []arrow.DataType{Int64, Float64, String, Dict, Bool}
	g, err := NewGrouper(types)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumGroups() != 0 {
		t.Errorf("NumGroups() of a new grouper = %d", g.NumGroups())
	}
	keys := g.Keys()
	if len(keys) != len(types) {
		t.Fatalf("Keys() gave %d columns, want %d", len(keys), len(types))
	}
	for i, k := range keys {
		if k.Len() != 0 || !arrow.TypeEqual(k.DataType(), PlainType(types[i])) {
			t.Errorf("key column %d: %s with %d rows, want empty %s", i, k.DataType(), k.Len(), PlainType(types[i]))
		}
	}
}

func TestNewGrouperRejectsOtherTypes(t *testing.T) {
	for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.Null, arrow.BinaryTypes.Binary, arrow.PrimitiveTypes.Float32} {
		t.Run(typ.String(), func(t *testing.T) {
			defer failOnPanic(t)
			if _, err := NewGrouper([]arrow.DataType{Int64, typ}); err == nil {
				t.Errorf("NewGrouper(%s) succeeded, want an error", typ)
			}
		})
	}
}
