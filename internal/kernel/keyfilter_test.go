package kernel

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// A filter holds every key added and lets few others through: about one
// in 70 at 16 bits a key, for two bits of one word, and one in 20 at the
// 8 bits a key of siftRows keys.
func TestKeyFilter(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, c := range []struct {
		n       int
		maxRate float64
	}{{1, 0.03}, {100, 0.03}, {5000, 0.03}, {131072, 0.03}, {siftRows, 0.07}} {
		n := c.n
		var f keyFilter
		f.reset(n)
		in := map[int64]bool{}
		for len(in) < n {
			k := rng.Int63() - rng.Int63()
			in[k] = true
			f.add(k)
		}
		for k := range in {
			if !f.mayHold(k) {
				t.Fatalf("%d keys: %d added, not held", n, k)
			}
		}
		passed, tries := 0, 200000
		for range tries {
			if k := rng.Int63(); !in[k] && f.mayHold(k) {
				passed++
			}
		}
		if rate := float64(passed) / float64(tries); rate > c.maxRate {
			t.Errorf("%d keys: %.2f%% of other keys pass, want at most %.0f%%", n, 100*rate, 100*c.maxRate)
		}
	}
	// Keys in a run (TPC-H's order keys) spread over the words alike.
	var f keyFilter
	f.reset(60000)
	for k := range int64(60000) {
		f.add(4 * k)
	}
	passed := 0
	for k := range int64(200000) {
		if f.mayHold(4*k + 1) {
			passed++
		}
	}
	if passed > 6000 {
		t.Errorf("keys in a run: %d of 200000 others pass", passed)
	}
}

// mayMatch is SiftKept of every row: 1 where a key may match.
func mayMatch(t *JoinTable, keys arrow.Array) ([]uint8, error) {
	pass := make([]uint8, keys.Len())
	for i := range pass {
		pass[i] = 1
	}
	return pass, t.SiftKept(keys, pass)
}

// SiftKept passes every probe key some build key equals (and a null where
// the build side has a null), for int32 and int64 keys against either, and
// date keys by their widening; few others pass where the table sifts.
func TestSiftKept(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	mem := memory.NewGoAllocator()
	build := func(dt arrow.DataType, vals []int64, null bool) arrow.Array {
		b := array.NewBuilder(mem, dt)
		defer b.Release()
		for _, v := range vals {
			switch b := b.(type) {
			case *array.Int32Builder:
				b.Append(int32(v))
			case *array.Int64Builder:
				b.Append(v)
			case *array.Date32Builder:
				b.Append(arrow.Date32(v))
			}
		}
		if null {
			b.AppendNull()
		}
		return b.NewArray()
	}
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64}
	for _, n := range []int{0, 1, 700, 70000, 300000} {
		for _, bt := range types {
			for _, pt := range types {
				for _, nulls := range []bool{false, true} {
					keys := make([]int64, n)
					in := map[int64]bool{}
					for i := range keys {
						keys[i] = rng.Int63n(4*int64(n)+1) - int64(n)
						in[keys[i]] = true
					}
					b := build(bt, keys, nulls)
					table, err := BuildJoin([]arrow.Array{b})
					if err != nil {
						t.Fatal(err)
					}
					if (n == 700 || n == 300000) && !table.Sifts() {
						t.Errorf("%d %s keys: no filter", n, bt)
					}
					probeKeys := make([]int64, 5000)
					for i := range probeKeys {
						probeKeys[i] = rng.Int63n(8*int64(n)+2) - 2*int64(n)
					}
					p := build(pt, probeKeys, true)
					pass, err := mayMatch(table, p)
					if err != nil {
						t.Fatal(err)
					}
					// SiftKept clears the rows mayMatch fails among those kept.
					keep := make([]uint8, len(pass))
					for i := range keep {
						keep[i] = uint8(rng.Intn(2))
					}
					sifted := slices.Clone(keep)
					if err := table.SiftKept(p, sifted); err != nil {
						t.Fatal(err)
					}
					for i := range keep {
						if sifted[i] != keep[i]&pass[i] {
							t.Fatalf("%d %s keys, %s probe: row %d kept %d, passes %d, sifted %d", n, bt, pt, i, keep[i], pass[i], sifted[i])
						}
					}
					passed := 0
					for i, k := range probeKeys {
						if in[k] && pass[i] != 1 {
							t.Fatalf("%d %s keys, %s probe: %d is a build key, not passed", n, bt, pt, k)
						}
						if !in[k] && pass[i] == 1 {
							passed++
						}
					}
					if got := pass[len(probeKeys)]; table.Sifts() && (got == 1) != nulls {
						t.Errorf("%d %s keys (a null: %v): a null probe key got %d", n, bt, nulls, got)
					}
					if table.Sifts() && passed > len(probeKeys)/10 {
						t.Errorf("%d %s keys, %s probe: %d of %d other keys passed", n, bt, pt, passed, len(probeKeys))
					}
					if !table.Sifts() && passed+len(in) < len(probeKeys)/2 {
						t.Errorf("%d keys: a table without a filter passed only %d", n, passed)
					}
					b.Release()
					p.Release()
					table.Release()
				}
			}
		}
	}
	// Dates meet dates by their days.
	b := build(arrow.FixedWidthTypes.Date32, []int64{10, 20, 30}, false)
	defer b.Release()
	table, err := BuildJoin([]arrow.Array{b})
	if err != nil {
		t.Fatal(err)
	}
	defer table.Release()
	p := build(arrow.FixedWidthTypes.Date32, []int64{10, 11, 20, 30}, false)
	defer p.Release()
	pass, err := mayMatch(table, p)
	if err != nil {
		t.Fatal(err)
	}
	if pass[0] != 1 || pass[2] != 1 || pass[3] != 1 {
		t.Errorf("dates: %v", pass)
	}
}

