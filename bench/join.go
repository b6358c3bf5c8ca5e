package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
)

// JoinTable is one table of db-benchmark's join data (join-datagen.R) as
// plain column slices. A column the table lacks is nil; the others all have
// Len rows.
type JoinTable struct {
	ID1, ID2, ID3 []int64
	ID4, ID5, ID6 []string  // "id" and ID1, ID2, ID3 in decimal, unpadded ("id42")
	V             []float64 // uniform in [0, 100) with 6 decimals
	VName         string    // V's column name: "v1" in X, "v2" in the others
}

// Len returns the number of rows.
func (t *JoinTable) Len() int { return len(t.V) }

// JoinTables is the join data for one size: the left table X and the three
// right-hand tables it is joined with.
//
// X has id1..id3 drawn from the x and l parts of each key set, every key at
// least once, so X.ID3 is unique. Small (id1 unique), Medium (id2 unique)
// and Big (id3 unique) draw from the x and r parts: 90% of the keys of
// either side are found on the other.
type JoinTables struct{ X, Small, Medium, Big JoinTable }

// MinJoinRows is the fewest rows GenJoin accepts: X must hold every id2 key.
const MinJoinRows = 100

// GenJoin generates the join tables for an X of n rows, the same for the
// same seed. It panics when n < MinJoinRows.
//
// join-datagen.R wants n ≥ 1e7, where id1 has n/1e6 keys and id2 n/1e3.
// GenJoin also takes smaller n by keeping at least 10 id1 keys and 100 id2
// keys (n1 = max(n/1e6, 10), n2 = max(n/1e3, 100)); Small has n1 rows and
// Medium n2. Where a key count is not a multiple of 10, its l and r parts
// get the count less its 90% (rounded down) x part.
func GenJoin(n int, seed uint64) *JoinTables {
	if n < MinJoinRows {
		panic(fmt.Sprintf("bench.GenJoin: %d rows; at least %d are needed", n, MinJoinRows))
	}
	n1, n2 := max(n/1_000_000, 10), max(n/1_000, 100)
	var k1, k2, k3 keySet
	var names1, names2 idNames
	var wg sync.WaitGroup
	wg.Go(func() {
		k1, k2 = splitXLR(stream(seed, 1), n1), splitXLR(stream(seed, 2), n2)
		names1, names2 = newIDNames(len(k1.perm), 0), newIDNames(len(k2.perm), 0)
	})
	wg.Go(func() { k3 = splitXLR(stream(seed, 3), n) })
	wg.Wait()

	// Each column has its own random stream, so the tables can be drawn
	// at once and still come out the same for the same seed.
	t := &JoinTables{}
	wg.Go(func() {
		x := &t.X
		x.ID1 = sampleAll(stream(seed, 10), k1.lhs(), n)
		x.ID2 = sampleAll(stream(seed, 11), k2.lhs(), n)
		x.ID3 = sampleAll(stream(seed, 12), k3.lhs(), n)
		x.ID4, x.ID5, x.ID6 = names1.of(x.ID1), names2.of(x.ID2), idStrings(x.ID3)
		x.V, x.VName = uniform(stream(seed, 13), n), "v1"
	})
	wg.Go(func() {
		s := &t.Small
		s.ID1 = sampleAll(stream(seed, 20), k1.rhs(), n1)
		s.ID4 = names1.of(s.ID1)
		s.V, s.VName = uniform(stream(seed, 21), n1), "v2"

		m := &t.Medium
		m.ID1 = sampleAll(stream(seed, 30), k1.rhs(), n2)
		m.ID2 = sampleAll(stream(seed, 31), k2.rhs(), n2)
		m.ID4, m.ID5 = names1.of(m.ID1), names2.of(m.ID2)
		m.V, m.VName = uniform(stream(seed, 32), n2), "v2"
	})
	wg.Go(func() {
		b := &t.Big
		b.ID1 = sampleAll(stream(seed, 40), k1.rhs(), n)
		b.ID2 = sampleAll(stream(seed, 41), k2.rhs(), n)
		b.ID3 = sampleAll(stream(seed, 42), k3.rhs(), n)
		b.ID4, b.ID5, b.ID6 = names1.of(b.ID1), names2.of(b.ID2), idStrings(b.ID3)
		b.V, b.VName = uniform(stream(seed, 43), n), "v2"
	})
	wg.Wait()
	return t
}

// stream returns the random stream id of seed.
func stream(seed, id uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc909^id))
}

// keySet is split_xlr(n): a permutation of 1..n+n/10 whose first nx keys
// are x (common to both sides), the next up to n l (left only) and the
// rest r (right only).
type keySet struct {
	perm  []int64
	nx, n int
}

// keyCount is the size of split_xlr(n)'s permutation: n keys on either
// side, n - 9n/10 of them on one side only.
func keyCount(n int) int { return n + n - n*9/10 }

