package kernel

import (
	"math/bits"
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
					if g := int32(e&0xffffffff) - 1; eq.equal(int(firsts[g]), i) {
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

// probeBatch is how many rows GroupRows loads the home slots of at once:
// enough for the CPU to overlap their cache misses, few enough that the
// slots stay in L1 until they are probed.
const probeBatch = 256

// probeSink keeps the loads of GroupRows' first loops from being compiled
// away.
var probeSink atomic.Uint64
