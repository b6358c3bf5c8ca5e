package kernel

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// GroupRows numbers groups as a map of the printed keys does, and gives
// null keys no group.
func TestGroupRows(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 7, 5000} {
		ints := make([]int64, n)
		strs := make([]string, n)
		valid := make([]byte, (n+7)/8)
		for i := range n {
			ints[i] = int64(r.Intn(20))
			strs[i] = fmt.Sprint("k", r.Intn(30))
			if r.Intn(9) != 0 {
				valid[i/8] |= 1 << (i % 8)
			}
		}
		offs, data := stringOffsets(strs)
		cols := []arrow.Array{NewInt64(ints, valid), NewString(offs, data, nil)}
		ids, firsts := GroupRows(cols, nil)
		checkKeyGroups(t, fmt.Sprintf("n=%d", n), ints, strs, valid, ids, firsts)
	}
}

// checkKeyGroups checks ids and firsts of rows keyed by ints and strs
// (null where valid's bit is clear) against a map.
func checkKeyGroups(t *testing.T, label string, ints []int64, strs []string, valid []byte, ids, firsts []int32) {
	t.Helper()
	seen := map[string]int32{}
	for i := range ints {
		want := int32(-1)
		if valid[i/8]&(1<<(i%8)) != 0 {
			k := fmt.Sprint(ints[i], strs[i])
			g, ok := seen[k]
			if !ok {
				g = int32(len(seen))
				seen[k] = g
				if firsts[g] != int32(i) {
					t.Fatalf("%s: group %d first at row %d, want %d", label, g, firsts[g], i)
				}
			}
			want = g
		}
		if ids[i] != want {
			t.Fatalf("%s row %d: group %d, want %d", label, i, ids[i], want)
		}
	}
	if len(firsts) != len(seen) {
		t.Fatalf("%s: %d groups, want %d", label, len(firsts), len(seen))
	}
}

// checkGroups checks ids and firsts against a map of the rows' keys.
func checkGroups(t *testing.T, cols []col, ids, firsts []int32) {
	t.Helper()
	seen := map[string]int32{}
	for i := range ids {
		want := int32(-1)
		key, null := "", false
		for _, c := range cols {
			k := c.key(i)
			null = null || k == nil
			key += fmt.Sprintf("%#v|", k)
		}
		if !null {
			g, ok := seen[key]
			if !ok {
				g = int32(len(seen))
				seen[key] = g
				if firsts[g] != int32(i) {
					t.Fatalf("group %d first at row %d, want %d", g, firsts[g], i)
				}
			}
			want = g
		}
		if ids[i] != want {
			t.Fatalf("row %d: group %d, want %d", i, ids[i], want)
		}
	}
	if len(firsts) != len(seen) {
		t.Fatalf("%d groups, want %d", len(firsts), len(seen))
	}
}

// Keys that group by direct indexing (small integer ranges, dictionaries,
// booleans, and their combinations) give the groups the hash table gives,
// in every shape; wide integers and plain strings fall back to hashing.
func TestGroupRowsDense(t *testing.T) {
	for _, tc := range []struct {
		types []colType
		dense bool // when no generated int is one of the extremes
	}{
		{[]colType{tInt}, true},
		{[]colType{tDict}, true},
		{[]colType{tBool}, true},
		{[]colType{tDict, tInt, tBool}, true},
		{[]colType{tInt, tString}, false},
		{[]colType{tFloat}, false},
	} {
		t.Run(names(tc.types), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				cols := make([]col, len(tc.types))
				arrs := make([]arrow.Array, len(tc.types))
				for i, ct := range tc.types {
					cols[i] = genCol(rng, ct, s)
					arrs[i] = cols[i].arr
					defer cols[i].arr.Release()
				}
				ids, firsts := GroupRows(arrs, nil)
				checkGroups(t, cols, ids, firsts)
				if !tc.dense && s.n > 0 && DenseSize(arrs) > 0 {
					t.Errorf("%s grouped densely", names(tc.types))
				}
			})
		})
	}
}

// A dictionary whose entries repeat puts the rows of both copies of an
// entry in one group, and a key of a narrow integer range is dense.
func TestGroupRowsDenseRepeatedEntries(t *testing.T) {
	entries := []string{"a", "b", "a", "c", "b"}
	indices := []int32{0, 2, 1, 4, 3, 2, 0}
	valid := []bool{true, true, true, true, true, false, true}
	d := newDictArray(entries, indices, valid)
	defer d.Release()
	n := ints(int64(1e12), int64(1e12)+3, int64(1e12), int64(1e12), int64(1e12)+3, int64(1e12), int64(1e12))
	defer n.Release()
	cols := []arrow.Array{d, n}
	if size := DenseSize(cols); size != 5*4 { // the dictionary's entries by the integers' range
		t.Fatalf("dense over %d codes, want 20", size)
	}
	ids, firsts := GroupRows(cols, nil)
	want := []int32{0, 1, 2, 2, 3, -1, 0}
	if fmt.Sprint(ids) != fmt.Sprint(want) || fmt.Sprint(firsts) != "[0 1 2 4]" {
		t.Errorf("ids %v firsts %v, want %v [0 1 2 4]", ids, firsts, want)
	}
}

// Many groups take the radix-partitioned table: its groups, renumbered in
// order of first appearance, are the map's, with null keys and repeats
// that come late as well as early, with keys packed into words (short
// strings, down to ones that differ by a trailing zero byte) and not
// (strings past maxPackedString), and with more groups than the sample
// shows (the table grows).
func TestGroupRowsManyGroups(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	const n = 150_000
	sampled := map[int]bool{}
	for k := range 2048 {
		sampled[k*n/2048] = true
	}
	for _, tc := range []struct{ repeat, format string }{
		{"random", "k%d"}, {"late", "k%d"}, {"random", "a longer key, %d"}, {"random", "\x00%.*d"},
		{"hidden", "k%d"}, {"hidden", "a longer key, %d"},
	} {
		repeat := tc.repeat
		ints := make([]int64, n)
		strs := make([]string, n)
		valid := make([]byte, (n+7)/8)
		for i := range n {
			switch repeat {
			case "random":
				ints[i] = int64(r.Intn(n / 2))
			case "late": // every key distinct, then the first half again
				ints[i] = int64(i % (n * 2 / 3))
			case "hidden": // the rows estimateGroups samples all alike, the others distinct
				ints[i] = int64(i)
				if sampled[i] {
					ints[i] = 0
				}
			}
			switch tc.format {
			case "\x00%.*d": // "\x00", "\x000", "\x0000", ...
				strs[i] = "\x00" + strings.Repeat("0", int(ints[i]%7))
			default:
				strs[i] = fmt.Sprintf(tc.format, ints[i]%7)
			}
			if r.Intn(50) != 0 {
				valid[i/8] |= 1 << (i % 8)
			}
		}
		offs, data := stringOffsets(strs)
		cols := []arrow.Array{NewInt64(ints, valid), NewString(offs, data, nil)}
		ids, firsts := GroupRows(cols, nil)
		checkKeyGroups(t, repeat+" "+tc.format, ints, strs, valid, ids, firsts)
	}
}
