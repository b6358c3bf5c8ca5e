package kernel

import (
	"bytes"
	"fmt"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/alloc"
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
	if !singleInts(left, right) { // those are joined as they are (joinInts)
		lt, rt := typesOf(left), typesOf(right)
		var releaseLeft, releaseRight func()
		left, releaseLeft = widenJoin(left, rt)
		defer releaseLeft()
		right, releaseRight = widenJoin(right, lt)
		defer releaseRight()
		if err := matchKinds(left, right); err != nil {
			return nil, nil, err
		}
	}
	switch how {
	case Inner, Left, Outer, Semi, Anti:
		return hashJoin(left, right, how)
	case Right:
		ri, li, err = hashJoin(right, left, Left)
		return li, ri, err
	}
	return nil, nil, fmt.Errorf("unknown join type %s", how)
}

// matchKinds checks that the two sides' key columns, widened, pair up
// kind by kind.
func matchKinds(left, right []arrow.Array) error {
	if len(left) != len(right) || len(left) == 0 {
		return fmt.Errorf("join on %d left and %d right key columns", len(left), len(right))
	}
	for c := range left {
		lt, rt := left[c].DataType(), right[c].DataType()
		lk, lerr := KindOf(lt)
		rk, rerr := KindOf(rt)
		if lerr != nil || rerr != nil || lk != rk {
			return fmt.Errorf("join key %d: cannot match %s with %s", c, TypeName(lt), TypeName(rt))
		}
	}
	return nil
}

// hashJoin builds a table on build and probes it with probe's rows once,
// returning probe and build indices; the keys are widened and of matching
// kinds, or a single int32 or int64 key each (singleInts).
func hashJoin(probe, build []arrow.Array, how JoinType) ([]int32, []int32, error) {
	if how != Outer && build[0].Len() > 2*probe[0].Len() {
		// The table goes on the smaller side: one on a side several times
		// larger costs more to build, and its repeated keys chain rows
		// that emit then walks, a cache miss a pair (TPC-H's q13 joins
		// 150,000 customers with the 1.5M orders by customer).
		return HashJoinBuildLeft(probe, build, how)
	}
	if singleInts(probe, build) {
		m := joinIntKeys(probe[0], build[0])
		pi, bi := m.emit(how)
		return pi, bi, nil
	}
	t, err := buildJoin(build, onceSiftRows)
	if err != nil {
		return nil, nil, err
	}
	defer t.Release()
	return t.Probe(probe, how)
}

// singleInts reports whether each side is a single int32 or int64 key,
// which joinInts joins with neither widened first (a shuffled join's 15M
// int32 order keys, TPC-H's, were copied to int64 whole).
func singleInts(left, right []arrow.Array) bool {
	return len(left) == 1 && len(right) == 1 && sameInt(left[0].DataType()) && sameInt(right[0].DataType())
}

// joinIntKeys matches probe's int32 or int64 keys with build's.
func joinIntKeys(p, b arrow.Array) joinMatches {
	switch {
	case p.DataType().ID() == arrow.INT32 && b.DataType().ID() == arrow.INT32:
		return joinInts(p, FixedValues[int32](p), b, FixedValues[int32](b))
	case p.DataType().ID() == arrow.INT32:
		return joinInts(p, FixedValues[int32](p), b, FixedValues[int64](b))
	case b.DataType().ID() == arrow.INT32:
		return joinInts(p, FixedValues[int64](p), b, FixedValues[int32](b))
	}
	return joinInts(p, FixedValues[int64](p), b, FixedValues[int64](b))
}

// widenInts is keys as int64, keys itself where they are.
func widenInts[K int32 | int64](keys []K) []int64 {
	if w, ok := any(keys).([]int64); ok {
		return w
	}
	out := alloc.NoZeroOf[int64](len(keys)) // every key is written
	for i, k := range keys {
		out[i] = int64(k)
	}
	return out
}

