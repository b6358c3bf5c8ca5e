package kernel

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/alloc"
)

// GroupRows numbers the groups of equal rows of the key columns in order
// of first appearance: ids[i] is row i's group, -1 where a key is null
// (pandas' dropna), and firsts[g] is group g's first row. One pass over
// row hashes with a flat open-addressing table, whatever the number and
// kinds of key columns; keys of small integer ranges, dictionaries and
// booleans index a table directly instead (denseGroups).
func GroupRows(cols []arrow.Array, ids []int32) (_ []int32, firsts []int32) {
	cols, release := WidenKeys(cols)
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
	// Packed keys pay where probes compare a row with its group often (few
	// groups, many rows) and would fetch both strings from far apart, and
	// they hash from their words in one pass; integers are compared where
	// they lie for less than copying them.
	var packed packedKeys
	if hasStrings(cols) {
		packed = packKeys(cols)
	}
	var hashes []uint64
	if packed.w > 0 {
		hashes = packed.hashes()
	} else {
		hashes = HashRows(cols, nil)
	}
	eq := newKeyEq(cols, cols)
	var nulls []byte // rows with a null key, as a bitmap; nil for none
	for _, c := range cols {
		nulls = markNulls(nulls, n, c, 0)
	}
	groups := estimateGroups(hashes)
	radix := n >= radixGroupMin && groups > radixGroupsMin
	if radix {
		return groupRadix(hashes, eq, nulls, ids)
	}
	ids, firsts, _ = groupTable(hashes, groups, packed, eq, nulls, ids)
	return ids, firsts
}

