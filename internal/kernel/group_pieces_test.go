package kernel

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// shortStrings makes a column of n strings of at most maxPackedString
// bytes drawn from distinct values (some empty, some of exactly 15 bytes,
// some sharing their first 8 bytes), null where valid is false; long adds
// one string too long to pack.
func shortStrings(rng *rand.Rand, n, distinct int, m nullMode, long bool) col {
	c := col{kind: KindString, valid: genValid(rng, n, m), strs: make([]string, n)}
	for i := range c.strs {
		v := rng.Intn(distinct)
		switch v % 4 {
		case 0:
			c.strs[i] = fmt.Sprint(v)
		case 1:
			c.strs[i] = fmt.Sprintf("id%013d", v) // 15 bytes
		case 2:
			c.strs[i] = fmt.Sprintf("prefix00%d", v)
		default:
			c.strs[i] = fmt.Sprintf("é%d", v)
		}
		if v == 0 {
			c.strs[i] = ""
		}
	}
	if long && n > 0 {
		c.strs[n/2] = "a string longer than fifteen bytes"
	}
	b := array.NewStringBuilder(genMem)
	defer b.Release()
	b.AppendValues(c.strs, c.valid)
	c.arr = b.NewArray()
	return c
}

func TestGroupPieces(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	ints := func(n int, m nullMode) col { return genFull(rng, tInt, n, m) }
	strs := func(distinct int) func(int, nullMode) col {
		return func(n int, m nullMode) col { return shortStrings(rng, n, distinct, m, false) }
	}
	long := func(n int, m nullMode) col { return shortStrings(rng, n, 50, m, true) }
	gen := func(ct colType) func(int, nullMode) col {
		return func(n int, m nullMode) col { return genFull(rng, ct, n, m) }
	}
	cases := []struct {
		name   string
		keys   []func(int, nullMode) col
		rows   []int // each piece's
		packed bool  // whether the words path groups them
	}{
		{"one string", []func(int, nullMode) col{strs(40)}, []int{100, 0, 37, 500}, true},
		{"string, int", []func(int, nullMode) col{strs(30), ints}, []int{300, 300}, true},
		{"bool, string", []func(int, nullMode) col{gen(tBool), strs(20)}, []int{64, 1, 200}, true},
		{"two strings", []func(int, nullMode) col{strs(9), strs(11)}, []int{150, 150, 150}, true},
		{"many groups", []func(int, nullMode) col{strs(6000)}, []int{5000, 5000, 5000}, true},
		{"one piece", []func(int, nullMode) col{strs(100)}, []int{1000}, true},
		{"too many words", []func(int, nullMode) col{strs(5), strs(5), ints}, []int{100, 100}, false},
		{"a long string", []func(int, nullMode) col{long}, []int{100, 100}, false},
		{"ints only", []func(int, nullMode) col{ints}, []int{100, 100}, false},
		{"float, string", []func(int, nullMode) col{gen(tFloat), strs(10)}, []int{100, 100}, false},
		{"dictionary", []func(int, nullMode) col{gen(tDict)}, []int{100, 100}, false},
		{"too many rows for one table", []func(int, nullMode) col{strs(1 << 17)}, []int{40000, 40000}, true},
		{"too many rows, two keys", []func(int, nullMode) col{strs(1 << 17), ints}, []int{30000, 0, 30000, 30000}, true},
	}
	for _, tc := range cases {
		for _, m := range []nullMode{noNulls, someNulls} {
			// packed: every other piece's strings packed (PackedStrings),
			// as an aggregation's shuffle sends those that pack.
			for _, packed := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/packed=%v", tc.name, m, packed), func(t *testing.T) {
					testGroupPieces(t, rng, tc.keys, tc.rows, m, tc.packed, packed)
				})
			}
		}
	}
}

