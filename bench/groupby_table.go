package bench

import "github.com/apache/arrow/go/v15/arrow"

// GroupByTable is a groupby table (GroupByRow's layout) as column slices,
// all of Len rows.
type GroupByTable struct {
	ID1, ID2, ID3 []string
	ID4, ID5, ID6 []int64
	V1, V2        []int64
	V3            []float64
}

// Len returns the number of rows.
func (t *GroupByTable) Len() int { return len(t.V3) }

// NewGroupByTable returns the n rows NewGroupByGen(n, k, seed) gives, as
// columns. Equal string ids share their bytes, so a row allocates nothing.
func NewGroupByTable(n, k int, seed uint64) *GroupByTable {
	g := NewGroupByGen(n, k, seed)
	short, long := newIDNames(g.k, 3), newIDNames(max(g.n/g.k, 1), 10)
	t := &GroupByTable{
		ID1: make([]string, n), ID2: make([]string, n), ID3: make([]string, n),
		ID4: make([]int64, n), ID5: make([]int64, n), ID6: make([]int64, n),
		V1: make([]int64, n), V2: make([]int64, n), V3: make([]float64, n),
	}
	for i := range n {
		id1, id2, id3, id4, id5, id6, v1, v2, v3 := g.next()
		t.ID1[i], t.ID2[i], t.ID3[i] = short.name(id1), short.name(id2), long.name(id3)
		t.ID4[i], t.ID5[i], t.ID6[i] = id4, id5, id6
		t.V1[i], t.V2[i], t.V3[i] = v1, v2, float64(v3)/1e6
	}
	return t
}

func (t *GroupByTable) columns() []column {
	return []column{
		catCol("id1", t.ID1), catCol("id2", t.ID2), catCol("id3", t.ID3),
		intCol("id4", t.ID4), intCol("id5", t.ID5), intCol("id6", t.ID6),
		intCol("v1", t.V1), intCol("v2", t.V2), floatCol("v3", t.V3),
	}
}

// Records returns t as parts records of about equal row counts (parts below
// 1 count as 1): id1..id3 dictionary-encoded strings (categorical, as
// db-benchmark's fastest solutions load them), id4..id6, v1, v2 int64 and
// v3 float64.
// Number columns share t's memory; strings are copied. The caller owns the
// records and releases them.
func (t *GroupByTable) Records(parts int) []arrow.Record { return records(t.columns(), parts) }

// GroupByRecords returns the groupby table of n rows and k groups (the rows
// of NewGroupByGen(n, k, seed)) as parts Arrow records, as
// GroupByTable.Records does.
func GroupByRecords(n, k int, seed uint64, parts int) []arrow.Record {
	return NewGroupByTable(n, k, seed).Records(parts)
}