func splitXLR(r *rand.Rand, n int) keySet {
	keys := make([]int64, keyCount(n))
	for i := range keys {
		keys[i] = int64(i + 1)
	}
	perm := make([]int64, len(keys))
	shuffleInto(r, perm, keys)
	return keySet{perm: perm, nx: n * 9 / 10, n: n}
}

// lhs returns the x and l keys; rhs returns a new slice of the x and r keys.
func (k keySet) lhs() []int64 { return k.perm[:k.n] }
func (k keySet) rhs() []int64 {
	return append(k.perm[:k.nx:k.nx], k.perm[k.n:]...)
}

// sampleAll is sample_all(keys, size): size draws from keys holding each key
// at least once, in random order. Where keys are few it draws the rest
// first and then puts each key at a random free place, which has the same
// distribution as R's shuffle of keys and draws, without shuffling size
// values.
func sampleAll(r *rand.Rand, keys []int64, size int) []int64 {
	if len(keys) > size {
		panic(fmt.Sprintf("bench: %d keys do not fit %d rows", len(keys), size))
	}
	out := make([]int64, size)
	if 2*len(keys) > size {
		all := make([]int64, size)
		copy(all, keys)
		for i := len(keys); i < size; i++ {
			all[i] = keys[r.IntN(len(keys))]
		}
		shuffleInto(r, out, all)
		return out
	}
	for i := range out {
		out[i] = keys[r.IntN(len(keys))]
	}
	taken := make([]uint64, (size+63)/64)
	for _, k := range keys {
		for {
			p := r.IntN(size)
			if taken[p/64]&(1<<(p%64)) == 0 {
				taken[p/64] |= 1 << (p % 64)
				out[p] = k
				break
			}
		}
	}
	return out
}

// shuffleInto sets dst, as long as src, to a random permutation of src.
// Long slices are first dealt into 256 random buckets, each then shuffled
// (Rao-Sandelius): as uniform as Fisher-Yates, and some three times faster
// once the slice outgrows the caches.
func shuffleInto(r *rand.Rand, dst, src []int64) {
	const buckets = 256
	if len(src) < 64*buckets {
		copy(dst, src)
		shuffle(r, dst)
		return
	}
	tag := make([]uint8, len(src))
	var start [buckets + 1]int
	for i := range tag {
		b := uint8(r.Uint64())
		tag[i] = b
		start[int(b)+1]++
	}
	for b := 1; b <= buckets; b++ {
		start[b] += start[b-1]
	}
	next := start
	for i, v := range src {
		dst[next[tag[i]]] = v
		next[tag[i]]++
	}
	for b := range buckets {
		shuffle(r, dst[start[b]:start[b+1]])
	}
}

// shuffle is Fisher-Yates on s.
func shuffle(r *rand.Rand, s []int64) {
	for i := len(s) - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		s[i], s[j] = s[j], s[i]
	}
}

// uniform returns n values uniform in [0, 100) with 6 decimals, as
// round(runif(n, max=100), 6).
func uniform(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(r.Int64N(100_000_000)) / 1e6
	}
	return v
}

// idStrings returns "id" and each of ids, unpadded, all in one string laid
// out in row order, so that reading them in order is reading memory in
// order.
func idStrings(ids []int64) []string {
	var b strings.Builder
	var digits [24]byte
	b.Grow(len(ids) * 12)
	ends := make([]int, len(ids))
	for i, id := range ids {
		b.Write(appendID(digits[:0], id, 0))
		ends[i] = b.Len()
	}
	all := b.String()
	out := make([]string, len(ids))
	start := 0
	for i, end := range ends {
		out[i], start = all[start:end], end
	}
	return out
}

// idNames holds the names of ids 1..m ("id" and the id, zero-padded to a
// width) in one string, so a column of names costs one string header a row
// and no allocation.
type idNames struct {
	all string
	off []int64 // name k is all[off[k-1]:off[k]]
}

// newIDNames returns the names of ids 1..m, padded to width digits (0: not
// padded).
func newIDNames(m, width int) idNames {
	var b strings.Builder
	var digits [24]byte
	b.Grow(m * len(appendID(digits[:0], int64(m), width)))
	off := make([]int64, m+1)
	for k := 1; k <= m; k++ {
		b.Write(appendID(digits[:0], int64(k), width))
		off[k] = int64(b.Len())
	}
	return idNames{all: b.String(), off: off}
}

// name returns the name of id k.
func (nm idNames) name(k int64) string { return nm.all[nm.off[k-1]:nm.off[k]] }

// of returns the names of ids.
func (nm idNames) of(ids []int64) []string {
	out := make([]string, len(ids))
	for i, k := range ids {
		out[i] = nm.name(k)
	}
	return out
}
