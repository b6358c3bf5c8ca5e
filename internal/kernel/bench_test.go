package kernel

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// benchKeys makes n rows of a key with the given number of distinct
// strings, dictionary-encoded or plain, and an int64 value column.
func benchKeys(n, distinct int, dict bool, nulls bool) (keys, vals arrow.Array, bytes int64) {
	rng := rand.New(rand.NewSource(1))
	entries := make([]string, distinct)
	for i := range entries {
		entries[i] = fmt.Sprintf("key-%03d", i)
	}
	indices := make([]int32, n)
	values := make([]int64, n)
	valid := make([]bool, n)
	for i := range indices {
		indices[i] = int32(rng.Intn(distinct))
		values[i] = rng.Int63n(1000)
		valid[i] = !nulls || rng.Intn(10) != 0
	}
	vb := validBitmap(valid)
	vals = NewInt64(values, vb)
	bytes = int64(n) * 8
	if dict {
		offsets, data := stringOffsets(entries)
		dictArr := NewString(offsets, data, nil)
		defer dictArr.Release()
		return NewDict(indices, dictArr, vb), vals, bytes + int64(n)*4
	}
	strs := make([]string, n)
	for i, j := range indices {
		strs[i] = entries[j]
	}
	offsets, data := stringOffsets(strs)
	return NewString(offsets, data, vb), vals, bytes + int64(len(data)) + int64(n)*4
}

// stringOffsets lays strs out as a string column's offsets and data.
func stringOffsets(strs []string) ([]int32, []byte) {
	offsets := []int32{0}
	var data []byte
	for _, s := range strs {
		data = append(data, s...)
		offsets = append(offsets, int32(len(data)))
	}
	return offsets, data
}

// BenchmarkGroupSum groups 1,000,000 rows by a 100-value string key and
// sums an int64 column per group: one partition's Partial step.
func BenchmarkGroupSum(b *testing.B) {
	const rows, distinct = 1_000_000, 100
	for _, bc := range []struct {
		name        string
		dict, nulls bool
	}{{"dict-key", true, false}, {"dict-key-nulls", true, true}, {"plain-key", false, false}} {
		b.Run(bc.name, func(b *testing.B) {
			keys, vals, bytes := benchKeys(rows, distinct, bc.dict, bc.nulls)
			defer keys.Release()
			defer vals.Release()
			b.SetBytes(bytes)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				g, err := NewGrouper([]arrow.DataType{keys.DataType()})
				if err != nil {
					b.Fatal(err)
				}
				ids := g.Add([]arrow.Array{keys}, nil)
				st, _ := Partial(Sum, []arrow.Array{vals}, ids, g.NumGroups())
				if g.NumGroups() != distinct {
					b.Fatalf("%d groups, want %d", g.NumGroups(), distinct)
				}
				st[0].Release()
			}
		})
	}
}