// HashJoinBuildLeft is HashJoin for an Inner, Left, Semi or Anti join
// with its table built on the left side, for a left side smaller than the
// right (or a filtered partition beside a broadcast side whose own table
// is not built): the right rows probe it, those that match no key mostly
// turned away by its filter, and the pairs are laid out in HashJoin's
// order.
func HashJoinBuildLeft(left, right []arrow.Array, how JoinType) (li, ri []int32, err error) {
	switch how {
	case Inner, Left, Semi, Anti:
	default:
		return nil, nil, fmt.Errorf("join on a left table: cannot make a %s join", how)
	}
	t, err := buildJoin(left, onceSiftRows)
	if err != nil {
		return nil, nil, err
	}
	defer t.Release()
	n := len(t.next)
	if how == Semi || how == Anti {
		matched := make([]bool, n)
		if err := t.Mark(right, matched); err != nil {
			return nil, nil, err
		}
		for r, ok := range matched {
			if ok == (how == Semi) {
				li = append(li, int32(r))
			}
		}
		return li, nil, nil
	}
	pr, pl, err := t.Probe(right, Inner) // in right order
	if err != nil {
		return nil, nil, err
	}
	// Lay the pairs out by left row, stably: each left row's matches stay
	// in right order.
	start := make([]int32, n+1)
	for _, l := range pl {
		start[l+1]++
	}
	unmatched := 0
	for l := range n {
		if start[l+1] == 0 {
			unmatched++
		}
		start[l+1] += start[l]
	}
	byLeft := make([]int32, len(pr))
	pos := slices.Clone(start[:n])
	for k, l := range pl {
		byLeft[pos[l]] = pr[k]
		pos[l]++
	}
	size := len(pr)
	if how == Left {
		size += unmatched
	}
	li, ri = make([]int32, 0, size), make([]int32, 0, size)
	for l := range int32(n) {
		matches := byLeft[start[l]:start[l+1]]
		if len(matches) == 0 && how == Left {
			li, ri = append(li, l), append(ri, -1)
		}
		for _, r := range matches {
			li, ri = append(li, l), append(ri, r)
		}
	}
	return li, ri, nil
}

// JoinTable is the hash table on a join's build side. Built once, it may
// be probed by any number of probe sides, from several goroutines at once:
// a broadcast side's table serves every partition of the other side.
type JoinTable struct {
	keys    []arrow.Array    // the build keys, widened
	types   []arrow.DataType // the build keys' types
	release func()
	next    []int32 // per build row: the next build row with its key, -1 at the end
	unique  bool    // no build key repeats: every chain is one row long
	// Null keys match each other: the chain of null build rows.
	nullHead  int32
	nullCount int
	// A single int64 key: its rows split by the top pbits of their keys'
	// hashes (radix partitioning), a table for each part, so that each
	// part's table fits the L2 cache and the TLB's reach while a probe's
	// part looks it up: one table larger than the caches costs a memory
	// latency, and a page walk, per row.
	pbits int
	parts []joinTable
	// filter holds every key of a radix-partitioned table of at most
	// siftRows keys (onceSiftRows for a table probed once), so that probe rows that match none are dropped
	// before the split (the parts then need no filters of their own); or
	// the row hashes of a table of other keys, so that probe rows that
	// match none skip the walk to a slot.
	filter keyFilter
	// Several integer keys whose build values pack into one int64: the
	// packed keys' table, in parts and filter.
	packing *keyPacking
	// Other keys: a table of row hashes.
	slots []hashSlot
	mask  uint64
}

// widenJoin widens join keys matched against keys of the types other: a
// uint64 key meeting a uint64 one as its bits (every value exact), a
// uint64 key meeting another integer one, and that one, as two words of
// the 128-bit integer (intWords: 2^64-1 is not -1), a decimal of more than
// 18 digits as its two words (widenKeysBy), any other as Widen gives it.
func widenJoin(cols []arrow.Array, other []arrow.DataType) ([]arrow.Array, func()) {
	return widenKeysBy(cols, func(i int, c arrow.Array) arrow.Array {
		if i >= len(other) {
			return Widen(c)
		}
		mine, theirs := c.DataType().ID() == arrow.UINT64, other[i].ID() == arrow.UINT64
		switch {
		case mine && theirs:
			return widenKey(c)
		case mine || theirs:
			k, _ := KindOf(c.DataType())
			if ko, _ := KindOf(other[i]); k == KindInt && ko == KindInt {
				return nil // two words: widenKeysBy asks intWords
			}
			return widenKey(c) // against no integer the kinds do not match
		}
		return widenKey(c)
	})
}

