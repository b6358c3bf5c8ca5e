package kernel

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// rowKey names row i's key tuple, nulls included: equal tuples, as joins
// and groups see them, get equal names.
func rowKey(cols []col, i int) string {
	tuple := make([]any, len(cols))
	for c, k := range cols {
		tuple[c] = k.key(i)
	}
	return fmt.Sprintf("%#v", tuple)
}

var hashKeySets = [][]colType{{tInt}, {tFloat}, {tString}, {tDict}, {tBool}, {tInt, tString}, {tDict, tFloat, tBool}, {tBool, tBool}}

// Rows with equal keys hash equally and, on these small inputs, rows with
// different keys never collide.
func TestHashRowsMatchesReference(t *testing.T) {
	for _, kts := range hashKeySets {
		t.Run(names(kts), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				cols := genKeyCols(rng, kts, s)
				defer release(cols...)
				got := HashRows(arrays(cols), nil)
				if len(got) != s.n {
					t.Fatalf("%d hashes for %d rows", len(got), s.n)
				}
				byKey := map[string]uint64{}
				byHash := map[uint64]string{}
				for i := 0; i < s.n; i++ {
					k := rowKey(cols, i)
					if h, ok := byKey[k]; ok && h != got[i] {
						t.Fatalf("row %d: key %s hashes to %x and %x", i, k, h, got[i])
					}
					if k2, ok := byHash[got[i]]; ok && k2 != k {
						t.Fatalf("row %d: keys %s and %s both hash to %x", i, k, k2, got[i])
					}
					byKey[k], byHash[got[i]] = got[i], k
				}
			})
		})
	}
}

// genKeyCols makes one column per type, each shaped by s at its own offset.
func genKeyCols(rng *rand.Rand, kts []colType, s shape) []col {
	cols := make([]col, len(kts))
	for i, kt := range kts {
		cs := s
		if cs.off > 0 {
			cs.off += i
		}
		cols[i] = genCol(rng, kt, cs)
	}
	return cols
}

// A string hashes the same plain or dictionary-encoded, sliced or not;
// -0 as 0 and every NaN alike.
func TestHashRowsEncodingIndependent(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		plain := genCol(rng, tString, s)
		defer release(plain)
		dict := dictArray(rng, plain.strs, plain.valid)
		defer dict.Release()
		a := HashRows([]arrow.Array{plain.arr}, nil)
		b := HashRows([]arrow.Array{dict}, nil)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("row %d (%s): plain %x, dictionary %x", i, plain.show(i), a[i], b[i])
			}
		}
	})
	nan2 := math.Float64frombits(0x7ff8000000000abc)
	h := HashRows([]arrow.Array{floats(0.0, math.Copysign(0, -1), math.NaN(), nan2, -math.NaN())}, nil)
	if h[0] != h[1] || h[2] != h[3] || h[2] != h[4] || h[0] == h[2] {
		t.Errorf("float hashes %x: want -0 as 0 and every NaN alike", h)
	}
}

// out is reused when long enough, and the column order matters.
func TestHashRowsReusesOut(t *testing.T) {
	a, b := ints(1, 2, 3), ints(2, 1, 3)
	buf := make([]uint64, 10)
	got := HashRows([]arrow.Array{a, b}, buf)
	if len(got) != 3 || &got[0] != &buf[0] {
		t.Errorf("HashRows did not reuse out")
	}
	swapped := HashRows([]arrow.Array{b, a}, nil)
	if got[0] == swapped[0] {
		t.Errorf("(1, 2) and (2, 1) hash alike")
	}
	if got[2] != swapped[2] {
		t.Errorf("(3, 3) hashes differently")
	}
	if n := len(HashRows(nil, buf)); n != 0 {
		t.Errorf("no columns gave %d hashes", n)
	}
	nulls := HashRows([]arrow.Array{ints(nil, 1), ints(1, nil)}, nil)
	if nulls[0] == nulls[1] {
		t.Errorf("(null, 1) and (1, null) hash alike")
	}
}

func TestPartitionOfMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 2, 3, 7, 16, 64, 1000} {
		hashes := []uint64{0, math.MaxUint64, 1 << 63}
		for i := 0; i < 1000; i++ {
			hashes = append(hashes, rng.Uint64())
		}
		got := PartitionOf(hashes, n, nil)
		for i, h := range hashes {
			want := new(big.Int).Rsh(new(big.Int).Mul(new(big.Int).SetUint64(h), big.NewInt(int64(n))), 64)
			if int64(got[i]) != want.Int64() {
				t.Fatalf("n=%d: PartitionOf(%x) = %d, want %d", n, h, got[i], want)
			}
		}
	}
}

// Hashes of consecutive ints, strings or floats spread evenly over any
// number of partitions, powers of two included.
func TestPartitionOfSpreads(t *testing.T) {
	const rows = 100_000
	vals := make([]int64, rows)
	strsv := make([]string, rows)
	flts := make([]float64, rows)
	for i := range vals {
		vals[i] = int64(i) * 1024 // low bits all zero
		strsv[i] = fmt.Sprintf("key-%d", i)
		flts[i] = float64(i)
	}
	cols := []arrow.Array{NewInt64(vals, nil), NewFloat64(flts, nil)}
	// Strings of every length that hashString treats apart: 1-3, 4-7,
	// 8-16 bytes and longer.
	for _, format := range []string{"key-%d", "%d", "id%010d", "a longer key than sixteen bytes, %d"} {
		for i := range strsv {
			strsv[i] = fmt.Sprintf(format, i)
		}
		offs, data := stringOffsets(strsv)
		cols = append(cols, NewString(offs, data, nil))
	}
	for _, c := range cols {
		hashes := HashRows([]arrow.Array{c}, nil)
		if distinct := len(slices.Compact(slices.Sorted(slices.Values(hashes)))); distinct != rows {
			t.Errorf("%s: %d distinct hashes of %d distinct values", c.DataType(), distinct, rows)
		}
		for _, n := range []int{2, 3, 16, 64, 100} {
			counts := make([]int, n)
			for _, p := range PartitionOf(hashes, n, nil) {
				counts[p]++
			}
			mean := float64(rows) / float64(n)
			for p, k := range counts {
				if math.Abs(float64(k)-mean) > 6*math.Sqrt(mean) {
					t.Errorf("%s (%q...) into %d: partition %d has %d rows, want about %.0f", c.DataType(), c.ValueStr(0), n, p, k, mean)
				}
			}
		}
	}
}

func TestSplitRowsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, n := range []int{1, 3, 16} {
		for _, rows := range []int{0, 1, 100} {
			parts := make([]int32, rows)
			used := 1 + rng.Intn(n) // some parts stay empty
			for i := range parts {
				parts[i] = int32(rng.Intn(used))
			}
			got := SplitRows(parts, n)
			if len(got) != n {
				t.Fatalf("%d parts, want %d", len(got), n)
			}
			for p, r := range got {
				var want []int32
				for i, q := range parts {
					if int(q) == p {
						want = append(want, int32(i))
					}
				}
				if !slices.Equal(r, want) {
					t.Errorf("n=%d rows=%d: part %d holds %v, want %v", n, rows, p, r, want)
				}
			}
		}
	}
}

// refRangePartition gives row i the number of bounds that sort strictly
// before it (in the direction asked, NaN after numbers); nulls go last.
func refRangePartition(c, bounds col, asc bool) []int32 {
	out := make([]int32, c.len())
	both := concatCols(c.kind, []col{c, bounds})
	for i := range out {
		if !c.valid[i] {
			out[i] = int32(bounds.len())
			continue
		}
		for j := 0; j < bounds.len(); j++ {
			if refCompareRows(both, asc, c.len()+j, i) < 0 {
				out[i]++
			}
		}
	}
	return out
}

