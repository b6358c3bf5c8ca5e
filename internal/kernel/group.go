package kernel

import (
	"fmt"
	"math"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// Grouper gives each distinct combination of key values a dense group id,
// in order of first appearance, across any number of chunks: a partition's
// rows, or the partial results of several partitions being combined. Rows
// with a null key get id -1 and drop out of every group, as in pandas.
type Grouper struct {
	cols   []colGrouper
	levels []*pairLevel // levels[c-1] joins column c to the ids of columns < c
}

// pairLevel maps (id of the columns before, id in this column) to a new id.
type pairLevel struct {
	table *int64Table
	prev  []int32
	local []int32
}

// NewGrouper returns a grouper for key columns of the given types.
func NewGrouper(types []arrow.DataType) (*Grouper, error) {
	g := &Grouper{}
	for _, t := range types {
		switch {
		case t.ID() == arrow.INT64:
			g.cols = append(g.cols, &intGrouper{table: newInt64Table(64)})
		case t.ID() == arrow.FLOAT64:
			g.cols = append(g.cols, &floatGrouper{table: newInt64Table(64)})
		case IsString(t):
			g.cols = append(g.cols, &stringGrouper{idmap: make(map[string]int32), offsets: []int32{0}})
		case t.ID() == arrow.BOOL:
			g.cols = append(g.cols, &boolGrouper{slot: [2]int32{-1, -1}})
		default:
			return nil, fmt.Errorf("cannot group by a %s column (Widen it first)", t)
		}
	}
	for range g.cols[1:] {
		g.levels = append(g.levels, &pairLevel{table: newInt64Table(64)})
	}
	return g, nil
}

// Add assigns group ids to the rows of one chunk's key columns. It writes
// them into ids, grown if shorter than the chunk, and returns that slice, so
// that a caller can reuse one buffer across chunks; ids may be nil.
func (g *Grouper) Add(keys []arrow.Array, ids []int32) []int32 {
	n := 0
	if len(keys) > 0 {
		n = keys[0].Len()
	}
	if cap(ids) < n {
		ids = make([]int32, n)
	}
	ids = ids[:n]
	g.cols[0].ids(keys[0], ids)
	if len(g.cols) == 1 {
		return ids
	}
	local := make([]int32, n)
	for c := 1; c < len(g.cols); c++ {
		g.cols[c].ids(keys[c], local)
		lv := g.levels[c-1]
		for i, prev := range ids {
			l := local[i]
			if prev < 0 || l < 0 {
				ids[i] = -1
				continue
			}
			id, added := lv.table.getOrInsert(int64(prev)<<32|int64(l), int32(len(lv.prev)))
			if added {
				lv.prev = append(lv.prev, prev)
				lv.local = append(lv.local, l)
			}
			ids[i] = id
		}
	}
	return ids
}

// NumGroups is the number of groups seen so far.
func (g *Grouper) NumGroups() int {
	if len(g.levels) == 0 {
		return g.cols[0].len()
	}
	return len(g.levels[len(g.levels)-1].prev)
}

// Keys returns the key columns of the groups, row i holding group i's keys.
func (g *Grouper) Keys() []arrow.Array {
	n := g.NumGroups()
	out := make([]arrow.Array, len(g.cols))
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(i)
	}
	for c := len(g.cols) - 1; c >= 1; c-- {
		lv := g.levels[c-1]
		local := make([]int32, n)
		for i, id := range ids {
			local[i] = lv.local[id]
			ids[i] = lv.prev[id]
		}
		out[c] = g.cols[c].values(local)
	}
	out[0] = g.cols[0].values(ids)
	return out
}

// colGrouper numbers the distinct values of one key column.
type colGrouper interface {
	ids(a arrow.Array, out []int32)
	len() int
	values(local []int32) arrow.Array
}

type intGrouper struct {
	table *int64Table
	vals  []int64
}