// intWords are an integer column's values as 128-bit integers, in two
// int64 columns with its nulls: the high word (the sign's extension, 0 for
// unsigned) and the low one (the bits).
func intWords(a arrow.Array) (hi, lo arrow.Array) {
	lo = widenKey(a)
	vals := lo.(*array.Int64).Int64Values()
	his := make([]int64, len(vals))
	if a.DataType().ID() != arrow.UINT64 {
		for i, v := range vals {
			his[i] = v >> 63
		}
	}
	return NewInt64(his, AlignedValid(a)), lo
}

func typesOf(cols []arrow.Array) []arrow.DataType {
	out := make([]arrow.DataType, len(cols))
	for i, c := range cols {
		out[i] = c.DataType()
	}
	return out
}

// BuildJoin builds a JoinTable on the build side's key columns, which it
// retains until Release, for any number of probe sides.
func BuildJoin(build []arrow.Array) (*JoinTable, error) { return buildJoin(build, siftRows) }

// buildJoin builds a JoinTable with a filter of at most siftLimit keys.
func buildJoin(build []arrow.Array, siftLimit int) (*JoinTable, error) {
	if len(build) == 0 {
		return nil, fmt.Errorf("join on no key columns")
	}
	for c, b := range build {
		if _, err := KindOf(b.DataType()); err != nil {
			return nil, fmt.Errorf("join key %d: cannot match %s", c, TypeName(b.DataType()))
		}
	}
	keys, release := widenJoin(build, typesOf(build))
	t := &JoinTable{keys: keys, types: typesOf(build), release: release, next: minusOnes(keys[0].Len()), unique: true, nullHead: -1}
	if t.packing = packingOf(keys); t.packing != nil {
		packed := t.packing.pack(keys)
		defer packed.Release()
		t.buildInt64(packed, siftLimit)
	} else if b, ok := keys[0].(*array.Int64); ok && len(keys) == 1 {
		t.buildInt64(b, siftLimit)
	} else {
		t.buildHashed(siftLimit)
	}
	return t, nil
}

// Release drops the table's hold on the build keys.
func (t *JoinTable) Release() {
	if t.release != nil {
		t.release()
		t.release = nil
	}
}

// SizeBytes is the memory of the table itself, beside its keys.
func (t *JoinTable) SizeBytes() int64 {
	n := 4*int64(len(t.next)) + 16*int64(len(t.slots)) + 8*int64(len(t.filter.words))
	for i := range t.parts {
		n += 16*int64(len(t.parts[i].slots)) + 8*int64(len(t.parts[i].filter.words))
	}
	return n
}

// JoinTableBytes is about the memory BuildJoin's table of rows build rows
// takes beside its keys: chains, slots half full and a filter.
func JoinTableBytes(rows int) int64 { return 38 * int64(rows) }

// Probe matches the probe side's key columns (pairwise of the build keys'
// kinds) against the table, for an Inner, Left, Semi or Anti join (or an
// Outer one, whose unmatched build rows only a table probed once can
// give), in HashJoin's order, with the build side as its right.
func (t *JoinTable) Probe(probe []arrow.Array, how JoinType) (pi, bi []int32, err error) {
	switch how {
	case Inner, Left, Outer, Semi, Anti:
	default:
		return nil, nil, fmt.Errorf("join table: cannot probe for a %s join", how)
	}
	m, err := t.match(probe)
	if err != nil {
		return nil, nil, err
	}
	pi, bi = m.emit(how)
	return pi, bi, nil
}

