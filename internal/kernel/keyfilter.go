package kernel

import (
	"fmt"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// keyFilter is a blocked Bloom filter of int64 join keys: a key sets two
// bits of one word, so that asking costs a single load, and a clear bit
// says the key is not a build key. At 16 bits a key about one probe key in
// 70 that is not a build key passes. A filter kept in the cache answers
// the probes that miss (a semi join on a filtered side, a dimension
// filtered to a few rows) without a walk to an empty slot of a larger
// table, or a radix split of rows that match nothing.
type keyFilter struct {
	words []uint64 // nil: no filter, every key may be a build key
	shift uint     // a key's word is its filterHash >> shift
}

// filterBitsPerKey is the bits a filter spends on each key while it fits
// cachedFilterBits (256 KiB, which the L2 cache holds beside the rows
// going by): about one in 70 of the other keys then passes. Past 131,072
// keys the bits a key thin out to 8 (one in 20 passes), at which a
// larger filter grows, up to maxFilterBits (4 MiB, in the L3 cache) at
// siftRows keys: asking it costs a cache miss to L3, still less than
// laying out and looking up the key of a row that matches nothing.
const (
	filterBitsPerKey = 16
	cachedFilterBits = 1 << 21
	maxFilterBits    = 1 << 25
)

// filterHash is a multiplicative hash independent of joinHash: its top
// bits choose the word, two fields in its middle the bits.
func filterHash(k int64) uint64 { return uint64(k) * 0xC2B2AE3D27D4EB4F }

// reset empties f and sizes it for n keys, reusing its words.
func (f *keyFilter) reset(n int) {
	want := min(filterBitsPerKey*n, cachedFilterBits)
	if 8*n > want {
		want = min(8*n, maxFilterBits)
	}
	bits := uint(9) // at least 512 bits
	for 1<<bits < want {
		bits++
	}
	words := 1 << (bits - 6)
	if cap(f.words) < words {
		f.words = make([]uint64, words)
	} else {
		f.words = f.words[:words]
		clear(f.words)
	}
	f.shift = 64 - (bits - 6)
}

// filterBits is the two bits of its word that a key of filter hash h
// sets: from bits of h below any the word takes (a filter has at most
// 2^19 words, taken from bits 45 and up), at shifts the compiler knows.
func filterBits(h uint64) uint64 {
	return 1<<(h>>32&63) | 1<<(h>>38&63)
}

func (f *keyFilter) add(k int64) {
	h := filterHash(k)
	f.words[h>>f.shift] |= filterBits(h)
}

// mayHold reports whether k may be a build key: false only if it is not.
func (f *keyFilter) mayHold(k int64) bool {
	if f.words == nil {
		return true
	}
	return heldBy(f.words, f.shift, filterHash(k)) == 1
}

// heldBy is 1 where the filter of words (a key's word its hash >> shift)
// holds a key of filter hash h, else 0: a SETEQ, not a branch, so that
// the loops that sift by it keep several of its loads in flight. They
// pass the words and shift as locals, which stores to their outputs do
// not make the compiler load again.
func heldBy(words []uint64, shift uint, h uint64) uint8 {
	held := uint8(0)
	if ^words[h>>shift]&filterBits(h) == 0 {
		held = 1
	}
	return held
}

// mostHeld reports whether f holds three in four of 64 keys spread over
// keys (not for f empty): a probe that mostly matches finds its answer in
// the table anyway, and asking the filter first only adds to each probe.
func mostHeld[K int32 | int64 | uint64](f *keyFilter, keys []K) bool {
	held, sampled := heldOf(f, keys, 64)
	return sampled > 0 && 4*held >= 3*sampled
}

// heldOf is how many of up to size keys spread evenly over keys f holds,
// and how many it asked about: none where f is empty. Keys are integer
// join keys or the uint64 hashes of rows of several keys.
func heldOf[K int32 | int64 | uint64](f *keyFilter, keys []K, size int) (held, sampled int) {
	n := len(keys)
	if f.words == nil || n == 0 {
		return 0, 0
	}
	sampled = min(n, size)
	for j := range sampled {
		if f.mayHold(int64(keys[j*n/sampled])) {
			held++
		}
	}
	return held, sampled
}

// filterSample is how many probe keys, spread over a probe side, decide
// whether sifting it through a filter first pays.
const filterSample = 1024

// sift drops the probe keys that f says no build key equals, before a
// radix split lays out the rest: each dropped row gets no match in m.
// keys are the probe keys, rows their probe rows (nil: the same). Where
// most of a spread sample of the keys pass, it returns them all, as the
// pass would save little.
func sift[K int32 | int64](f *keyFilter, m *joinMatches, keys []K, rows []int32) ([]K, []int32) {
	passed, sampled := heldOf(f, keys, filterSample)
	if sampled == 0 || 2*passed > sampled {
		return keys, rows
	}
	// Each key is written where the next passed key goes and counted only
	// if it passes, without a branch on the answer (see siftKept), in
	// blocks for which the outputs have room.
	n := len(keys)
	size := 2*passed*n/sampled + siftBlock
	outKeys, outRows := make([]K, size), make([]int32, size)
	words, shift, kept := f.words, f.shift, 0
	for start := 0; start < n; start += siftBlock {
		end := min(start+siftBlock, n)
		if len(outKeys)-kept < end-start { // room for twice the kept keys
			outKeys = slices.Grow(outKeys[:kept], kept+siftBlock)
			outKeys = outKeys[:cap(outKeys)]
			outRows = slices.Grow(outRows[:kept], kept+siftBlock)
			outRows = outRows[:cap(outRows)]
		}
		for j := start; j < end; j++ {
			k := keys[j]
			i := int32(j)
			if rows != nil {
				i = rows[j]
			}
			outKeys[kept], outRows[kept] = k, i
			kept += int(heldBy(words, shift, filterHash(int64(k))))
		}
	}
	m.unmatched += n - kept // their heads stay -1
	return outKeys[:kept], outRows[:kept]
}

// siftBlock is the keys sift asks about between checks of its outputs' room.
const siftBlock = 1024

// probeFilter is the filter that holds every key of a single integer key's
// table, or nil where the table keeps none (several keys, keys hashed by
// row, more build keys than a filter holds).
func (t *JoinTable) probeFilter() *keyFilter {
	if len(t.keys) != 1 || t.packing != nil || t.slots != nil {
		return nil
	}
	f := &t.filter
	if t.pbits == 0 {
		f = &t.parts[0].filter
	}
	if f.words == nil {
		return nil
	}
	return f
}

// Sifts reports whether the table keeps a filter of its keys for SiftKept
// to ask.
func (t *JoinTable) Sifts() bool { return t.probeFilter() != nil }

// SiftKept clears keep[i] where keep[i] is set and no build key equals
// keys[i], a probe side's key column, by the table's filter (about one
// value in 20 to 70 that matches nothing passes), asking it of the kept
// rows only: a reader given it as its last filter builds the probe side's
// other columns only for the rows that may match, as DuckDB's and Spark's
// runtime join filters do. A null passes where the build side has null
// keys, which it meets. Every row passes where the table keeps no filter
// (Sifts).
func (t *JoinTable) SiftKept(keys arrow.Array, keep []uint8) error {
	f := t.probeFilter()
	if f == nil {
		return nil
	}
	if len(keep) != keys.Len() {
		return fmt.Errorf("join filter: %d rows kept of %d", len(keep), keys.Len())
	}
	var nulls []int // the kept rows with a null key, which meet null build keys
	if keys.NullN() > 0 && t.nullCount > 0 {
		for i := range keep {
			if keep[i] != 0 && keys.IsNull(i) {
				nulls = append(nulls, i)
			}
		}
	}
	if k, ok := keys.(*array.Int32); ok && sameInt(t.types[0]) {
		siftKept(f, k.Int32Values(), keep)
	} else {
		wide, release := widenJoin([]arrow.Array{keys}, t.types)
		defer release()
		if err := matchKinds(wide, t.keys); err != nil {
			return err
		}
		w, ok := wide[0].(*array.Int64)
		if !ok {
			return fmt.Errorf("join filter: keys of %s do not widen to int64", TypeName(keys.DataType()))
		}
		siftKept(f, w.Int64Values(), keep)
	}
	for _, i := range nulls {
		keep[i] = 1
	}
	if keys.NullN() > 0 && t.nullCount == 0 {
		for i := range keep {
			if keys.IsNull(i) {
				keep[i] = 0
			}
		}
	}
	return nil
}

// siftKept clears keep[i] where it is set and f does not hold keys[i]. The
// filter is mostly past the L2 cache, and a loop whose loads wait on no
// mispredicted branch keeps several of them in flight: where most rows are
// kept it asks about every key and ands the answer in (a third faster in
// BenchmarkSiftKept than skipping the half not kept); where few are, it
// skips the rest, a branch that mostly goes one way.
func siftKept[K int32 | int64](f *keyFilter, keys []K, keep []uint8) {
	keep = keep[:len(keys)]
	words, shift := f.words, f.shift
	sparse := 4*CountSelected(keep) < len(keep)
	for i, k := range keys {
		if sparse && keep[i] == 0 {
			continue
		}
		keep[i] &= heldBy(words, shift, filterHash(int64(k)))
	}
}

// sameInt reports whether an int32 probe key widens to its own value
// against a build key of type build: int32 or int64, not a date or a
// decimal.
func sameInt(build arrow.DataType) bool {
	return build.ID() == arrow.INT32 || build.ID() == arrow.INT64
}
