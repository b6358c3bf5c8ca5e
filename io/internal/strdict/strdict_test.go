package strdict

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTablesAgainstMap gives strings of every length ids through the two
// tables, as a parser does, and checks them against a map: strings of up
// to 7 bytes alone (a narrow ShortTable) and of up to 23 (one made wide).
func TestTablesAgainstMap(t *testing.T) {
	for _, maxLen := range []int{7, 23} {
		t.Run(fmt.Sprint("max", maxLen), func(t *testing.T) { tablesAgainstMap(t, maxLen) })
	}
}

func tablesAgainstMap(t *testing.T, maxLen int) {
	r := rand.New(rand.NewPCG(1, 2))
	want := map[string]int32{}
	var short ShortTable
	long := NewTable(4)
	offs, data := []int32{0}, []byte(nil)
	for range 20000 {
		b := make([]byte, r.IntN(maxLen+1))
		for i := range b {
			b[i] = "ab\x00"[r.IntN(3)] // few distinct bytes: many repeats, zeros included
		}
		var id int32
		if len(b) <= MaxShort {
			id = short.Find(Pack(b))
		} else {
			id = long.Find(Hash(b), b, offs, data)
		}
		if w, ok := want[string(b)]; !ok && id != -1 || ok && id != w {
			t.Fatalf("%q: id %d, want %d (held: %v)", b, id, w, ok)
		}
		if id >= 0 {
			continue
		}
		id = int32(len(offs) - 1)
		want[string(b)] = id
		data = append(data, b...)
		offs = append(offs, int32(len(data)))
		if len(b) <= MaxShort {
			short.Insert(Pack(b), id)
		} else {
			long.Insert(Hash(b), id)
		}
	}
	// FindAll agrees with the map on held and missing keys alike.
	var keys []Key
	for range 1000 {
		b := make([]byte, r.IntN(min(maxLen, MaxShort)+1))
		for i := range b {
			b[i] = "abc"[r.IntN(3)]
		}
		keys = append(keys, Pack(b))
	}
	ids := make([]int32, len(keys))
	short.FindAll(keys, ids)
	for i, k := range keys {
		b := k.AppendTo(nil)
		if w, ok := want[string(b)]; !ok && ids[i] != -1 || ok && ids[i] != w {
			t.Fatalf("FindAll %q: id %d, want %d (held: %v)", b, ids[i], w, ok)
		}
	}
}

// TestWiden makes a narrow table of n keys wide with one longer key, then
// finds every key: the wide table's size must be a power of two for its
// probes to reach every slot (26 narrow keys once made 104 slots, and the
// next insert probed a cycle of full slots forever).
func TestWiden(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 17, 26, 100, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var tab ShortTable
			var keys [][]byte
			for i := range n {
				keys = append(keys, fmt.Appendf(nil, "id%d", i))
			}
			for i := range 2*n + 64 {
				keys = append(keys, fmt.Appendf(nil, "long-id%08d", i))
			}
			for i, k := range keys {
				if id, added := tab.FindOrInsert(Pack(k), int32(i)); !added || id != int32(i) {
					t.Fatalf("insert %q: id %d, added %v", k, id, added)
				}
			}
			for i, k := range keys {
				if id := tab.Find(Pack(k)); id != int32(i) {
					t.Fatalf("find %q: id %d, want %d", k, id, i)
				}
			}
		})
	}
}

// TestPack checks that a string's key depends on its bytes and length
// alone, not on the bytes after it in its buffer.
func TestPack(t *testing.T) {
	buf := []byte("abcdefghijklmno\xffxyzw")
	for n := 0; n <= MaxShort; n++ {
		inside := buf[:n] // capacity 16 or more: Pack loads words at once
		alone := append([]byte(nil), buf[:n]...)
		alone = alone[:n:n] // capacity n: Pack copies it
		if Pack(inside) != Pack(alone) {
			t.Errorf("length %d: Pack %x inside a buffer, %x alone", n, Pack(inside), Pack(alone))
		}
		if got := Pack(alone).AppendTo(nil); string(got) != string(alone) {
			t.Errorf("length %d: AppendTo gives %q, want %q", n, got, alone)
		}
		if n > 0 && Pack(buf[:n]) == Pack(buf[:n-1]) {
			t.Errorf("lengths %d and %d pack alike", n, n-1)
		}
	}
	if Pack(nil) != Pack([]byte{}) {
		t.Error("nil and empty pack differently")
	}
}

func BenchmarkHash(b *testing.B) {
	for _, n := range []int{4, 12, 40} {
		v := []byte(fmt.Sprintf("%0*d", n, 7))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for range b.N {
				Hash(v)
			}
		})
	}
}