// match finds each probe row's first matching build row. A single int32
// probe key of an integer table is looked up as it is, widened key by key
// (not as a copy: a probe of lineitem's 60M order keys widened 480 MB).
func (t *JoinTable) match(probe []arrow.Array) (joinMatches, error) {
	if k, ok := probe[0].(*array.Int32); ok && len(probe) == 1 && t.packing == nil && t.slots == nil && sameInt(t.types[0]) {
		m := joinMatches{next: t.next, unique: t.unique}
		probeInts(t, &m, k, k.Int32Values())
		return m, nil
	}
	probe, release := widenJoin(probe, t.types)
	defer release()
	if err := matchKinds(probe, t.keys); err != nil {
		return joinMatches{}, err
	}
	m := joinMatches{next: t.next, unique: t.unique}
	switch {
	case t.packing != nil:
		packed := t.packing.pack(probe)
		defer packed.Release()
		probeInts(t, &m, packed, packed.Int64Values())
	case t.slots == nil:
		k := probe[0].(*array.Int64)
		probeInts(t, &m, k, k.Int64Values())
	default:
		t.probeHashed(&m, probe)
	}
	return m, nil
}

// Mark sets matched[r] for every build row r whose key some probe row
// holds: a semi or anti join whose small left side is the table, probed
// by the right side's partitions one at a time, keeps the left rows
// marked by any (or by none). matched has a place per build row.
func (t *JoinTable) Mark(probe []arrow.Array, matched []bool) error {
	if len(matched) != len(t.next) {
		return fmt.Errorf("join table: %d marks for %d rows", len(matched), len(t.next))
	}
	m, err := t.match(probe)
	if err != nil {
		return err
	}
	for _, h := range m.head {
		// A key's chain is marked whole the first time, from its head.
		if h < 0 || matched[h] {
			continue
		}
		for r := h; r >= 0; r = t.next[r] {
			matched[r] = true
		}
	}
	return nil
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

// joinTableSize is a power of two at least 1.5 times rows, a load factor
// of at most 2/3, which keeps linear probes short; or, for a table whose
// filter answers most probes that miss (dense), at least 4/3 times rows:
// at 3/4 full a hit's walk is still short, and the table takes half the
// memory where rows fall just past a power of two (a 1.5M-key broadcast
// table built in 62-66 ms instead of 80-86, misses probed in 68 ms
// instead of 79-89, hits alike).
func joinTableSize(rows int, dense bool) (size int, shift uint) {
	room := rows / 2
	if dense {
		room = rows / 3
	}
	size = 16
	for size < rows+room {
		size <<= 1
	}
	return size, uint(64 - bits.TrailingZeros(uint(size)))
}

// joinInts builds a table on a single int32 or int64 key (bvals, build's
// values) and probes it with probe's (pvals), radix part by radix part:
// each part's table is built just before the probe keys of that part look
// it up, in one table reused from part to part, which stays in the cache
// and takes no memory for all parts at once. int32 keys are widened key by
// key in the sift and the radix split, not copied whole first.
func joinInts[P, B int32 | int64](probe arrow.Array, pvals []P, build arrow.Array, bvals []B) joinMatches {
	t := JoinTable{next: minusOnes(build.Len()), nullHead: -1}
	t.chainNulls(build)
	t.pbits = radixBits(build.Len())
	m := joinMatches{next: t.next, head: probeHeads(probe, t.pbits)}
	t.probeNulls(&m, probe)
	var part joinTable
	bk, br := validKeys(build, bvals)
	if t.pbits == 0 {
		wide := widenInts(bk)
		part.reset(len(wide), 0, true)
		t.unique = part.build(t.next, wide, br) && t.unique
		keys, rows := validKeys(probe, pvals)
		probePart(&m, &part, keys, rows)
	} else {
		bk, br, bstart := radixSplit(bk, br, t.pbits)
		t.buildFilter(bk, onceSiftRows)
		pk, pr := validKeys(probe, pvals)
		pk, pr = sift(&t.filter, &m, pk, pr)
		wide, pr, pstart := radixSplit(pk, pr, t.pbits)
		for p := range 1 << t.pbits {
			part.reset(bstart[p+1]-bstart[p], t.pbits, t.filter.words == nil)
			t.unique = part.build(t.next, bk[bstart[p]:bstart[p+1]], br[bstart[p]:bstart[p+1]]) && t.unique
			probePart(&m, &part, wide[pstart[p]:pstart[p+1]], pr[pstart[p]:pstart[p+1]])
		}
	}
	m.unique = t.unique
	return m
}

// buildInt64 builds the table of a single int64 key, every radix part's
// at once.
func (t *JoinTable) buildInt64(build *array.Int64, siftLimit int) {
	t.chainNulls(build)
	t.pbits = radixBits(build.Len())
	t.parts = make([]joinTable, 1<<t.pbits)
	keys, rows := validKeys(build, build.Int64Values())
	if t.pbits == 0 {
		t.parts[0].reset(len(keys), 0, true)
		t.unique = t.parts[0].build(t.next, keys, rows) && t.unique
		return
	}
	t.buildFilter(keys, siftLimit)
	keys, rows, start := radixSplit(keys, rows, t.pbits)
	for p := range t.parts {
		t.parts[p].reset(start[p+1]-start[p], t.pbits, t.filter.words == nil)
		t.unique = t.parts[p].build(t.next, keys[start[p]:start[p+1]], rows[start[p]:start[p+1]]) && t.unique
	}
}

// siftRows is the most keys a radix-partitioned table keeps a filter of
// for the probe side to be sifted through: 8 bits a key. A table that one
// probe side probes once (a shuffled join's task) keeps one of at most
// onceSiftRows keys, whose filter the L2 cache holds: past that, filling
// it costs a cache miss a key, which a probe that mostly matches never
// earns back, where a shared table's filter serves every probe side.
const (
	siftRows     = maxFilterBits / 8
	onceSiftRows = cachedFilterBits / 8
)

// buildFilter fills t.filter with the build keys where there are at most
// limit of them.
func (t *JoinTable) buildFilter(keys []int64, limit int) {
	if len(keys) > limit {
		return
	}
	t.filter.reset(len(keys))
	for _, k := range keys {
		t.filter.add(k)
	}
}

// probeInts looks up each probe key (vals, probe's values), split into
// the table's parts alike.
func probeInts[K int32 | int64](t *JoinTable, m *joinMatches, probe arrow.Array, vals []K) {
	m.head = probeHeads(probe, t.pbits)
	t.probeNulls(m, probe)
	keys, rows := validKeys(probe, vals)
	if t.pbits == 0 {
		probePart(m, &t.parts[0], keys, rows)
		return
	}
	keys, rows = sift(&t.filter, m, keys, rows)
	wide, rows, start := radixSplit(keys, rows, t.pbits)
	for p := range t.parts {
		probePart(m, &t.parts[p], wide[start[p]:start[p+1]], rows[start[p]:start[p+1]])
	}
}

// probeHeads is the head of each row of probe before the probe: -1 where
// the probe writes matches only (rows taken by radix part, or some rows
// left out for their nulls), else left to the probe, which writes each row
// in order.
func probeHeads(probe arrow.Array, pbits int) []int32 {
	if pbits > 0 || probe.NullN() > 0 {
		return minusOnes(probe.Len())
	}
	return make([]int32, probe.Len())
}

// minusOnes is n times -1: the next of build rows before any is chained
// (each the last of its key's chain), and the head of probe rows before
// any is matched. Filled in one pass, they are written again only for a
// repeated key or a match, where builds and probes, which take rows part
// by part, would otherwise write a scattered word, a cache miss, for
// every row.
func minusOnes(n int) []int32 {
	if n == 0 {
		return []int32{}
	}
	out := alloc.NoZeroOf[int32](n) // every entry is written below
	// Doubling copies: memmove's wide stores, not a store a word.
	out[0] = -1
	for k := 1; k < n; k *= 2 {
		copy(out[k:], out[:k])
	}
	return out
}

// chainNulls chains the build rows with a null key, which match each
// other as pandas' merge matches NaN keys.
func (t *JoinTable) chainNulls(build arrow.Array) {
	if build.NullN() > 0 {
		valid, off := Validity(build)
		for r := build.Len() - 1; r >= 0; r-- {
			if !IsValid(valid, off, r) {
				t.next[r], t.nullHead = t.nullHead, int32(r)
				t.nullCount++
			}
		}
	}
	t.unique = t.nullCount <= 1
}

// probeNulls matches the probe rows with a null key to the null build rows.
func (t *JoinTable) probeNulls(m *joinMatches, probe arrow.Array) {
	if probe.NullN() == 0 {
		return
	}
	valid, off := Validity(probe)
	for i := range probe.Len() {
		if !IsValid(valid, off, i) {
			m.head[i] = t.nullHead
			m.pairs += t.nullCount
			if t.nullHead < 0 {
				m.unmatched++
			}
		}
	}
}

// radixBits is how many top bits of the keys' hashes split a build side
// of rows keys: none where one table of up to 4·radixRows keys fits the L2
// cache whole.
func radixBits(rows int) int {
	pbits := 0
	for rows > 4*radixRows && pbits < maxRadixBits && rows>>pbits > radixRows {
		pbits++
	}
	return pbits
}

// validKeys returns a's keys (vals, its values) that hold a value and,
// where some do not, their rows (nil: every row).
func validKeys[K int32 | int64](a arrow.Array, vals []K) (keys []K, rows []int32) {
	keys = vals
	if a.NullN() > 0 {
		rows = validRows(a, len(keys))
		keys = gatherKeys(keys, rows)
	}
	return keys, rows
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
func gatherKeys[K int32 | int64](x []K, rows []int32) []K {
	out := make([]K, len(rows))
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

// radixSplit lays out keys (of rows, nil: the same) by the top pbits of
// their hashes, stably: part p's keys are keys[start[p]:start[p+1]] and
// rows[...] their row numbers.
func radixSplit[K int32 | int64](x []K, xrows []int32, pbits int) (keys []int64, rows []int32, start []int) {
	shift := 64 - pbits
	start = make([]int, 1<<pbits+1)
	for _, k := range x {
		start[joinHash(int64(k))>>shift+1]++
	}
	for p := 1; p < len(start); p++ {
		start[p] += start[p-1]
	}
	pos := slices.Clone(start[:len(start)-1])
	keys, rows = make([]int64, len(x)), make([]int32, len(x))
	for j, k := range x {
		i := int32(j)
		if xrows != nil {
			i = xrows[j]
		}
		p := joinHash(int64(k)) >> shift
		keys[pos[p]], rows[pos[p]] = int64(k), i
		pos[p]++
	}
	return keys, rows, start
}

// joinTable is the open-addressing table of one radix part of a join
// (reused from part to part where the parts are probed as they are built).
type joinTable struct {
	slots []joinSlot
	mask  uint64
	shift uint // a slot is a key's hash, less its pbits radix bits, >> shift
	pbits uint
	// filter holds the table's keys where there are at most filterRows
	// of them (128 KiB of bits, which stay in the cache) and the caller
	// asked for one: semi joins and joins with a filtered dimension,
	// where most probes miss.
	filter keyFilter
}

// filterRows is the largest part that gets a filter.
const filterRows = 1 << 16

// reset empties t and sizes it for rows keys whose hashes' top pbits are
// the same, with a filter if filtered (not: the whole table's filter
// sifts the probe keys). Either filter answers most misses, so the table
// may be dense.
func (t *joinTable) reset(rows, pbits int, filtered bool) {
	size, shift := joinTableSize(rows, !filtered || rows <= filterRows)
	if cap(t.slots) < size {
		t.slots = make([]joinSlot, size)
	} else {
		t.slots = t.slots[:size]
		clear(t.slots)
	}
	t.mask, t.shift, t.pbits = uint64(size-1), shift, uint(pbits)
	if !filtered || rows > filterRows || rows == 0 {
		t.filter.words = nil
		return
	}
	t.filter.reset(rows)
}

func (t *joinTable) home(k int64) uint64 { return joinHash(k) << t.pbits >> t.shift }

// build adds keys to t in reverse order, chaining the build rows with one
// key through next (as minusOnes left it) in row order; rows maps keys'
// indexes to build rows (nil: the same). It reports whether no key
// repeated.
func (t *joinTable) build(next []int32, keys []int64, rows []int32) (unique bool) {
	unique = true
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
		if t.filter.words != nil {
			t.filter.add(k)
		}
		for s := t.home(k); ; s = (s + 1) & t.mask {
			sl := &t.slots[s]
			if sl.head1 == 0 {
				*sl = joinSlot{key: k, head1: r + 1, count: 1}
				break
			}
			if sl.key == k {
				next[r] = sl.head1 - 1
				sl.head1 = r + 1
				sl.count++
				unique = false
				break
			}
		}
	}
	probeSink.Store(uint64(touched))
	return unique
}

// probePart finds each key's first build row in t, into m.head of its
// probe row (rows maps keys' indexes to probe rows; nil: the same).
func probePart[K int32 | int64](m *joinMatches, t *joinTable, keys []K, rows []int32) {
	var touched int32
	filter := &t.filter
	if mostHeld(filter, keys) {
		filter = &keyFilter{} // asking it would cost more than it saves
	}
	ahead := len(t.slots)*int(unsafe.Sizeof(joinSlot{})) > cachedTable
	for j, key := range keys {
		if ahead && j%probeBatch == 0 {
			for _, k := range keys[j:min(j+probeBatch, len(keys))] {
				touched |= t.slots[t.home(int64(k))].head1
			}
		}
		k := int64(key)
		h := int32(-1)
		if filter.mayHold(k) {
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
		if h < 0 {
			m.unmatched++
		}
		if rows == nil {
			m.head[j] = h // rows in order: a write in order either way
		} else if h >= 0 {
			m.head[rows[j]] = h
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

// buildHashed builds the table of keys of any kinds and count, by their
// row hashes; rows with one hash but different keys take separate slots.
func (t *JoinTable) buildHashed(siftLimit int) {
	bh := HashRows(t.keys, nil)
	eq := newKeyEq(t.keys, t.keys)
	size, _ := joinTableSize(len(bh), false)
	t.mask = uint64(size - 1)
	t.slots = make([]hashSlot, size)
	if len(bh) <= siftLimit {
		t.filter.reset(len(bh))
		for _, h := range bh {
			t.filter.add(int64(h))
		}
	}
	// The low bits pick the slot: the high ones may be alike across a
	// partition, which PartitionOf chose by them.
	for r := len(bh) - 1; r >= 0; r-- {
		h := bh[r]
		for s := h & t.mask; ; s = (s + 1) & t.mask {
			sl := &t.slots[s]
			if sl.head1 == 0 {
				*sl = hashSlot{hash: h, head1: int32(r) + 1, count: 1}
				break
			}
			if sl.hash == h && eq.equal(r, int(sl.head1-1)) {
				t.next[r] = sl.head1 - 1
				sl.head1 = int32(r) + 1
				sl.count++
				t.unique = false
				break
			}
		}
	}
}

// probeHashed looks up each probe row by its hash, checking the key
// values of every candidate. The table's filter of row hashes answers
// most misses where the probe mostly misses; the home slots of a batch of
// rows are loaded together, so that their cache misses overlap.
func (t *JoinTable) probeHashed(m *joinMatches, probe []arrow.Array) {
	m.head = make([]int32, probe[0].Len()) // each row's written
	eq := newKeyEq(probe, t.keys)
	hashes := HashRows(probe, nil)
	filter := &t.filter
	if mostHeld(filter, hashes) {
		filter = &keyFilter{}
	}
	var touched int32
	for i, h := range hashes {
		if i%probeBatch == 0 {
			for _, h := range hashes[i:min(i+probeBatch, len(hashes))] {
				if filter.mayHold(int64(h)) {
					touched |= t.slots[h&t.mask].head1
				}
			}
		}
		match := int32(-1)
		if filter.mayHold(int64(h)) {
			for s := h & t.mask; ; s = (s + 1) & t.mask {
				sl := &t.slots[s]
				if sl.head1 == 0 {
					break
				}
				if sl.hash == h && eq.equal(i, int(sl.head1-1)) {
					match = sl.head1 - 1
					m.pairs += int(sl.count)
					break
				}
			}
		}
		m.head[i] = match
		if match < 0 {
			m.unmatched++
		}
	}
	probeSink.Store(uint64(touched))
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