// boundsFor draws n-1 values of c's kind, sorted ascending (NaN last).
func boundsFor(rng *rand.Rand, ct colType, n int) col {
	s := shape{n: n - 1}
	b := genCol(rng, ct, s)
	order := refSortIndices([]col{b}, []bool{true}, b.len())
	sorted := b.gather(order)
	release(b)
	switch ct {
	case tInt:
		sorted.arr = NewInt64(sorted.ints, nil)
	case tFloat:
		sorted.arr = NewFloat64(sorted.flts, nil)
	case tBool:
		sorted.arr = bools(anys(sorted.bools)...)
	default:
		sorted.arr = strs(anys(sorted.strs)...)
	}
	return sorted
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func TestRangePartitionMatchesReference(t *testing.T) {
	for _, ct := range allColTypes {
		for _, asc := range []bool{true, false} {
			for _, n := range []int{1, 2, 5} {
				t.Run(fmt.Sprintf("%s/asc=%v/parts=%d", ct, asc, n), func(t *testing.T) {
					forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
						c := genCol(rng, ct, s)
						b := boundsFor(rng, ct, n)
						defer release(c, b)
						got := RangePartition(c.arr, b.arr, asc, nil)
						want := refRangePartition(c, b, asc)
						checkParts(t, got, want, n)
						// Monotone: a row that sorts before another is in
						// no later a partition; equal rows share one.
						for i := 0; i+1 < s.n; i++ {
							r := refCompareRows(c, asc, i, i+1)
							if (r < 0 && got[i] > got[i+1]) || (r > 0 && got[i] < got[i+1]) || (r == 0 && got[i] != got[i+1]) {
								t.Fatalf("rows %d (%s, part %d) and %d (%s, part %d) out of order", i, c.show(i), got[i], i+1, c.show(i+1), got[i+1])
							}
						}
					})
				})
			}
		}
	}
}

func checkParts(t *testing.T, got, want []int32, n int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d partitions, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] || got[i] < 0 || int(got[i]) >= n {
			t.Fatalf("row %d: partition %d, want %d (of %d)", i, got[i], want[i], n)
		}
	}
}

func TestRangePartitionExamples(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		col    arrow.Array
		bounds arrow.Array
		asc    bool
		want   []int32
	}{
		{"ints asc, equal to a bound goes below it", ints(1, 5, 10, 11, nil, 20), ints(5, 10), true, []int32{0, 0, 1, 2, 2, 2}},
		{"ints desc, largest first", ints(1, 5, 10, 11, nil, 20), ints(5, 10), false, []int32{2, 1, 0, 0, 2, 0}},
		{"floats with NaN", floats(nan, -1.0, 3.0, nil), floats(0.0, 2.0), true, []int32{2, 0, 2, 2}},
		{"NaN bound ranks nothing", floats(nan, 1.0, 5.0), floats(2.0, nan), true, []int32{1, 0, 1}},
		{"NaN desc", floats(nan, 1.0, 5.0), floats(2.0), false, []int32{1, 1, 0}},
		{"dict strings", dictStrs([]string{"m", "a", "z"}, "a", "m", "z", nil), strs("b", "m"), true, []int32{0, 1, 2, 2}},
		{"bools desc", bools(false, true, nil), bools(true), false, []int32{1, 0, 1}},
		{"one partition", ints(3, nil), ints(), true, []int32{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer failOnPanic(t)
			checkParts(t, RangePartition(tt.col, tt.bounds, tt.asc, nil), tt.want, tt.bounds.Len()+1)
		})
	}
}

