package kernel

import (
	"bytes"
	"fmt"
	"math/bits"

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
)

func (j JoinType) String() string {
	if int(j) < len(joinNames) {
		return joinNames[j]
	}
	return fmt.Sprintf("JoinType(%d)", uint8(j))
}

var joinNames = [...]string{"inner", "left", "right", "outer"}

// HashJoin equi-joins rows of left and right on their key columns, pairwise
// of one kind, and returns the matching row pairs as indices; -1 stands for
// the missing side of an unmatched row. Null keys match each other, as in
// pandas' merge; so do NaNs, and -0 matches 0.
//
// Order: Inner and Left follow left rows, each with its matches in right
// order; Right mirrors that; Outer is Left's order then the right rows that
// matched nothing. The hash table is built on right (on left for Right), so
// pass the smaller side there when the join allows.
func HashJoin(left, right []arrow.Array, how JoinType) (li, ri []int32, err error) {
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
	case Inner, Left, Outer:
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

// emit lays out the pairs in the order HashJoin promises.
func (m *joinMatches) emit(how JoinType) (pi, bi []int32) {
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
// reverse row order so that each chain runs in row order.
func joinInt64(probe, build *array.Int64) joinMatches {
	bv := build.Int64Values()
	bvalid, boff := Validity(build)
	size, shift := joinTableSize(len(bv))
	mask := uint64(size - 1)
	slots := make([]joinSlot, size)
	next := make([]int32, len(bv))
	nullHead, nullCount := int32(-1), 0
	unique := true
	for r := len(bv) - 1; r >= 0; r-- {
		if bvalid != nil && !IsValid(bvalid, boff, r) {
			next[r], nullHead = nullHead, int32(r)
			nullCount++
			continue
		}
		k := bv[r]
		for s := (uint64(k) * 0x9E3779B97F4A7C15) >> shift; ; s = (s + 1) & mask {
			sl := &slots[s]
			if sl.head1 == 0 {
				*sl = joinSlot{key: k, head1: int32(r) + 1, count: 1}
				next[r] = -1
				break
			}
			if sl.key == k {
				next[r] = sl.head1 - 1
				sl.head1 = int32(r) + 1
				sl.count++
				unique = false
				break
			}
		}
	}
	m := joinMatches{next: next, unique: unique && nullCount <= 1}
	pv := probe.Int64Values()
	pvalid, poff := Validity(probe)
	head := make([]int32, len(pv))
	for i, k := range pv {
		h := int32(-1)
		if pvalid != nil && !IsValid(pvalid, poff, i) {
			h = nullHead
			m.pairs += nullCount
		} else {
			for s := (uint64(k) * 0x9E3779B97F4A7C15) >> shift; ; s = (s + 1) & mask {
				sl := &slots[s]
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
		head[i] = h
		if h < 0 {
			m.unmatched++
		}
	}
	m.head = head
	return m
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

// TakeOrNull is Take where an index of -1 gives a null row. Dictionary
// columns keep their dictionary.
func TakeOrNull(a arrow.Array, idx []int32) arrow.Array {
	missing := false
	for _, i := range idx {
		if i < 0 {
			missing = true
			break
		}
	}
	if !missing {
		return Take(a, idx)
	}
	return takeColumn(a, idx, takeOrNullValid(a, idx), true)
}

func gatherOrZero[T any](vals []T, idx []int32) []T {
	out := make([]T, len(idx))
	for j, i := range idx {
		if i >= 0 {
			out[j] = vals[i]
		}
	}
	return out
}

// takeOrNullValid is the validity of a's rows at idx, -1 being null.
func takeOrNullValid(a arrow.Array, idx []int32) []byte {
	valid, off := Validity(a)
	out := make([]byte, (len(idx)+7)/8)
	for j, i := range idx {
		if i >= 0 && IsValid(valid, off, int(i)) {
			out[j>>3] |= 1 << (j & 7)
		}
	}
	return out
}