// BenchmarkCompareInt64Scalar compares an int64 column with a scalar (col > 500).
func BenchmarkCompareInt64Scalar(b *testing.B) {
	for _, rows := range []int{1024, 65536, 1_000_000} {
		for _, nulls := range []bool{false, true} {
			b.Run(fmt.Sprintf("rows=%d/nulls=%v", rows, nulls), func(b *testing.B) {
				rng := rand.New(rand.NewSource(1))
				values := make([]int64, rows)
				valid := make([]bool, rows)
				for i := range values {
					values[i] = rng.Int63n(1000)
					valid[i] = !nulls || rng.Intn(10) != 0
				}
				col := NewInt64(values, validBitmap(valid))
				defer col.Release()
				b.SetBytes(int64(rows) * 8)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := Compare(Col(col), Scalar(int64(500)), Gt, rows); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkGroupRowsDistinct groups 1,250,000 rows of two int64 keys that
// are nearly all distinct, as q10's combine does: the hash table is larger
// than the caches.
func BenchmarkGroupRowsDistinct(b *testing.B) {
	const rows = 1_250_000
	rng := rand.New(rand.NewSource(2))
	x, y := make([]int64, rows), make([]int64, rows)
	for i := range x {
		x[i], y[i] = rng.Int63n(1<<40), rng.Int63n(100)
	}
	cols := []arrow.Array{NewInt64(x, nil), NewInt64(y, nil)}
	ids := make([]int32, rows)
	b.SetBytes(rows * 16)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		GroupRows(cols, ids)
	}
}

// BenchmarkGroupRowsCombine groups what one output of db-benchmark's q3 at
// 1e8 rows combines in one run: the groups combined so far, then eight
// pieces of rows, 12-byte string keys (id3), about 11 rows a group, and
// every hash of one shuffle output's (the same top bits).
func BenchmarkGroupRowsCombine(b *testing.B) {
	const groups, rows = 8400, 92_000
	rng := rand.New(rand.NewSource(2))
	var keys []string
	for len(keys) < groups { // keys of one output of 119
		k := fmt.Sprintf("id%010d", rng.Intn(1_000_000))
		if PartitionOf([]uint64{hashString([]byte(k))}, 119, nil)[0] == 0 {
			keys = append(keys, k)
		}
	}
	strs := slices.Clone(keys)
	for len(strs) < rows {
		strs = append(strs, keys[rng.Intn(groups)])
	}
	benchGroupStrings(b, strs)
}

// BenchmarkGroupPiecesCombine groups BenchmarkGroupRowsCombine's rows as
// the combine gets them, the groups so far and then eight pieces: by
// GroupPieces, and concatenated, grouped and taken as before it.
func BenchmarkGroupPiecesCombine(b *testing.B) {
	const groups, rows = 8400, 92_000
	rng := rand.New(rand.NewSource(2))
	var keys []string
	for len(keys) < groups {
		k := fmt.Sprintf("id%010d", rng.Intn(1_000_000))
		if PartitionOf([]uint64{hashString([]byte(k))}, 119, nil)[0] == 0 {
			keys = append(keys, k)
		}
	}
	var pieces [][]arrow.Array
	for p := range 9 {
		strs := keys // the groups combined so far, then eight pieces of rows
		if p > 0 {
			strs = nil
			for range (rows - groups) / 8 {
				strs = append(strs, keys[rng.Intn(groups)])
			}
		}
		offs, data := stringOffsets(strs)
		pieces = append(pieces, []arrow.Array{NewString(offs, data, nil)})
	}
	b.Run("pieces", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_, keys, _ := GroupPieces(pieces)
			keys[0].Release()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	})
	b.Run("concatenated", func(b *testing.B) {
		parts := make([]arrow.Array, len(pieces))
		for p, piece := range pieces {
			parts[p] = piece[0]
		}
		for i := 0; i < b.N; i++ {
			all, _ := ConcatDict(parts)
			_, firsts := GroupRows([]arrow.Array{all}, nil)
			Take(all, firsts).Release()
			all.Release()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	})
}

// BenchmarkGroupRowsDense groups one partition of db-benchmark's q4 at
// 1e8 rows: 1.25M rows by an integer key of 100 values.
func BenchmarkGroupRowsDense(b *testing.B) {
	const rows = 1_250_000
	rng := rand.New(rand.NewSource(2))
	vals := make([]int64, rows)
	for i := range vals {
		vals[i] = 1 + rng.Int63n(100)
	}
	benchGroupInts(b, vals)
}

// BenchmarkGroupRowsCombineInts groups one combine of db-benchmark's q5 at
// 1e8 rows: 115,000 integer keys of a million-wide range into 10,000 groups.
func BenchmarkGroupRowsCombineInts(b *testing.B) {
	const groups, rows = 10_000, 115_000
	rng := rand.New(rand.NewSource(2))
	keys := make([]int64, groups)
	for i := range keys {
		keys[i] = rng.Int63n(1_000_000)
	}
	vals := make([]int64, rows)
	for i := range vals {
		vals[i] = keys[rng.Intn(groups)]
	}
	benchGroupInts(b, vals)
}

// benchGroupInts times GroupRows of one integer column, in ns a row.
func benchGroupInts(b *testing.B, vals []int64) {
	cols := []arrow.Array{NewInt64(vals, nil)}
	ids := make([]int32, len(vals))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		GroupRows(cols, ids)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(vals)), "ns/row")
}

// benchGroupStrings times GroupRows of one plain string column.
func benchGroupStrings(b *testing.B, strs []string) {
	offs, data := stringOffsets(strs)
	cols := []arrow.Array{NewString(offs, data, nil)}
	ids := make([]int32, len(strs))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		GroupRows(cols, ids)
	}
}

// BenchmarkGroupRowsDistinctStrings is BenchmarkGroupRowsDistinct with
// 12-byte string keys: a partition of q10's id3 column alone.
func BenchmarkGroupRowsDistinctStrings(b *testing.B) {
	const rows = 1_250_000
	rng := rand.New(rand.NewSource(2))
	strs := make([]string, rows)
	for i := range strs {
		strs[i] = fmt.Sprintf("id%010d", rng.Intn(100_000_000))
	}
	benchGroupStrings(b, strs)
}