func testGroupPieces(t *testing.T, rng *rand.Rand, gens []func(int, nullMode) col, rows []int, m nullMode, wantPacked, packed bool) {
	pieces := make([][]arrow.Array, len(rows))
	ref := newRefGrouper()
	var want [][]int32
	var plain []arrow.DataType
	for p, n := range rows {
		cols := make([]col, len(gens))
		for c, g := range gens {
			cols[c] = g(n, m)
			defer cols[c].arr.Release()
		}
		pieces[p] = arrays(cols)
		if p == 0 {
			for _, a := range pieces[p] {
				plain = append(plain, a.DataType())
			}
		}
		if packed && p%2 == 1 {
			pieces[p] = packedPiece(t, pieces[p])
		}
		want = append(want, ref.add(cols))
	}
	if _, _, ok := packPieces(pieces); ok != wantPacked {
		t.Fatalf("packPieces ok = %v, want %v", ok, wantPacked)
	}
	ids, keys, err := GroupPieces(pieces)
	if err != nil {
		t.Fatal(err)
	}
	for p := range want {
		checkIDs(t, fmt.Sprintf("piece %d", p), ids[p], want[p])
	}
	if len(keys) != len(gens) {
		t.Fatalf("%d key columns, want %d", len(keys), len(gens))
	}
	for c, k := range keys {
		defer k.Release()
		if packs := wantPacked && anyPacked(pieces, c); IsPackedStrings(k) != packs {
			t.Errorf("key %d is %s, want packed %v", c, k.DataType(), packs)
		}
		k = UnpackStrings(k)
		defer k.Release()
		if !arrow.TypeEqual(k.DataType(), plain[c]) {
			t.Errorf("key %d is %s, want %s", c, k.DataType(), plain[c])
		}
		got := readCol(t, k)
		if got.len() != len(ref.first) {
			t.Fatalf("key %d has %d groups, want %d", c, got.len(), len(ref.first))
		}
		for g, tuple := range ref.first {
			if v := got.key(g); v != tuple[c] {
				t.Errorf("group %d key %d = %#v, want %#v", g, c, v, tuple[c])
			}
		}
	}
}

func TestGroupPiecesNone(t *testing.T) {
	if _, _, err := GroupPieces(nil); err == nil {
		t.Fatal("no pieces: no error")
	}
}

// TestGroupKeysNulls: a null key is a group of its own, one for each
// combination of nulls; its key comes back null. Whole and in pieces
// (the strings make the pieces take the packed path without nulls).
func TestGroupKeysNulls(t *testing.T) {
	ints := NewInt64([]int64{1, 0, 1, 0, 2, 9}, []byte{0b010101})
	strs := NewString([]int32{0, 1, 1, 2, 3, 3, 4}, []byte("aaab"), []byte{0b101101})
	cols := []arrow.Array{ints, strs}
	want := []string{"1|a", "<nil>|<nil>", "1|a", "<nil>|a", "2|<nil>", "<nil>|b"}
	check := func(what string, ids []int32, keys []arrow.Array) {
		t.Helper()
		for i, w := range want {
			g := ids[i]
			got := fmt.Sprintf("%v|%v", valueAt(keys[0], int(g)), valueAt(keys[1], int(g)))
			if got != w {
				t.Errorf("%s: row %d is in group %d keyed %s, want %s", what, i, g, got, w)
			}
			for j := range i {
				if (ids[j] == g) != (want[j] == w) {
					t.Errorf("%s: rows %d and %d grouped %v, keys %s and %s", what, j, i, ids[j] == g, want[j], w)
				}
			}
		}
	}
	ids, keys := GroupKeysNulls(cols, nil)
	check("whole", ids, keys)
	pieces := [][]arrow.Array{{array.NewSlice(ints, 0, 2), array.NewSlice(strs, 0, 2)}, {array.NewSlice(ints, 2, 6), array.NewSlice(strs, 2, 6)}}
	pids, pkeys, err := GroupPiecesNulls(pieces)
	if err != nil {
		t.Fatal(err)
	}
	check("pieces", append(slices.Clone(pids[0]), pids[1]...), pkeys)
}

func valueAt(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	return a.GetOneForMarshal(i)
}