func (g *intGrouper) ids(a arrow.Array, out []int32) {
	vals := a.(*array.Int64).Int64Values()
	valid, off := Validity(a)
	for i, v := range vals {
		if valid != nil && !IsValid(valid, off, i) {
			out[i] = -1
			continue
		}
		id, added := g.table.getOrInsert(v, int32(len(g.vals)))
		if added {
			g.vals = append(g.vals, v)
		}
		out[i] = id
	}
}

func (g *intGrouper) len() int { return len(g.vals) }

func (g *intGrouper) values(local []int32) arrow.Array { return NewInt64(gather(g.vals, local), nil) }

// floatGrouper groups by value: -0 with 0, and every NaN together.
type floatGrouper struct {
	table *int64Table
	vals  []float64
}

func (g *floatGrouper) ids(a arrow.Array, out []int32) {
	vals := a.(*array.Float64).Float64Values()
	valid, off := Validity(a)
	for i, v := range vals {
		if valid != nil && !IsValid(valid, off, i) {
			out[i] = -1
			continue
		}
		bits := int64(math.Float64bits(v + 0)) // -0 + 0 is +0
		if v != v {
			bits = int64(math.Float64bits(math.NaN()))
		}
		id, added := g.table.getOrInsert(bits, int32(len(g.vals)))
		if added {
			g.vals = append(g.vals, v)
		}
		out[i] = id
	}
}

func (g *floatGrouper) len() int { return len(g.vals) }

func (g *floatGrouper) values(local []int32) arrow.Array {
	return NewFloat64(gather(g.vals, local), nil)
}

type boolGrouper struct {
	slot [2]int32
	vals []uint8
}

func (g *boolGrouper) ids(a arrow.Array, out []int32) {
	b := a.(*array.Boolean)
	valid, off := Validity(a)
	for i := range out {
		if valid != nil && !IsValid(valid, off, i) {
			out[i] = -1
			continue
		}
		v := b2u(b.Value(i))
		if g.slot[v] < 0 {
			g.slot[v] = int32(len(g.vals))
			g.vals = append(g.vals, v)
		}
		out[i] = g.slot[v]
	}
}

func (g *boolGrouper) len() int { return len(g.vals) }

func (g *boolGrouper) values(local []int32) arrow.Array { return NewBool(gather(g.vals, local), nil) }

// stringGrouper numbers strings; a dictionary column is looked up once per
// dictionary entry, not once per row.
type stringGrouper struct {
	idmap   map[string]int32
	offsets []int32
	data    []byte
}

func (g *stringGrouper) lookup(b []byte) int32 {
	if id, ok := g.idmap[string(b)]; ok {
		return id
	}
	id := int32(len(g.offsets) - 1)
	g.data = append(g.data, b...)
	g.offsets = append(g.offsets, int32(len(g.data)))
	g.idmap[string(b)] = id
	return id
}

func (g *stringGrouper) ids(a arrow.Array, out []int32) {
	s := StringsOf(a)
	valid, off := Validity(a)
	if s.Indices != nil {
		remap := make([]int32, s.Dict.Len())
		for j := range remap {
			remap[j] = -1
		}
		for i, j := range s.Indices {
			if valid != nil && !IsValid(valid, off, i) {
				out[i] = -1
				continue
			}
			id := remap[j]
			if id < 0 {
				id = g.lookup(dictBytes(s.Dict, int(j)))
				remap[j] = id
			}
			out[i] = id
		}
		return
	}
	for i := range out {
		if valid != nil && !IsValid(valid, off, i) {
			out[i] = -1
			continue
		}
		out[i] = g.lookup(s.Data[s.Offsets[i]:s.Offsets[i+1]])
	}
}

func (g *stringGrouper) len() int { return len(g.offsets) - 1 }

func (g *stringGrouper) values(local []int32) arrow.Array {
	return Take(NewString(g.offsets, g.data, nil), local)
}
