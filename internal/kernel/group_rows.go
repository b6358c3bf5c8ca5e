package kernel

import (
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow/go/v15/arrow"
)

// GroupRows numbers the groups of equal rows of the key columns in order
// of first appearance: ids[i] is row i's group, -1 where a key is null
// (pandas' dropna), and firsts[g] is group g's first row. One pass over
// row hashes with a flat open-addressing table, whatever the number and
// kinds of key columns; keys of small integer ranges, dictionaries and
// booleans index a table directly instead (denseGroups).
func GroupRows(cols []arrow.Array, ids []int32) (_ []int32, firsts []int32) {
	cols, release := WidenAll(cols)
	defer release()
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	if cap(ids) < n {
		ids = make([]int32, n)
	}
	ids = ids[:n]
	if ids, firsts, ok := denseGroups(cols, ids); ok {
		return ids, firsts
	}
	hashes := HashRows(cols, nil)
	eq := newKeyEq(cols, cols)
	var nulls []byte // rows with a null key, as a bitmap; nil for none
	for _, c := range cols {
		if c.NullN() == 0 {
			continue
		}
		if nulls == nil {
			nulls = make([]byte, (n+7)/8)
		}
		valid, off := Validity(c)
		for i := range n {
			if !IsValid(valid, off, i) {
				nulls[i>>3] |= 1 << (i & 7)
			}
		}
	}
	radix := n >= radixGroupMin && mostlyDistinctHashes(hashes)
	// Packed keys pay where a probe would fetch the rows' values from far
	// apart: in groupRadix's parts, and for strings anywhere.
	var packed packedKeys
	if radix || hasStrings(cols) {
		packed = packKeys(cols)
	}
	if radix {
		return groupRadix(hashes, eq, packed, nulls, ids)
	}
	// A slot holds the high 32 bits of a group's hash and its id + 1.
	size := 1 << bits.Len(uint(n+n/2+16))
	mask := uint64(size - 1)
	table := make([]uint64, size)
	firsts = make([]int32, 0, n/2+16)
	var touched uint64
	for lo := 0; lo < n; lo += probeBatch {
		batch := hashes[lo:min(lo+probeBatch, n)]
		// Load every row's home slot first, in a loop whose loads the CPU
		// overlaps: a table larger than the caches then costs one memory
		// latency per batch instead of one per row.
		for _, h := range batch {
			touched |= table[h&mask]
		}
		for j, h := range batch {
			i := lo + j
			if nulls != nil && nulls[i>>3]&(1<<(i&7)) != 0 {
				ids[i] = -1
				continue
			}
			tag := h >> 32 << 32
			for s := h & mask; ; s = (s + 1) & mask {
				e := table[s]
				if e == 0 {
					g := int32(len(firsts))
					table[s] = tag | uint64(g+1)
					firsts = append(firsts, int32(i))
					ids[i] = g
					break
				}
				if e&^0xffffffff == tag {
					g := int32(e&0xffffffff) - 1
					var same bool
					if packed.w > 0 {
						same = sameWords(packed.row(int(firsts[g])), packed.row(i))
					} else {
						same = eq.equal(int(firsts[g]), i)
					}
					if same {
						ids[i] = g
						break
					}
				}
			}
		}
	}
	probeSink.Store(touched)
	return ids, firsts
}

// hasStrings reports whether any of cols holds strings.
func hasStrings(cols []arrow.Array) bool {
	for _, c := range cols {
		if packedWidth(c) == 2 {
			return true
		}
	}
	return false
}

// probeBatch is how many rows GroupRows loads the home slots of at once:
// enough for the CPU to overlap their cache misses, few enough that the
// slots stay in L1 until they are probed.
const probeBatch = 256

// probeSink keeps the loads of GroupRows' first loops from being compiled
// away.
var probeSink atomic.Uint64

// radixGroupMin is the fewest rows that groupRadix takes: below it the
// table of GroupRows fits the L2 cache anyway.
const radixGroupMin = 1 << 16

// radixGroupPart is about how many rows each part of groupRadix holds:
// its table then takes 128 KiB.
const radixGroupPart = 8192

// radixShift is where groupRadix takes a row's part from its hash: bits 20
// to 31, below the high bits that PartitionOf spreads a shuffle's outputs
// by (every row of one output shares them, so parts taken from them would
// all be one) and above the low bits that a part's table slots take.
const radixShift = 20

