package bench

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// column is one named column of a table; exactly one of its slices is set.
// A categorical string column becomes a dictionary-encoded Arrow column.
type column struct {
	name   string
	ints   []int64
	strs   []string
	floats []float64
	cat    bool
}

// catCol is a string column of few distinct values, loaded as a dictionary
// (categorical) column, as Dusk's CSV reader and db-benchmark's Polars and
// data.table solutions load such id columns.
func catCol(name string, v []string) column { return column{name: name, strs: v, cat: true} }

func intCol(name string, v []int64) column     { return column{name: name, ints: v} }
func strCol(name string, v []string) column    { return column{name: name, strs: v} }
func floatCol(name string, v []float64) column { return column{name: name, floats: v} }

func (c column) len() int {
	switch {
	case c.ints != nil:
		return len(c.ints)
	case c.strs != nil:
		return len(c.strs)
	}
	return len(c.floats)
}

// value returns row i as an Answer value: int64, string or float64.
func (c column) value(i int) any {
	switch {
	case c.ints != nil:
		return c.ints[i]
	case c.strs != nil:
		return c.strs[i]
	}
	return c.floats[i]
}

// compare compares rows i and j of c in Answer's canonical order.
func (c column) compare(i, j int) int {
	switch {
	case c.ints != nil:
		return cmp.Compare(c.ints[i], c.ints[j])
	case c.strs != nil:
		return strings.Compare(c.strs[i], c.strs[j])
	}
	return cmp.Compare(c.floats[i], c.floats[j])
}

// compareAt compares rows i and j of cols, left to right.
func compareAt(cols []column, i, j int) int {
	for _, c := range cols {
		if r := c.compare(i, j); r != 0 {
			return r
		}
	}
	return 0
}

func (c column) field() arrow.Field {
	t := arrow.DataType(arrow.PrimitiveTypes.Float64)
	switch {
	case c.ints != nil:
		t = arrow.PrimitiveTypes.Int64
	case c.cat:
		t = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	case c.strs != nil:
		t = arrow.BinaryTypes.String
	}
	return arrow.Field{Name: c.name, Type: t}
}

// array returns rows lo..hi as an Arrow array: numbers share c's memory,
// strings are copied once into one buffer.
func (c column) array(lo, hi int) arrow.Array {
	n := hi - lo
	switch {
	case c.ints != nil:
		buf := memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.ints[lo:hi]))
		return array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, buf}, nil, 0, 0))
	case c.floats != nil:
		buf := memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(c.floats[lo:hi]))
		return array.NewFloat64Data(array.NewData(arrow.PrimitiveTypes.Float64, n, []*memory.Buffer{nil, buf}, nil, 0, 0))
	}
	strs := c.strs[lo:hi]
	size := 0
	for _, s := range strs {
		size += len(s)
	}
	if size > math.MaxInt32 {
		panic(fmt.Sprintf("bench: column %s rows %d..%d hold %d bytes, more than a utf8 array can; use more parts", c.name, lo, hi, size))
	}
	data := make([]byte, 0, size)
	off := make([]int32, n+1)
	for i, s := range strs {
		data = append(data, s...)
		off[i+1] = int32(len(data))
	}
	bufs := []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(off)), memory.NewBufferBytes(data)}
	return array.NewStringData(array.NewData(arrow.BinaryTypes.String, n, bufs, nil, 0, 0))
}

// records returns cols as parts records of about equal row counts, the
// first rows in the first record; parts below 1 count as 1. It panics when
// the columns differ in length.
func records(cols []column, parts int) []arrow.Record {
	parts = max(parts, 1)
	n := 0
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		if i == 0 {
			n = c.len()
		} else if c.len() != n {
			panic(fmt.Sprintf("bench: column %s has %d rows, %s has %d", c.name, c.len(), cols[0].name, n))
		}
		fields[i] = c.field()
	}
	schema := arrow.NewSchema(fields, nil)
	recs := make([]arrow.Record, parts)
	arrs := make([]arrow.Array, len(cols))
	dicts := make([]*dictionary, len(cols))
	for i, c := range cols {
		if c.cat {
			dicts[i] = newDictionary(c.strs)
			defer dicts[i].values.Release()
		}
	}
	for p := range recs {
		lo, hi := p*n/parts, (p+1)*n/parts
		for i, c := range cols {
			if d := dicts[i]; d != nil {
				arrs[i] = d.array(c.strs[lo:hi])
				continue
			}
			arrs[i] = c.array(lo, hi)
		}
		recs[p] = array.NewRecord(schema, arrs, int64(hi-lo))
		for _, a := range arrs {
			a.Release()
		}
	}
	return recs
}

// columns returns t's columns in join-datagen.R's order: ids, string ids,
// then V (named VName, or "v" where VName is empty).
func (t *JoinTable) columns() []column {
	var cols []column
	for i, ids := range [...][]int64{t.ID1, t.ID2, t.ID3} {
		if ids != nil {
			cols = append(cols, intCol(fmt.Sprintf("id%d", i+1), ids))
		}
	}
	for i, ids := range [...][]string{t.ID4, t.ID5, t.ID6} {
		switch {
		case ids == nil:
		case i < 2: // id4, id5: as many values as id1, id2
			cols = append(cols, catCol(fmt.Sprintf("id%d", i+4), ids))
		default: // id6: one per row of X
			cols = append(cols, strCol(fmt.Sprintf("id%d", i+4), ids))
		}
	}
	name := t.VName
	if name == "" {
		name = "v"
	}
	return append(cols, floatCol(name, t.V))
}

// Records returns t as parts records of about equal row counts (parts below
// 1 count as 1): int64 ids, string ids (id4 and id5 dictionary-encoded,
// id6 utf8) and float64 V, named as in join-datagen.R. Number columns share t's memory, which must not change
// while the records are in use; strings are copied. The caller owns the
// records and releases them.
func (t *JoinTable) Records(parts int) []arrow.Record { return records(t.columns(), parts) }

// dictionary is a categorical column's distinct values, sorted, shared by
// all its records.
type dictionary struct {
	values *array.String
	index  map[string]int32
}

func newDictionary(strs []string) *dictionary {
	d := &dictionary{index: map[string]int32{}}
	var distinct []string
	for _, s := range strs {
		if _, ok := d.index[s]; !ok {
			d.index[s] = 0
			distinct = append(distinct, s)
		}
	}
	slices.Sort(distinct)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i, s := range distinct {
		d.index[s] = int32(i)
		b.Append(s)
	}
	d.values = b.NewStringArray()
	return d
}

// array encodes strs, which must all be in d.
func (d *dictionary) array(strs []string) arrow.Array {
	idx := make([]int32, len(strs))
	for i, s := range strs {
		idx[i] = d.index[s]
	}
	buf := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(idx))
	indices := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(idx), []*memory.Buffer{nil, buf}, nil, 0, 0))
	defer indices.Release()
	return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, indices, d.values)
}
