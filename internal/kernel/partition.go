package kernel

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/cespare/xxhash/v2"

	"github.com/duskdata/dusk/internal/alloc"
)

// nullHash is what a null contributes to a row's hash, in any column.
const nullHash uint64 = 0x6a09e667f3bcc909

// boolHash is what false and true contribute to a row's hash.
var boolHash = [2]uint64{mix64(0x3c6ef372fe94f82b), mix64(0xa54ff53a5f1d36f1)}

// mix64 is MurmurHash3's 64-bit finalizer: every input bit flips about half
// of the output bits, high and low alike.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// combineHash folds the hash of a row's next column into acc; the rotation
// makes the result depend on column order.
func combineHash(acc, h uint64) uint64 {
	return mix64(bits.RotateLeft64(acc, 27) ^ h)
}

// floatBits is v's bits with -0 as 0 and every NaN as one NaN, so that
// values equal as groups see them hash equally.
func floatBits(v float64) uint64 {
	if v != v {
		return 0x7ff8000000000001
	}
	return math.Float64bits(v + 0) // -0 + 0 is +0
}

// hashString hashes a string's bytes: one of at most 16 bytes from two
// words that, with its length, determine it (loads that overlap where it
// is short), mixed twice; a longer one with xxhash, which costs a call
// and a setup that short keys (db-benchmark's ids, codes, names) feel.
func hashString(b []byte) uint64 {
	n := len(b)
	var lo, hi uint64
	switch {
	case n > 16:
		return xxhash.Sum64(b)
	case n >= 8:
		lo, hi = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	case n >= 4:
		lo, hi = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n > 0:
		lo = uint64(b[0])<<16 | uint64(b[n/2])<<8 | uint64(b[n-1])
	}
	return mix64(mix64(lo^uint64(n)*0x9e3779b97f4a7c15) ^ hi)
}

// HashRows writes a 64-bit hash of each row's values in cols into out,
// grown if shorter than the rows, and returns it. Equal values hash equally
// whatever their encoding (plain or dictionary strings, -0 and 0, any NaN);
// a null hashes to a constant of its column position.
//
// Rows go a block at a time through every column, so that the block's
// hashes stay in the L1 cache while the columns fold in.
func HashRows(cols []arrow.Array, out []uint64) []uint64 {
	cols, release := WidenKeys(cols)
	defer release()
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	if cap(out) < n {
		out = alloc.NoZeroOf[uint64](n) // every hash is written below
	}
	out = out[:n]
	if len(cols) == 0 {
		return out
	}
	hs := make([]colHasher, len(cols))
	for c, col := range cols {
		hs[c] = newColHasher(col)
	}
	if len(cols) == 1 {
		hs[0].hash(0, out)
		return out
	}
	var block [hashBlock]uint64
	for from := 0; from < n; from += hashBlock {
		dst := out[from:min(from+hashBlock, n)]
		hs[0].hash(from, dst)
		for c := range hs[1:] {
			if hs[c+1].fold(from, dst) {
				continue
			}
			b := block[:len(dst)]
			hs[c+1].hash(from, b)
			for i, h := range b {
				dst[i] = combineHash(dst[i], h)
			}
		}
	}
	return out
}

// fold combines the values of rows from to from+len(acc) into their hashes
// so far, where the column's values need no hash of their own first: an
// int64 or float64 column goes into the combining mix as its bits (one mix
// a row, not two; a null as nullHash). It reports whether it could. Which
// way a column goes depends on its type alone, so equal keys of two frames
// hash alike whatever their nulls.
func (h *colHasher) fold(from int, acc []uint64) bool {
	to := from + len(acc)
	switch {
	case h.ints != nil && h.valid == nil:
		for i, v := range h.ints[from:to] {
			acc[i] = combineHash(acc[i], uint64(v))
		}
	case h.floats != nil && h.valid == nil:
		for i, v := range h.floats[from:to] {
			acc[i] = combineHash(acc[i], floatBits(v))
		}
	case h.ints != nil:
		for i, v := range h.ints[from:to] {
			x := uint64(v)
			if !IsValid(h.valid, h.off, from+i) {
				x = nullHash
			}
			acc[i] = combineHash(acc[i], x)
		}
	case h.floats != nil:
		for i, v := range h.floats[from:to] {
			x := floatBits(v)
			if !IsValid(h.valid, h.off, from+i) {
				x = nullHash
			}
			acc[i] = combineHash(acc[i], x)
		}
	default:
		_, isInt := h.col.(*array.Int64)
		_, isFloat := h.col.(*array.Float64)
		return isInt || isFloat // an empty column: nothing to fold
	}
	return true
}