// groupTable numbers the groups of rows of these hashes with one flat
// table, as GroupRows: rows compare by their packed words where packed has
// any (and gwords returns each group's, in order), else by eq. A row that
// nulls marks is no group's (-1).
func groupTable(hashes []uint64, groups int, packed packedKeys, eq keyEq, nulls []byte, ids []int32) (_ []int32, firsts []int32, gwords []uint64) {
	// A slot holds the high 32 bits of a group's hash and its id + 1. The
	// table is sized for the groups estimated, not the rows, and doubles
	// when they outgrow it: a combine of many rows into few groups keeps
	// its table in the cache.
	n := len(hashes)
	table := make([]uint64, tableSize(min(2*groups, n)))
	mask := uint64(len(table) - 1)
	firsts = make([]int32, 0, min(2*groups, n))
	ghash := make([]uint64, 0, cap(firsts)) // each group's hash, to move it when the table grows
	w := packed.w
	gwords = make([]uint64, 0, w*cap(firsts))
	var touched uint64
	for lo := 0; lo < n; lo += probeBatch {
		batch := hashes[lo:min(lo+probeBatch, n)]
		// Load every row's home slot first, in a loop whose loads the CPU
		// overlaps: a table larger than the caches then costs one memory
		// latency per batch instead of one per row.
		if len(table)*8 > cachedTable {
			for _, h := range batch {
				touched |= table[h&mask]
			}
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
					ghash = append(ghash, h)
					gwords = append(gwords, packed.words[i*w:i*w+w]...)
					ids[i] = g
					if 2*len(firsts) > len(table) {
						table = regrow(ghash)
						mask = uint64(len(table) - 1)
					}
					break
				}
				if e&^0xffffffff == tag {
					g := int32(e&0xffffffff) - 1
					var same bool
					switch w {
					case 2: // a string alone: two compares, not a loop
						a, b := gwords[2*int(g):2*int(g)+2:2*int(g)+2], packed.words[2*i:2*i+2:2*i+2]
						same = a[0] == b[0] && a[1] == b[1]
					default:
						same = sameWords(gwords[int(g)*w:int(g)*w+w], packed.words[i*w:i*w+w])
					case 0:
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
	return ids, firsts, gwords
}

// markNulls marks the rows of c that are null, from row at of n, in the
// bitmap nulls, made when c has the first null; nil stays nil without.
func markNulls(nulls []byte, n int, c arrow.Array, at int) []byte {
	if c.NullN() == 0 {
		return nulls
	}
	if nulls == nil {
		nulls = make([]byte, (n+7)/8)
	}
	valid, off := Validity(c)
	for i := range c.Len() {
		if !IsValid(valid, off, i) {
			nulls[(at+i)>>3] |= 1 << ((at + i) & 7)
		}
	}
	return nulls
}

// tableSize is the slots of a table for n groups: a power of two, at
// least 1.5 n.
func tableSize(n int) int { return 1 << bits.Len(uint(n+n/2+16)) }

// regrow returns a table twice the size for the groups of the given
// hashes, each in its slot as GroupRows placed it.
func regrow(ghash []uint64) []uint64 {
	table := make([]uint64, tableSize(2*len(ghash)))
	mask := uint64(len(table) - 1)
	for g, h := range ghash {
		s := h & mask
		for table[s] != 0 {
			s = (s + 1) & mask
		}
		table[s] = h>>32<<32 | uint64(g+1)
	}
	return table
}

// hasStrings reports whether any of cols holds plain strings.
func hasStrings(cols []arrow.Array) bool {
	for _, c := range cols {
		if packedWidth(c) == 2 {
			return true
		}
	}
	return false
}

// cachedTable is the most bytes of a join or grouping table probed without
// loading home slots a batch ahead: a table the L2 cache holds answers
// from it, and the batch cost a hash a key (TPC-H q11's 4K-key join table,
// most of whose probes its filter turns away).
const cachedTable = 256 << 10

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

// radixGroupsMin is the most groups GroupRows keeps in one table: a table
// of twice as many slots (512 KiB) and their keys still fit the L2 cache.
// Past it, groupRadix's parts do.
const radixGroupsMin = 1 << 15

// estimateGroups estimates how many groups rows of these hashes fall
// into, from 2,048 rows spread evenly over them: d distinct of s drawn
// from D equally common keys are about D(1 - e^(-s/D)) (the birthday
// problem), solved for D. Where the sample repeats nothing, every row is
// its own group. Rows spread out, not the first: a combine's first rows
// are one piece's groups, each once.
func estimateGroups(hashes []uint64) int {
	const sample, size = 2048, 4096
	n := len(hashes)
	if n <= sample {
		return n
	}
	var table [size]uint64
	d := 0
	for k := range sample {
		h := hashes[k*n/sample] | 1 // 0 marks an empty slot
		for s := h & (size - 1); ; s = (s + 1) & (size - 1) {
			if table[s] == 0 {
				table[s] = h
				d++
				break
			}
			if table[s] == h {
				break
			}
		}
	}
	if d >= sample-1 {
		return n
	}
	// D(1 - e^(-s/D)) grows with D: bisect between d and n.
	lo, hi := float64(d), float64(n)
	for range 40 {
		mid := (lo + hi) / 2
		if mid*(1-math.Exp(-sample/mid)) < float64(d) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return int(hi)
}

// groupRadix is GroupRows' table for many groups: rows are first laid out
// by the top bits of their hashes (radix partitioning), and each part is
// grouped with a table small enough for the L2 cache and the TLB's reach,
// where one table of every group costs a memory latency and a page walk
// per row. Groups are numbered part by part, then renumbered in order of
// their first rows.
func groupRadix(hashes []uint64, eq keyEq, nulls []byte, ids []int32) ([]int32, []int32) {
	n := len(hashes)
	pbits := 0
	for n>>pbits > radixGroupPart && pbits < 12 {
		pbits++
	}
	shift := 64 - pbits
	start := radixStarts(hashes, nulls, ids, pbits)
	pos := slices.Clone(start[:len(start)-1])
	// rows, phash and pids have every entry written below.
	rows := alloc.NoZeroOf[int32](start[len(start)-1])
	phash := alloc.NoZeroOf[uint64](len(rows))
	for i, h := range hashes {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) != 0 {
			continue
		}
		p := h >> shift
		rows[pos[p]], phash[pos[p]] = int32(i), h
		pos[p]++
	}
	// Each part's groups, numbered on from the last part's; a slot holds
	// the high 32 bits of a group's hash and its number in the part + 1.
	var table []uint64
	firstRows := make([]int32, 0, len(rows))
	pids := alloc.NoZeroOf[int32](len(rows)) // each row's group, in part order
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
		for k, i := range part {
			h := ph[k]
			tag := h >> 32 << 32
			for s := h & mask; ; s = (s + 1) & mask {
				e := table[s]
				if e == 0 {
					table[s] = tag | uint64(len(firstRows)-base+1)
					pids[start[p]+k] = int32(len(firstRows))
					firstRows = append(firstRows, i)
					break
				}
				if e&^0xffffffff == tag {
					if g := base + int(e&0xffffffff) - 1; eq.equal(int(firstRows[g]), int(i)) {
						pids[start[p]+k] = int32(g)
						break
					}
				}
			}
		}
	}
	final, order := firstOrder(firstRows, n)
	for k, i := range rows {
		ids[i] = final[pids[k]]
	}
	firsts := make([]int32, len(order))
	for g, old := range order {
		firsts[g] = firstRows[old]
	}
	return ids, firsts
}

// radixStarts counts the rows of each of the 1<<pbits parts that the top
// bits of their hashes make, and returns where each part starts among
// them, the total last; a row that nulls marks is in no part, and ids
// says so (-1).
func radixStarts(hashes []uint64, nulls []byte, ids []int32, pbits int) []int {
	shift := 64 - pbits
	start := make([]int, 1<<pbits+1)
	for i, h := range hashes {
		if nulls != nil && nulls[i>>3]&(1<<(i&7)) != 0 {
			ids[i] = -1
			continue
		}
		start[h>>shift+1]++
	}
	for p := 1; p < len(start); p++ {
		start[p] += start[p-1]
	}
	return start
}

// firstOrder renumbers groups numbered part by part, whose first rows (of
// n) are firstRows, in order of their first rows: final[g] is group g's
// new number, and order[g'] the old number of new group g'.
func firstOrder(firstRows []int32, n int) (final, order []int32) {
	leads := make([]int32, n) // row -> its group's number + 1, where it is the first
	for g, r := range firstRows {
		leads[r] = int32(g + 1)
	}
	final = alloc.NoZeroOf[int32](len(firstRows))
	order = make([]int32, 0, len(firstRows))
	for _, g1 := range leads {
		if g1 != 0 {
			final[g1-1] = int32(len(order))
			order = append(order, g1-1)
		}
	}
	return final, order
}