// BenchmarkHashRows hashes 1,000,000 rows of one key column, or two.
func BenchmarkHashRows(b *testing.B) {
	const rows = 1_000_000
	ikeys := make([]int64, rows)
	rng := rand.New(rand.NewSource(1))
	for i := range ikeys {
		ikeys[i] = rng.Int63()
	}
	intCol := NewInt64(ikeys, nil)
	dict, _, _ := benchKeys(rows, 100, true, false)
	plain, _, _ := benchKeys(rows, 100, false, false)
	for _, bc := range []struct {
		name  string
		cols  []arrow.Array
		bytes int64
	}{
		{"int64", []arrow.Array{intCol}, rows * 8},
		{"string", []arrow.Array{plain}, rows * 11},
		{"dict", []arrow.Array{dict}, rows * 4},
		{"int64+dict", []arrow.Array{intCol, dict}, rows * 12},
		{"3×dict+3×int64", []arrow.Array{dict, dict, dict, intCol, intCol, intCol}, rows * 36}, // groupby q10's keys
	} {
		b.Run(bc.name, func(b *testing.B) {
			out := make([]uint64, rows)
			b.SetBytes(bc.bytes)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out = HashRows(bc.cols, out)
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkSplitAndTake splits 1,000,000 rows of six columns (int64,
// float64, string, dict, bool, int64 with nulls) into 16 parts by hash
// and copies each part out.
func BenchmarkSplitAndTake(b *testing.B) {
	const rows, parts = 1_000_000, 16
	rng := rand.New(rand.NewSource(1))
	ivals, fvals := make([]int64, rows), make([]float64, rows)
	bvals, valid := make([]uint8, rows), make([]bool, rows)
	for i := range ivals {
		ivals[i], fvals[i], bvals[i] = rng.Int63(), rng.Float64(), uint8(rng.Intn(2))
		valid[i] = rng.Intn(10) != 0
	}
	plain, _, _ := benchKeys(rows, 1000, false, false)
	dict, _, _ := benchKeys(rows, 100, true, true)
	cols := []arrow.Array{NewInt64(ivals, nil), NewFloat64(fvals, nil), plain, dict, NewBool(bvals, nil), NewInt64(ivals, validBitmap(valid))}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: c.DataType(), Nullable: true}
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, rows)
	p := PartitionOf(HashRows(cols[:1], nil), parts, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, rows := range SplitRows(p, parts) {
			TakeRecord(rec, rows).Release()
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkScatter copies one partition of db-benchmark's q3 at 1e8 rows
// as its shuffle splits it: 1.25M rows of a 12-byte string key and three
// 8-byte states, into 119 outputs by the key's hash.
func BenchmarkScatter(b *testing.B) {
	const rows, parts = 1_250_000, 119
	rng := rand.New(rand.NewSource(1))
	strs := make([]string, rows)
	ivals, fvals, cvals := make([]int64, rows), make([]float64, rows), make([]int64, rows)
	for i := range strs {
		strs[i] = fmt.Sprintf("id%010d", rng.Intn(1_000_000))
		ivals[i], fvals[i], cvals[i] = rng.Int63n(5), rng.Float64()*100, 1
	}
	offs, data := stringOffsets(strs)
	cols := []arrow.Array{NewString(offs, data, nil), NewInt64(ivals, nil), NewFloat64(fvals, nil), NewInt64(cvals, nil)}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: c.DataType()}
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, rows)
	p := PartitionOf(HashRows(cols[:1], nil), parts, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range Scatter(rec, p, parts) {
			r.Release()
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// TestHashRowsFoldsAlike: a second int64 or float64 key folds into the
// row's hash as its bits, with or without a validity bitmap, so equal keys
// of two frames hash alike whether or not their columns hold nulls (the
// two sides of a shuffle join must agree), and a null row not as its value.
func TestHashRowsFoldsAlike(t *testing.T) {
	first := NewInt64([]int64{1, 2, 3, 4}, nil)
	for _, mk := range []func(valid []byte) arrow.Array{
		func(valid []byte) arrow.Array { return NewInt64([]int64{7, 8, 9, 10}, valid) },
		func(valid []byte) arrow.Array {
			return NewFloat64([]float64{0.5, math.Copysign(0, -1), math.NaN(), 2}, valid)
		},
	} {
		plain := HashRows([]arrow.Array{first, mk(nil)}, nil)
		withNulls := HashRows([]arrow.Array{first, mk([]byte{0b1011})}, nil) // row 2 null
		for _, i := range []int{0, 1, 3} {
			if plain[i] != withNulls[i] {
				t.Errorf("%T row %d: %x without a bitmap, %x with one", mk(nil), i, plain[i], withNulls[i])
			}
		}
		if withNulls[2] == plain[2] {
			t.Errorf("%T: a null row hashes as its value", mk(nil))
		}
	}
}