// hashBlock is how many rows HashRows hashes through all columns at once.
const hashBlock = 1024

// colHasher hashes the rows of one column.
type colHasher struct {
	col     arrow.Array
	valid   []byte
	off     int
	ints    []int64
	floats  []float64
	offs    []int32 // plain strings, or a dictionary's entries
	data    []byte
	ids     []int32  // dictionary indices
	entries []uint64 // a dictionary's entries' hashes, each computed once
}

func newColHasher(col arrow.Array) colHasher {
	h := colHasher{col: col}
	h.valid, h.off = Validity(col)
	switch a := col.(type) {
	case *array.Int64:
		h.ints = a.Int64Values()
	case *array.Float64:
		h.floats = a.Float64Values()
	case *array.Boolean:
	case *array.String:
		h.offs, h.data = stringParts(a)
	case *array.Dictionary:
		s := StringsOf(a)
		h.ids = s.Indices
		offs, data := stringParts(s.Dict)
		h.entries = make([]uint64, s.Dict.Len())
		for j := range h.entries {
			h.entries[j] = hashString(data[offs[j]:offs[j+1]])
		}
	default:
		panic(fmt.Sprintf("kernel: HashRows of %s", col.DataType()))
	}
	return h
}

// hash writes the hashes of rows from to from+len(dst) into dst.
func (h *colHasher) hash(from int, dst []uint64) {
	to := from + len(dst)
	switch a := h.col.(type) {
	case *array.Int64:
		for i, v := range h.ints[from:to] {
			dst[i] = mix64(uint64(v))
		}
	case *array.Float64:
		for i, v := range h.floats[from:to] {
			dst[i] = mix64(floatBits(v))
		}
	case *array.Boolean:
		for i := range dst {
			dst[i] = boolHash[b2u(a.Value(from+i))]
		}
	case *array.String:
		for i := range dst {
			dst[i] = hashString(h.data[h.offs[from+i]:h.offs[from+i+1]])
		}
	case *array.Dictionary:
		if h.valid == nil {
			for i, j := range h.ids[from:to] {
				dst[i] = h.entries[j]
			}
			return
		}
		// A null row may hold any index: it is skipped, not patched after.
		for i, j := range h.ids[from:to] {
			if IsValid(h.valid, h.off, from+i) {
				dst[i] = h.entries[j]
			} else {
				dst[i] = nullHash
			}
		}
		return
	}
	if h.valid != nil {
		for i := range dst {
			if !IsValid(h.valid, h.off, from+i) {
				dst[i] = nullHash
			}
		}
	}
}

// PartitionOf maps each hash to a partition in [0, n) by its high bits,
// (h * n) >> 64, which spreads evenly for any n, powers of two included.
// It writes into out, grown if short, and returns it.
func PartitionOf(hashes []uint64, n int, out []int32) []int32 {
	if cap(out) < len(hashes) {
		out = alloc.NoZeroOf[int32](len(hashes)) // every part is written below
	}
	out = out[:len(hashes)]
	for i, h := range hashes {
		hi, _ := bits.Mul64(h, uint64(n))
		out[i] = int32(hi)
	}
	return out
}

