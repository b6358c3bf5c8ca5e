package kernel

import (
	"fmt"
	"math"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// PlainType is t with dictionary strings as plain strings.
func PlainType(t arrow.DataType) arrow.DataType {
	if IsString(t) {
		return String
	}
	return t
}

// PlainSchema is s with every string column plain.
func PlainSchema(s *arrow.Schema) *arrow.Schema {
	fields := make([]arrow.Field, s.NumFields())
	for i, f := range s.Fields() {
		f.Type = PlainType(f.Type)
		fields[i] = f
	}
	return arrow.NewSchema(fields, nil)
}

// ConcatRecords appends the rows of recs, which share schema's columns,
// into one record; strings come out plain.
func ConcatRecords(schema *arrow.Schema, recs []arrow.Record) (arrow.Record, error) {
	n := 0
	for _, r := range recs {
		n += int(r.NumRows())
	}
	out := PlainSchema(schema)
	cols := make([]arrow.Array, schema.NumFields())
	parts := make([]arrow.Array, len(recs))
	for c := range cols {
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		col, err := Concat(out.Field(c).Type, parts)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", out.Field(c).Name, err)
		}
		cols[c] = col
	}
	rec := array.NewRecord(out, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// Concat appends arrays of type t (dictionary strings count as strings).
func Concat(t arrow.DataType, parts []arrow.Array) (arrow.Array, error) {
	n := 0
	for _, p := range parts {
		if !SameType(p.DataType(), t) {
			return nil, fmt.Errorf("cannot append %s to %s", TypeName(p.DataType()), TypeName(t))
		}
		n += p.Len()
	}
	valid := concatValid(parts, n)
	switch {
	case t.ID() == arrow.INT64:
		out := make([]int64, 0, n)
		for _, p := range parts {
			out = append(out, p.(*array.Int64).Int64Values()...)
		}
		return NewInt64(out, valid), nil
	case t.ID() == arrow.FLOAT64:
		out := make([]float64, 0, n)
		for _, p := range parts {
			out = append(out, p.(*array.Float64).Float64Values()...)
		}
		return NewFloat64(out, valid), nil
	case t.ID() == arrow.BOOL:
		out := make([]uint8, 0, n)
		for _, p := range parts {
			b := p.(*array.Boolean)
			for i := 0; i < b.Len(); i++ {
				out = append(out, b2u(b.Value(i)))
			}
		}
		return NewBool(out, valid), nil
	case IsString(t):
		return concatStrings(parts, n, valid)
	case t.ID() == arrow.NULL:
		return array.NewNull(n), nil
	}
	if out, ok := concatFixed(t, parts, n, valid); ok {
		return out, nil
	}
	return nil, fmt.Errorf("cannot append columns of type %s", t)
}

// concatStrings appends string columns, plain or dictionary, as one plain
// column: its bytes sized once, a plain part's copied at once.
func concatStrings(parts []arrow.Array, n int, valid []byte) (arrow.Array, error) {
	strs := make([]Strings, len(parts))
	size := 0
	for i, p := range parts {
		if p.Len() == 0 { // its offsets may be empty
			continue
		}
		s := StringsOf(p)
		strs[i] = s
		if s.Indices == nil {
			size += int(s.Offsets[len(s.Offsets)-1] - s.Offsets[0])
			continue
		}
		offs, _, entries := dictParts(s)
		for _, j := range s.Indices {
			if uint(j) < entries { // a null row's index may be any
				size += int(offs[j+1] - offs[j])
			}
		}
	}
	if size > math.MaxInt32 {
		return nil, fmt.Errorf("cannot append strings of %d bytes in all: a string column holds at most 2 GiB", size)
	}
	offsets := make([]int32, 1, n+1)
	data := make([]byte, 0, size)
	for _, s := range strs {
		switch {
		case s.Indices != nil:
			offs, bytes, entries := dictParts(s)
			for _, j := range s.Indices {
				if uint(j) < entries {
					data = append(data, bytes[offs[j]:offs[j+1]]...)
				}
				offsets = append(offsets, int32(len(data)))
			}
		case s.Offsets != nil: // plain; an empty part has neither
			shift := int32(len(data)) - s.Offsets[0]
			data = append(data, s.Data[s.Offsets[0]:s.Offsets[len(s.Offsets)-1]]...)
			for _, o := range s.Offsets[1:] {
				offsets = append(offsets, o+shift)
			}
		}
	}
	return NewString(offsets, data, valid), nil
}

// dictParts returns a dictionary column's values as offsets and bytes, and
// how many there are (an empty dictionary may have no offsets at all).
func dictParts(s Strings) ([]int32, []byte, uint) {
	offs, data := stringParts(s.Dict)
	return offs, data, uint(max(len(offs)-1, 0))
}

func concatValid(parts []arrow.Array, n int) []byte {
	nulls := 0
	for _, p := range parts {
		nulls += p.NullN()
	}
	if nulls == 0 {
		return nil
	}
	out := make([]byte, (n+7)/8)
	row := 0
	for _, p := range parts {
		valid, off := Validity(p)
		for i := 0; i < p.Len(); i++ {
			if IsValid(valid, off, i) {
				out[row>>3] |= 1 << (row & 7)
			}
			row++
		}
	}
	return out
}

// ConcatRecordsDict is ConcatRecords, except that a string column whose
// parts are dictionary-encoded with one dictionary (the same array, or
// equal ones) stays encoded: appending the indices is far cheaper than
// copying the strings, and what follows groups and joins them faster.
func ConcatRecordsDict(schema *arrow.Schema, recs []arrow.Record) (arrow.Record, error) {
	if len(recs) == 0 {
		return ConcatRecords(schema, nil)
	}
	fields := make([]arrow.Field, schema.NumFields())
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(recs))
	n := 0
	for _, r := range recs {
		n += int(r.NumRows())
	}
	for c := range cols {
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		col, err := ConcatDict(parts)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", schema.Field(c).Name, err)
		}
		cols[c] = col
		fields[c] = arrow.Field{Name: schema.Field(c).Name, Type: col.DataType(), Nullable: true}
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n)), nil
}

