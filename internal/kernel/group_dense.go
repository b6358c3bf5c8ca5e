package kernel

import (
	"math"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// denseKey turns one key column's rows into small codes 0..size-1 (-1 for
// null): an integer less the column's minimum, a dictionary index mapped to
// the first entry with the same bytes, a boolean as 0 or 1.
type denseKey struct {
	size  int
	ints  []int64
	min   int64
	dict  []int32 // dictionary index -> code
	idx   []int32
	bools *array.Boolean
	valid []byte
	off   int
}

// maxDense is the most codes a dense grouping of n rows indexes: a table
// of int32 group ids, filled once (a fraction of a nanosecond a code) and
// then read at a few nanoseconds a row, where hashing costs tens. A combine
// of db-benchmark's q5 at 1e8 rows, about 100,000 rows of 10,000 keys from
// a million, takes 16 times its rows.
func maxDense(n int) int { return min(max(16*n, 1<<16), 1<<24) }

// newDenseKey returns col's codes, or false when col's values do not map to
// at most limit codes. Without codes it only sizes the range, and a
// dictionary's entries are not compared (its size is its length).
// intRange is the least and greatest valid value of x; lo > hi where
// there is none.
func intRange(x []int64, valid []byte, off int) (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	if valid == nil {
		for _, v := range x {
			lo, hi = min(lo, v), max(hi, v)
		}
		return lo, hi
	}
	for i, v := range x {
		if IsValid(valid, off, i) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi
}

func newDenseKey(col arrow.Array, limit int, codes bool) (denseKey, bool) {
	k := denseKey{}
	k.valid, k.off = Validity(col)
	switch a := col.(type) {
	case *array.Int64:
		k.ints = a.Int64Values()
		lo, hi := intRange(k.ints, k.valid, k.off)
		if lo > hi { // every row null: one code
			lo, hi = 0, 0
		}
		if span := uint64(hi - lo); hi >= lo && span < uint64(limit) {
			k.min, k.size = lo, int(span)+1
			return k, true
		}
	case *array.Boolean:
		k.bools, k.size = a, 2
		return k, true
	case *array.Dictionary:
		s := StringsOf(a)
		if s.Dict.Len() > limit {
			return k, false
		}
		if !codes {
			k.size = max(s.Dict.Len(), 1)
			return k, true
		}
		// Entries are usually distinct; where one repeats, its rows still
		// get the code of its first occurrence.
		k.idx, k.dict = s.Indices, make([]int32, s.Dict.Len())
		seen := make(map[string]int32, s.Dict.Len())
		for j := range k.dict {
			b := dictBytes(s.Dict, j)
			c, ok := seen[string(b)]
			if !ok {
				c = int32(len(seen))
				seen[string(b)] = c
			}
			k.dict[j] = c
		}
		k.size = max(len(seen), 1)
		return k, true
	}
	return k, false
}

// code returns row i's code, -1 for a null.
func (k *denseKey) code(i int) int32 {
	if k.valid != nil && !IsValid(k.valid, k.off, i) {
		return -1
	}
	switch {
	case k.ints != nil:
		return int32(k.ints[i] - k.min)
	case k.dict != nil:
		return k.dict[k.idx[i]]
	}
	return int32(b2u(k.bools.Value(i)))
}

// denseGroups is GroupRows for keys whose codes multiply out to a small
// range: each row's combined code indexes a table of group ids directly,
// with no hashing and no key comparison (DuckDB's perfect hash
// aggregation). It returns false, having written nothing, when the range
// is too large.
func denseGroups(cols []arrow.Array, ids []int32) (_ []int32, firsts []int32, ok bool) {
	keys, size, ok := denseKeys(cols, true)
	if !ok {
		return ids, nil, false
	}
	if k := keys[0]; len(keys) == 1 && k.valid == nil && k.ints != nil {
		ids, firsts = denseInts(k.ints, k.min, size, ids)
		return ids, firsts, true
	}
	// ids holds each row's combined code until it is replaced by the group.
	for c := range keys {
		k := &keys[c]
		switch {
		case c == 0 && k.valid == nil && k.ints != nil:
			for i, v := range k.ints {
				ids[i] = int32(v - k.min)
			}
		case c == 0 && k.valid == nil && k.dict != nil:
			for i, j := range k.idx {
				ids[i] = k.dict[j]
			}
		case c == 0:
			for i := range ids {
				ids[i] = k.code(i)
			}
		case k.valid == nil && k.ints != nil:
			w := int32(k.size)
			for i, v := range k.ints {
				if ids[i] >= 0 {
					ids[i] = ids[i]*w + int32(v-k.min)
				}
			}
		case k.valid == nil && k.dict != nil:
			w := int32(k.size)
			for i, j := range k.idx {
				if ids[i] >= 0 {
					ids[i] = ids[i]*w + k.dict[j]
				}
			}
		default:
			w := int32(k.size)
			for i := range ids {
				if ids[i] >= 0 {
					if v := k.code(i); v >= 0 {
						ids[i] = ids[i]*w + v
					} else {
						ids[i] = -1
					}
				}
			}
		}
	}
	table := denseTable(size)
	var codes []int32 // each group's, to clear the table after
	for i, code := range ids {
		if code < 0 {
			continue
		}
		g := (*table)[code]
		if g < 0 {
			g = int32(len(firsts))
			(*table)[code] = g
			firsts = append(firsts, int32(i))
			codes = append(codes, code)
		}
		ids[i] = g
	}
	for _, c := range codes {
		(*table)[c] = -1
	}
	denseTables.Put(table)
	return ids, firsts, true
}

// denseInts is denseGroups of one integer key without nulls, in one pass:
// each value less lo indexes the table (db-benchmark's q1 and q4 group by
// one such key).
func denseInts(x []int64, lo int64, size int, ids []int32) (_ []int32, firsts []int32) {
	p := denseTable(size)
	table := *p
	ids = ids[:len(x)]
	for i, v := range x {
		g := table[v-lo]
		if g < 0 {
			g = int32(len(firsts))
			table[v-lo] = g
			firsts = append(firsts, int32(i))
		}
		ids[i] = g
	}
	for _, f := range firsts {
		table[x[f]-lo] = -1
	}
	denseTables.Put(p)
	return ids, firsts
}

// denseTables keeps dense grouping tables between groupings, every entry
// -1 again (the groups' entries cleared, not the whole table): the
// combines of db-benchmark's q5 at 1e8 rows group 100,000 rows each over
// a million-wide range, and allocating and filling a fresh table of a
// million entries for each took 22–27 ns a row against 3.0–3.2
// (BenchmarkGroupRowsCombineInts), a quarter of q5's time.
var denseTables sync.Pool

// denseTable returns a table of size entries, each -1, for denseTables.
func denseTable(size int) *[]int32 {
	if p, _ := denseTables.Get().(*[]int32); p != nil && cap(*p) >= size {
		*p = (*p)[:size]
		return p
	}
	t := minusOnes(size)
	return &t
}

// denseKeys returns the codes of each key column and the size of their
// combined range, or false when that range is too large.
func denseKeys(cols []arrow.Array, codes bool) ([]denseKey, int, bool) {
	if len(cols) == 0 {
		return nil, 0, false
	}
	limit := maxDense(cols[0].Len())
	keys := make([]denseKey, len(cols))
	size := 1
	for c, col := range cols {
		k, ok := newDenseKey(col, limit/size, codes)
		if !ok {
			return nil, 0, false
		}
		keys[c] = k
		if size *= k.size; size > limit {
			return nil, 0, false
		}
	}
	return keys, size, true
}

// DenseSize is the number of codes GroupRows indexes directly for keys,
// 0 where it hashes them instead.
func DenseSize(keys []arrow.Array) int {
	keys, release := WidenKeys(keys)
	defer release()
	_, size, _ := denseKeys(keys, false)
	return size
}