// SplitRows lists, for each part p in [0, n), the rows whose parts entry
// is p, ascending: one counting pass, then the row numbers of each part
// laid out in turn in one array.
func SplitRows(parts []int32, n int) [][]int32 {
	start := make([]int, n+1)
	for _, p := range parts {
		start[p+1]++
	}
	for p := 1; p <= n; p++ {
		start[p] += start[p-1]
	}
	perm := make([]int32, len(parts))
	pos := append([]int(nil), start[:n]...)
	for i, p := range parts {
		perm[pos[p]] = int32(i)
		pos[p]++
	}
	out := make([][]int32, n)
	for p := range out {
		out[p] = perm[start[p]:start[p+1]:start[p+1]]
	}
	return out
}

// RangePartition assigns each row of col a partition in [0, n) for sorting
// across partitions, where bounds holds n-1 values of col's kind sorted
// ascending (nulls and NaNs, if any, last). Ascending, a row's partition
// is the number of bounds below its value; descending, the number above
// it, so partition 0 holds the largest. Equal values share a partition,
// NaN counts as after every number either way (as SortIndices puts it),
// and nulls go to the last partition. It writes into out, grown if short.
func RangePartition(col arrow.Array, bounds arrow.Array, ascending bool, out []int32) []int32 {
	col, bounds = WidenOrder(col), WidenOrder(bounds)
	defer col.Release()
	defer bounds.Release()
	rows := col.Len()
	if cap(out) < rows {
		out = make([]int32, rows)
	}
	out = out[:rows]
	last := int32(bounds.Len()) // n-1: the nulls' partition
	m := bounds.Len() - bounds.NullN()
	valid, off := Validity(col)
	switch a := col.(type) {
	case *array.Int64:
		b := bounds.(*array.Int64).Int64Values()[:m]
		for i, v := range a.Int64Values() {
			out[i] = rankOf(b, v, ascending)
		}
	case *array.Float64:
		b := bounds.(*array.Float64).Float64Values()[:m]
		for m > 0 && b[m-1] != b[m-1] { // NaN bounds come last and rank nothing
			m--
			b = b[:m]
		}
		for i, v := range a.Float64Values() {
			if v != v {
				out[i] = int32(m)
				continue
			}
			out[i] = rankOf(b, v, ascending)
		}
	case *array.Boolean:
		bb := bounds.(*array.Boolean)
		b := make([]uint8, m)
		for j := range b {
			b[j] = b2u(bb.Value(j))
		}
		for i := range out {
			out[i] = rankOf(b, b2u(a.Value(i)), ascending)
		}
	default:
		bs := StringsOf(bounds)
		b := make([]string, m)
		for j := range b {
			b[j] = bs.Value(j)
		}
		s := StringsOf(col)
		if s.Indices != nil {
			// One search per dictionary entry, then a gather.
			ranks := make([]int32, s.Dict.Len())
			for j := range ranks {
				ranks[j] = rankOf(b, s.Dict.Value(j), ascending)
			}
			for i, j := range s.Indices {
				if IsValid(valid, off, i) {
					out[i] = ranks[j]
				} else {
					out[i] = last
				}
			}
			return out
		}
		for i := range out {
			out[i] = rankOf(b, s.Value(i), ascending)
		}
	}
	if valid != nil {
		for i := range out {
			if !IsValid(valid, off, i) {
				out[i] = last
			}
		}
	}
	return out
}

// ordered is the value types RangePartition searches; strings compare by
// their bytes, as SortIndices orders them.
type ordered interface {
	int64 | float64 | uint8 | string
}

// rankOf counts the values of b (sorted ascending) below v, or, when
// descending, above it.
func rankOf[T ordered](b []T, v T, ascending bool) int32 {
	lo, hi := 0, len(b)
	if ascending {
		for lo < hi { // first b[i] >= v
			mid := int(uint(lo+hi) >> 1)
			if b[mid] < v {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return int32(lo)
	}
	for lo < hi { // first b[i] > v
		mid := int(uint(lo+hi) >> 1)
		if v < b[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return int32(len(b) - lo)
}