// ConcatDict appends arrays of one kind (at least one) as Concat does,
// keeping dictionary strings encoded: where the parts share one dictionary,
// their indices are appended; where their dictionaries differ but are
// small beside the rows, they are merged into one. One part is returned
// as it is, retained, unless it is a dictionary column of another kind.
func ConcatDict(parts []arrow.Array) (arrow.Array, error) {
	d := sharedDict(parts)
	if len(parts) == 1 {
		if _, encoded := parts[0].(*array.Dictionary); !encoded || d != nil {
			parts[0].Retain()
			return parts[0], nil
		}
	}
	if d != nil {
		indices := make([]int32, 0, totalLen(parts))
		for _, p := range parts {
			indices = append(indices, p.(*array.Dictionary).Indices().(*array.Int32).Int32Values()...)
		}
		return NewDict(indices, d, concatValid(parts, len(indices))), nil
	}
	if merged := mergeDicts(parts); merged != nil {
		return merged, nil
	}
	return Concat(PlainType(parts[0].DataType()), parts)
}

// mergeDicts appends string dictionary columns encoded with different
// dictionaries, re-encoding them with the union of the dictionaries: each
// entry is looked up once, not each row, and what follows still groups and
// joins by index. It returns nil where unifyDicts declines.
func mergeDicts(parts []arrow.Array) arrow.Array {
	n := totalLen(parts)
	values, remap := unifyDicts(parts, n)
	if values == nil {
		return nil
	}
	defer values.Release()
	indices := make([]int32, 0, n)
	for k, p := range parts {
		valid, off := Validity(p)
		for i, j := range p.(*array.Dictionary).Indices().(*array.Int32).Int32Values() {
			if valid != nil && !IsValid(valid, off, i) {
				indices = append(indices, 0) // a null row's index is any
				continue
			}
			indices = append(indices, remap[k][j])
		}
	}
	return NewDict(indices, values, concatValid(parts, n))
}

// unifyDicts returns the union of the dictionaries of string dictionary
// columns, which the caller releases, and for each part the union's index
// of each of its entries. It returns nil where there are fewer than two
// parts, a part is not such a column, or the dictionaries hold more than a
// quarter as many entries as rows are to be encoded with the union: then
// merging costs more than copying the strings.
func unifyDicts(parts []arrow.Array, rows int) (*array.String, [][]int32) {
	if len(parts) < 2 {
		return nil, nil
	}
	entries := 0
	for _, p := range parts {
		d, ok := p.(*array.Dictionary)
		if !ok {
			return nil, nil
		}
		if _, ok := d.Indices().(*array.Int32); !ok || d.Data().Dictionary().DataType().ID() != arrow.STRING {
			return nil, nil
		}
		entries += DictValues(d).Len()
	}
	if 4*entries > rows {
		return nil, nil
	}
	ids := make(map[string]int32)
	offsets, data := []int32{0}, []byte(nil)
	remap := make([][]int32, len(parts))
	for k, p := range parts {
		values := DictValues(p.(*array.Dictionary))
		remap[k] = make([]int32, values.Len())
		for j := range values.Len() {
			b := dictBytes(values, j)
			id, ok := ids[string(b)]
			if !ok {
				id = int32(len(offsets) - 1)
				data = append(data, b...)
				offsets = append(offsets, int32(len(data)))
				ids[string(b)] = id
			}
			remap[k][j] = id
		}
	}
	return NewString(offsets, data, nil), remap
}

func totalLen(parts []arrow.Array) int {
	n := 0
	for _, p := range parts {
		n += p.Len()
	}
	return n
}

// sharedDict returns the dictionary all parts are encoded with, or nil.
func sharedDict(parts []arrow.Array) *array.String {
	var first *array.String
	for _, p := range parts {
		d, ok := p.(*array.Dictionary)
		if !ok {
			return nil
		}
		_, ok = d.Indices().(*array.Int32)
		if !ok || d.Data().Dictionary().DataType().ID() != arrow.STRING {
			return nil
		}
		values := DictValues(d)
		switch {
		case first == nil:
			first = values
		case sameDict(values, first):
		case values.Len() != first.Len() || !array.Equal(values, first):
			return nil
		}
	}
	return first
}
