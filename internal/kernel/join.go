package kernel

import (
	"bytes"
	"fmt"
	"math/bits"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// JoinType says which unmatched rows a join keeps.
type JoinType uint8

const (
	Inner JoinType = iota // matched rows only
	Left                  // every left row
	Right                 // every right row
	Outer                 // every row of either side
	Semi                  // each left row that has a match, once; no right rows
	Anti                  // each left row that has no match; no right rows
)

func (j JoinType) String() string {
	if int(j) < len(joinNames) {
		return joinNames[j]
	}
	return fmt.Sprintf("JoinType(%d)", uint8(j))
}

var joinNames = [...]string{"inner", "left", "right", "outer", "semi", "anti"}

// HashJoin equi-joins rows of left and right on their key columns, pairwise
// of one kind, and returns the matching row pairs as indices; -1 stands for
// the missing side of an unmatched row. Null keys match each other, as in
// pandas' merge; so do NaNs, and -0 matches 0.
//
// Order: Inner and Left follow left rows, each with its matches in right
// order; Right mirrors that; Outer is Left's order then the right rows that
// matched nothing. Semi and Anti give the left rows that have a match, or
// have none, each once, in order, and ri nil. The hash table is built on right (on left for Right), so
// pass the smaller side there when the join allows.
func HashJoin(left, right []arrow.Array, how JoinType) (li, ri []int32, err error) {
	left, releaseLeft := WidenAll(left)
	defer releaseLeft()
	right, releaseRight := WidenAll(right)
	defer releaseRight()
	if len(left) != len(right) || len(left) == 0 {
		return nil, nil, fmt.Errorf("join on %d left and %d right key columns", len(left), len(right))
	}
	for c := range left {
		lt, rt := left[c].DataType(), right[c].DataType()
		lk, lerr := KindOf(lt)
		rk, rerr := KindOf(rt)
		if lerr != nil || rerr != nil || lk != rk || lk == KindNull {
			return nil, nil, fmt.Errorf("join key %d: cannot match %s with %s", c, TypeName(lt), TypeName(rt))
		}
	}
	switch how {
	case Inner, Left, Outer, Semi, Anti:
		li, ri = hashJoin(left, right, how)
	case Right:
		ri, li = hashJoin(right, left, Left)
	default:
		return nil, nil, fmt.Errorf("unknown join type %s", how)
	}
	return li, ri, nil
}

// hashJoin builds a table on build and probes it with probe's rows, for an
// Inner, Left or Outer join; it returns probe and build indices.
func hashJoin(probe, build []arrow.Array, how JoinType) ([]int32, []int32) {
	var m joinMatches
	if p, ok := probe[0].(*array.Int64); ok && len(probe) == 1 {
		m = joinInt64(p, build[0].(*array.Int64))
	} else {
		m = joinHashed(probe, build)
	}
	return m.emit(how)
}

// joinMatches is the result of probing: each probe row's chain of
// matching build rows.
type joinMatches struct {
	head      []int32 // per probe row: its first matching build row, -1 if none
	next      []int32 // per build row: the next build row with its key, -1 at the end
	unique    bool    // no build key repeats: every chain is one row long
	pairs     int     // matched (probe, build) pairs
	unmatched int     // probe rows without a match
}

// emit lays out the pairs in the order HashJoin promises; a semi or anti
// join gives the probe rows alone (bi nil).
func (m *joinMatches) emit(how JoinType) (pi, bi []int32) {
	if how == Semi || how == Anti {
		pi = make([]int32, 0, len(m.head)-m.unmatched)
		for i, h := range m.head {
			if (h >= 0) == (how == Semi) {
				pi = append(pi, int32(i))
			}
		}
		return pi, nil
	}
	size := m.pairs
	if how != Inner {
		size += m.unmatched
	}
	var matched []bool
	if how == Outer {
		matched = make([]bool, len(m.next))
		free := len(m.next)
		for _, h := range m.head {
			if h < 0 || matched[h] {
				continue
			}
			for r := h; r >= 0; r = m.next[r] {
				matched[r] = true
				free--
			}
		}
		size += free
	}
	pi, bi = make([]int32, size), make([]int32, size)
	j := 0
	keepAll := how != Inner
	if m.unique {
		for i, h := range m.head {
			if h >= 0 || keepAll {
				pi[j], bi[j] = int32(i), h
				j++
			}
		}
	} else {
		for i, h := range m.head {
			if h < 0 {
				if keepAll {
					pi[j], bi[j] = int32(i), -1
					j++
				}
				continue
			}
			for r := h; r >= 0; r = m.next[r] {
				pi[j], bi[j] = int32(i), r
				j++
			}
		}
	}
	for r, ok := range matched {
		if !ok {
			pi[j], bi[j] = -1, int32(r)
			j++
		}
	}
	return pi, bi
}

// joinSlot is one entry of a join's open-addressing table: a key, the
// first build row that holds it (plus one, so that zero is empty) and how
// many build rows hold it. Key and rows share a cache line.
type joinSlot struct {
	key   int64
	head1 int32
	count int32
}

// joinTableSize is a power of two at least 1.5 times rows: a load factor
// of at most 2/3 keeps linear probes short.
func joinTableSize(rows int) (size int, shift uint) {
	size = 16
	for size < rows+rows/2 {
		size <<= 1
	}
	return size, uint(64 - bits.TrailingZeros(uint(size)))
}

// joinInt64 matches a single int64 key: a table keyed by value, built in
// reverse row order so that each chain runs in row order. A large build
// side is first split by the top bits of its keys' hashes, and the probe
// side alike (radix partitioning), so that each part's table fits the L2
// cache and the TLB's reach: one table larger than the caches costs a
// memory latency, and a page walk, per row.
func joinInt64(probe, build *array.Int64) joinMatches {
	bv, pv := build.Int64Values(), probe.Int64Values()
	m := joinMatches{next: make([]int32, len(bv)), head: make([]int32, len(pv)), unique: true}
	// Null keys match each other, as pandas' merge matches NaN keys.
	nullHead, nullCount := int32(-1), 0
	if build.NullN() > 0 {
		valid, off := Validity(build)
		for r := len(bv) - 1; r >= 0; r-- {
			if !IsValid(valid, off, r) {
				m.next[r], nullHead = nullHead, int32(r)
				nullCount++
			}
		}
	}
	m.unique = nullCount <= 1
	if probe.NullN() > 0 {
		valid, off := Validity(probe)
		for i := range pv {
			if !IsValid(valid, off, i) {
				m.head[i] = nullHead
				m.pairs += nullCount
				if nullHead < 0 {
					m.unmatched++
				}
			}
		}
	}
	pbits := 0 // a table of up to 4·radixRows keys fits the L2 cache whole
	for len(bv) > 4*radixRows && pbits < maxRadixBits && len(bv)>>pbits > radixRows {
		pbits++
	}
	var t joinTable
	if pbits == 0 {
		t.reset(len(bv), 0)
		var brows []int32
		if nullCount > 0 {
			brows = validRows(build, len(bv))
			bv = gatherKeys(bv, brows)
		}
		m.build(&t, bv, brows)
		var prows []int32
		if probe.NullN() > 0 {
			prows = validRows(probe, len(pv))
			pv = gatherKeys(pv, prows)
		}
		m.probe(&t, pv, prows)
		return m
	}
	bk, br, bstart := radixSplit(bv, build, pbits)
	pk, pr, pstart := radixSplit(pv, probe, pbits)
	for part := range 1 << pbits {
		keys, rows := bk[bstart[part]:bstart[part+1]], br[bstart[part]:bstart[part+1]]
		t.reset(len(keys), pbits)
		m.build(&t, keys, rows)
		m.probe(&t, pk[pstart[part]:pstart[part+1]], pr[pstart[part]:pstart[part+1]])
	}
	return m
}

// validRows lists the rows of a (n rows) that hold a value.
func validRows(a arrow.Array, n int) []int32 {
	valid, off := Validity(a)
	rows := make([]int32, 0, n-a.NullN())
	for r := range n {
		if IsValid(valid, off, r) {
			rows = append(rows, int32(r))
		}
	}
	return rows
}

// gatherKeys returns the keys of rows.
func gatherKeys(x []int64, rows []int32) []int64 {
	out := make([]int64, len(rows))
	for j, r := range rows {
		out[j] = x[r]
	}
	return out
}

// radixRows is about how many build rows a part of a radix-partitioned
// join holds: its table (16 bytes a slot, at most 2/3 full) then takes
// 128 KiB. maxRadixBits bounds the parts at 256, as many write streams as
// the split can keep cached.
const (
	radixRows    = 4096
	maxRadixBits = 8
)

// joinHash is a join key's hash: its top bits choose a radix part, the
// next ones a slot in that part's table.
func joinHash(k int64) uint64 { return uint64(k) * 0x9E3779B97F4A7C15 }

// radixSplit lays out the keys of a's rows that hold a value by the top
// pbits of their hashes, stably: part p's keys are keys[start[p]:start[p+1]]
// and rows[...] their row numbers.
func radixSplit(x []int64, a arrow.Array, pbits int) (keys []int64, rows []int32, start []int) {
	valid, off := Validity(a)
	shift := 64 - pbits
	start = make([]int, 1<<pbits+1)
	for i, k := range x {
		if valid == nil || IsValid(valid, off, i) {
			start[joinHash(k)>>shift+1]++
		}
	}
	for p := 1; p < len(start); p++ {
		start[p] += start[p-1]
	}
	pos := slices.Clone(start[:len(start)-1])
	keys, rows = make([]int64, start[len(start)-1]), make([]int32, start[len(start)-1])
	for i, k := range x {
		if valid == nil || IsValid(valid, off, i) {
			p := joinHash(k) >> shift
			keys[pos[p]], rows[pos[p]] = k, int32(i)
			pos[p]++
		}
	}
	return keys, rows, start
}

// joinTable is the open-addressing table of one join part, reused from
// part to part.
type joinTable struct {
	slots []joinSlot
	mask  uint64
	shift uint // a slot is a key's hash, less its pbits radix bits, >> shift
	pbits uint
	// filter has a bit set for each build key's filterBit (16 bits a key):
	// a probe key whose bit is clear is not in the table, found in one load
	// rather than a walk to an empty slot. Only for tables of at most
	// filterRows keys, whose filter stays in the cache: semi joins and
	// joins with a filtered dimension, where most probes miss.
	filter []uint64
	fshift uint
}

// filterRows is the largest part that gets a filter (128 KiB of bits).
const filterRows = 1 << 16

// filterBit is k's bit in t.filter: the top bits of a second
// multiplicative hash, independent of the slot's.
func (t *joinTable) filterBit(k int64) uint64 {
	return (uint64(k) * 0xC2B2AE3D27D4EB4F) >> t.fshift
}

// mayHold reports whether k may be a build key: false only if it is not.
func (t *joinTable) mayHold(k int64) bool {
	if t.filter == nil {
		return true
	}
	b := t.filterBit(k)
	return t.filter[b>>6]&(1<<(b&63)) != 0
}

// reset empties t and sizes it for rows keys whose hashes' top pbits are
// the same.
func (t *joinTable) reset(rows, pbits int) {
	size, shift := joinTableSize(rows)
	if cap(t.slots) < size {
		t.slots = make([]joinSlot, size)
	} else {
		t.slots = t.slots[:size]
		clear(t.slots)
	}
	t.mask, t.shift, t.pbits = uint64(size-1), shift, uint(pbits)
	t.filter = t.filter[:0]
	if rows > filterRows || rows == 0 {
		t.filter = nil
		return
	}
	bits := uint(9) // at least 512 bits
	for 1<<bits < 16*rows {
		bits++
	}
	words := 1 << (bits - 6)
	if cap(t.filter) < words {
		t.filter = make([]uint64, words)
	} else {
		t.filter = t.filter[:words]
		clear(t.filter)
	}
	t.fshift = 64 - bits
}

func (t *joinTable) home(k int64) uint64 { return joinHash(k) << t.pbits >> t.shift }

// build adds keys to t in reverse order, chaining the build rows with one
// key through m.next in row order; rows maps keys' indexes to build rows
// (nil: the same).
func (m *joinMatches) build(t *joinTable, keys []int64, rows []int32) {
	var touched int32
	for j := len(keys) - 1; j >= 0; j-- {
		if j%probeBatch == probeBatch-1 || j == len(keys)-1 {
			// The home slots of the next keys down, loaded at once (see
			// GroupRows).
			for _, k := range keys[max(0, j-probeBatch+1) : j+1] {
				touched |= t.slots[t.home(k)].head1
			}
		}
		r := int32(j)
		if rows != nil {
			r = rows[j]
		}
		k := keys[j]
		if t.filter != nil {
			b := t.filterBit(k)
			t.filter[b>>6] |= 1 << (b & 63)
		}
		for s := t.home(k); ; s = (s + 1) & t.mask {
			sl := &t.slots[s]
			if sl.head1 == 0 {
				*sl = joinSlot{key: k, head1: r + 1, count: 1}
				m.next[r] = -1
				break
			}
			if sl.key == k {
				m.next[r] = sl.head1 - 1
				sl.head1 = r + 1
				sl.count++
				m.unique = false
				break
			}
		}
	}
	probeSink.Store(uint64(touched))
}

// probe finds each key's first build row in t, into m.head of its probe
// row (rows maps keys' indexes to probe rows; nil: the same).
func (m *joinMatches) probe(t *joinTable, keys []int64, rows []int32) {
	var touched int32
	for j, k := range keys {
		if j%probeBatch == 0 {
			for _, k := range keys[j:min(j+probeBatch, len(keys))] {
				touched |= t.slots[t.home(k)].head1
			}
		}
		h := int32(-1)
		if t.mayHold(k) {
			for s := t.home(k); ; s = (s + 1) & t.mask {
				sl := &t.slots[s]
				if sl.head1 == 0 {
					break
				}
				if sl.key == k {
					h = sl.head1 - 1
					m.pairs += int(sl.count)
					break
				}
			}
		}
		i := j
		if rows != nil {
			i = int(rows[j])
		}
		m.head[i] = h
		if h < 0 {
			m.unmatched++
		}
	}
	probeSink.Store(uint64(touched))
}

// hashSlot is joinSlot for keys known by their HashRows hash; rows with
// one hash but different keys take separate slots.
type hashSlot struct {
	hash  uint64
	head1 int32
	count int32
}

// joinHashed matches keys of any kinds and count by their row hashes,
// checking the key values of every candidate.
func joinHashed(probe, build []arrow.Array) joinMatches {
	bh := HashRows(build, nil)
	ph := HashRows(probe, nil)
	buildEq, probeEq := newKeyEq(build, build), newKeyEq(probe, build)
	size, _ := joinTableSize(len(bh))
	mask := uint64(size - 1)
	slots := make([]hashSlot, size)
	next := make([]int32, len(bh))
	m := joinMatches{next: next, unique: true}
	// The low bits pick the slot: the high ones may be alike across a
	// partition, which PartitionOf chose by them.
	for r := len(bh) - 1; r >= 0; r-- {
		h := bh[r]
		for s := h & mask; ; s = (s + 1) & mask {
			sl := &slots[s]
			if sl.head1 == 0 {
				*sl = hashSlot{hash: h, head1: int32(r) + 1, count: 1}
				next[r] = -1
				break
			}
			if sl.hash == h && buildEq.equal(r, int(sl.head1-1)) {
				next[r] = sl.head1 - 1
				sl.head1 = int32(r) + 1
				sl.count++
				m.unique = false
				break
			}
		}
	}
	m.head = make([]int32, len(ph))
	for i, h := range ph {
		match := int32(-1)
		for s := h & mask; ; s = (s + 1) & mask {
			sl := &slots[s]
			if sl.head1 == 0 {
				break
			}
			if sl.hash == h && probeEq.equal(i, int(sl.head1-1)) {
				match = sl.head1 - 1
				m.pairs += int(sl.count)
				break
			}
		}
		m.head[i] = match
		if match < 0 {
			m.unmatched++
		}
	}
	return m
}

// keyEq compares row i of key columns xs with row j of ys.
type keyEq []colEq

func newKeyEq(xs, ys []arrow.Array) keyEq {
	eq := make(keyEq, len(xs))
	for c := range xs {
		e := &eq[c]
		e.xv, e.xo = Validity(xs[c])
		e.yv, e.yo = Validity(ys[c])
		switch x := xs[c].(type) {
		case *array.Int64:
			e.kind = KindInt
			e.xi, e.yi = x.Int64Values(), ys[c].(*array.Int64).Int64Values()
		case *array.Float64:
			e.kind = KindFloat
			e.xf, e.yf = x.Float64Values(), ys[c].(*array.Float64).Float64Values()
		case *array.Boolean:
			e.kind = KindBool
			e.xb, e.yb = x, ys[c].(*array.Boolean)
		default:
			e.kind = KindString
			e.xs, e.ys = StringsOf(xs[c]), StringsOf(ys[c])
			e.sameDict = sameDict(e.xs.Dict, e.ys.Dict)
		}
	}
	return eq
}

// colEq holds one key column of each side, typed. Nulls equal nulls,
// NaNs equal NaNs.
type colEq struct {
	kind   Kind
	xv, yv []byte
	xo, yo int
	xi, yi []int64
	xf, yf []float64
	xb, yb *array.Boolean
	xs, ys Strings
	// sameDict: both are encoded with one dictionary, so equal indices
	// are equal values (and unequal ones are compared by their bytes).
	sameDict bool
}

func (eq keyEq) equal(i, j int) bool {
	for c := range eq {
		e := &eq[c]
		vi, vj := IsValid(e.xv, e.xo, i), IsValid(e.yv, e.yo, j)
		if !vi || !vj {
			if vi != vj {
				return false
			}
			continue
		}
		var same bool
		switch e.kind {
		case KindInt:
			same = e.xi[i] == e.yi[j]
		case KindFloat:
			a, b := e.xf[i], e.yf[j]
			same = a == b || (a != a && b != b)
		case KindBool:
			same = e.xb.Value(i) == e.yb.Value(j)
		default:
			same = e.sameDict && e.xs.Indices[i] == e.ys.Indices[j] || bytes.Equal(e.xs.bytesOf(i), e.ys.bytesOf(j))
		}
		if !same {
			return false
		}
	}
	return true
}