// BenchmarkSiftKept sifts 4M int32 probe keys, half of them kept by the
// filters before, through the filter of 1.5M build keys (TPC-H q3 at SF10:
// the BUILDING customers' early orders against the late lines): the
// filter is larger than the L2 cache, so each ask waits on the L3; 5%,
// half or all of the keys kept by the filters before.
func BenchmarkSiftKept(b *testing.B) {
	const build, probe, values = 1_500_000, 4_000_000, 60_000_000
	rng := rand.New(rand.NewSource(5))
	bb := array.NewInt32Builder(memory.DefaultAllocator)
	for range build {
		bb.Append(int32(rng.Intn(values)))
	}
	keys := bb.NewInt32Array()
	defer keys.Release()
	table, err := BuildJoin([]arrow.Array{keys})
	if err != nil {
		b.Fatal(err)
	}
	defer table.Release()
	pb := array.NewInt32Builder(memory.DefaultAllocator)
	for range probe {
		pb.Append(int32(rng.Intn(values)))
	}
	p := pb.NewInt32Array()
	defer p.Release()
	for _, share := range []int{5, 50, 100} {
		b.Run(fmt.Sprintf("%d%% kept", share), func(b *testing.B) {
			kept := make([]uint8, probe)
			for i := range kept {
				if rng.Intn(100) < share {
					kept[i] = 1
				}
			}
			keep := make([]uint8, probe)
			b.SetBytes(4 * probe)
			b.ResetTimer()
			for range b.N {
				copy(keep, kept)
				if err := table.SiftKept(p, keep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sift keeps exactly the keys its filter holds, in order with their rows,
// however wrong the sample that sized its outputs: here every key but the
// sampled ones is a build key, so the outputs, sized for none, grow.
func TestSiftGrows(t *testing.T) {
	const n = 100_000
	var f keyFilter
	f.reset(n)
	sampled := map[int]bool{}
	for j := range filterSample {
		sampled[j*n/filterSample] = true
	}
	keys, rows := make([]int32, n), make([]int32, n)
	for i := range keys {
		keys[i], rows[i] = int32(3*i), int32(n-i)
		if !sampled[i] {
			f.add(int64(keys[i]))
		}
	}
	var m joinMatches
	gotKeys, gotRows := sift(&f, &m, keys, rows)
	var wantKeys, wantRows []int32
	for i, k := range keys {
		if f.mayHold(int64(k)) {
			wantKeys, wantRows = append(wantKeys, k), append(wantRows, rows[i])
		}
	}
	if len(wantKeys) < n-filterSample {
		t.Fatalf("%d keys held of %d added", len(wantKeys), n-filterSample)
	}
	if !slices.Equal(gotKeys, wantKeys) || !slices.Equal(gotRows, wantRows) {
		t.Fatalf("sift kept %d keys, want %d", len(gotKeys), len(wantKeys))
	}
	if m.unmatched != n-len(wantKeys) {
		t.Errorf("%d unmatched, want %d", m.unmatched, n-len(wantKeys))
	}
}