// mostlyDistinctHashes reports whether the first rows' hashes are more
// than half distinct: the groups will be many, and a table of them all
// larger than the caches.
func mostlyDistinctHashes(hashes []uint64) bool {
	const sample, size = 2048, 4096
	var table [size]uint64
	distinct := 0
	for _, h := range hashes[:min(sample, len(hashes))] {
		h |= 1 // 0 marks an empty slot
		for s := h & (size - 1); ; s = (s + 1) & (size - 1) {
			if table[s] == 0 {
				table[s] = h
				distinct++
				break
			}
			if table[s] == h {
				break
			}
		}
	}
	return distinct > sample/2
}

// groupRadix is GroupRows' table for many groups: rows are first laid out
// by some bits of their hashes (radix partitioning), and each part is
// grouped with a table small enough for the L2 cache and the TLB's reach,
// where one table of every group costs a memory latency and a page walk
// per row. Groups are numbered part by part, then renumbered in order of
// their first rows.
//
// With packed keys, each row's words are laid out with it, and each part's
// groups keep theirs, so that a probe compares memory the part reads in
// order rather than the rows' values wherever their columns hold them.
func groupRadix(hashes []uint64, eq keyEq, packed packedKeys, nulls []byte, ids []int32) ([]int32, []int32) {
	n := len(hashes)
	pbits := 0
	for n>>pbits > radixGroupPart && pbits < 12 {
		pbits++
	}
	pmask := uint64(1)<<pbits - 1
	start := make([]int32, 1<<pbits+1)
	for i, h := range hashes {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) != 0 {
			ids[i] = -1
			continue
		}
		start[h>>radixShift&pmask+1]++
	}
	for p := 1; p < len(start); p++ {
		start[p] += start[p-1]
	}
	pos := slices.Clone(start[:len(start)-1])
	rows := make([]int32, start[len(start)-1])
	phash := make([]uint64, len(rows))
	w := packed.w
	pwords := make([]uint64, len(rows)*w) // each row's packed keys, in part order
	for i, h := range hashes {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) != 0 {
			continue
		}
		p := h >> radixShift & pmask
		rows[pos[p]], phash[pos[p]] = int32(i), h
		for j, at := 0, int(pos[p])*w; j < w; j++ { // not copy: a call per row
			pwords[at+j] = packed.words[i*w+j]
		}
		pos[p]++
	}
	var gwords []uint64 // the part's groups' packed keys
	// Each part's groups, numbered on from the last part's; a slot holds
	// the high 32 bits of a group's hash and its number in the part + 1.
	var table []uint64
	firstRows := make([]int32, 0, len(rows))
	pids := make([]int32, len(rows)) // each row's group, in part order
	for p := range len(start) - 1 {
		part, ph := rows[start[p]:start[p+1]], phash[start[p]:start[p+1]]
		size := 1 << bits.Len(uint(len(part)+len(part)/2+16))
		if cap(table) < size {
			table = make([]uint64, size)
		}
		table = table[:size]
		clear(table)
		mask := uint64(size - 1)
		base := len(firstRows)
		words := pwords[int(start[p])*w : int(start[p+1])*w]
		gwords = gwords[:0]
		for k, i := range part {
			h := ph[k]
			tag := h >> 32 << 32
			for s := h & mask; ; s = (s + 1) & mask {
				e := table[s]
				if e == 0 {
					table[s] = tag | uint64(len(firstRows)-base+1)
					pids[int(start[p])+k] = int32(len(firstRows))
					firstRows = append(firstRows, i)
					gwords = append(gwords, words[k*w:k*w+w]...)
					break
				}
				if e&^0xffffffff == tag {
					g := int(e&0xffffffff) - 1
					var same bool
					if w > 0 {
						same = sameWords(gwords[g*w:g*w+w], words[k*w:k*w+w])
					} else {
						same = eq.equal(int(firstRows[base+g]), int(i))
					}
					if same {
						pids[int(start[p])+k] = int32(base + g)
						break
					}
				}
			}
		}
	}
	// Renumber the groups in order of their first rows.
	leads := make([]int32, n) // row -> its group's number + 1, where it is the first
	for g, r := range firstRows {
		leads[r] = int32(g + 1)
	}
	final := make([]int32, len(firstRows))
	firsts := make([]int32, 0, len(firstRows))
	for r, g1 := range leads {
		if g1 != 0 {
			final[g1-1] = int32(len(firsts))
			firsts = append(firsts, int32(r))
		}
	}
	for k, i := range rows {
		ids[i] = final[pids[k]]
	}
	return ids, firsts
}
