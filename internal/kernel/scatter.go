package kernel

import (
	"encoding/binary"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/alloc"
)

// Scatter copies the rows of rec into n records, row i into record
// parts[i] (in [0, n)), each keeping the rows' order; a record no row goes
// to is nil. It reads each column once, in order, writing n streams:
// taking each record's rows apart would read every column n times over,
// a cache line for every row taken once n passes the values a line holds.
func Scatter(rec arrow.Record, parts []int32, n int) []arrow.Record {
	return ScatterPacking(rec, parts, n, nil)
}

// ScatterPacking is Scatter with the columns pack names (by index) that
// hold plain strings without nulls of at most maxPackedString bytes
// copied out as PackedStrings (the string keys of an aggregation's
// shuffle: see PackedStrings); the records' schema says which did.
func ScatterPacking(rec arrow.Record, parts []int32, n int, pack []int) []arrow.Record {
	counts := countParts(parts, n)
	cols := make([][]arrow.Array, rec.NumCols())
	fields := slices.Clone(rec.Schema().Fields())
	for c, col := range rec.Columns() {
		if slices.Contains(pack, c) && packable(col) {
			s := StringsOf(col)
			cols[c] = make([]arrow.Array, n)
			for j, v := range scatterPackedStrings(s.Offsets, s.Data, parts, counts) {
				cols[c][j] = NewFixed(PackedStrings, v, nil)
			}
			fields[c].Type = PackedStrings
			continue
		}
		cols[c] = scatterColumn(col, parts, counts)
	}
	schema := rec.Schema()
	if !slices.EqualFunc(fields, schema.Fields(), func(a, b arrow.Field) bool { return a.Type == b.Type }) {
		meta := schema.Metadata()
		schema = arrow.NewSchema(fields, &meta)
	}
	out := make([]arrow.Record, n)
	for j := range out {
		cs := make([]arrow.Array, len(cols))
		for c := range cols {
			cs[c] = cols[c][j]
		}
		if counts[j] > 0 {
			out[j] = array.NewRecord(schema, cs, int64(counts[j]))
		}
		for _, a := range cs {
			a.Release()
		}
	}
	return out
}

// ScatterColumns copies columns as Scatter copies a record's: out[j][c]
// holds column c's rows of output j (empty where none go there); the
// caller releases them.
func ScatterColumns(cols []arrow.Array, parts []int32, n int) [][]arrow.Array {
	counts := countParts(parts, n)
	out := make([][]arrow.Array, n)
	for j := range out {
		out[j] = make([]arrow.Array, len(cols))
	}
	for c, col := range cols {
		for j, a := range scatterColumn(col, parts, counts) {
			out[j][c] = a
		}
	}
	return out
}

// countParts counts the rows going to each of n outputs.
func countParts(parts []int32, n int) []int {
	counts := make([]int, n)
	for _, p := range parts {
		counts[p]++
	}
	return counts
}

// scatterColumn splits one column as Scatter does: an array per output,
// empty ones included.
func scatterColumn(a arrow.Array, parts []int32, counts []int) []arrow.Array {
	out := make([]arrow.Array, len(counts))
	if _, ok := a.(*array.Null); ok {
		// No buffer, every row null: only the lengths move (a count of
		// one a row, kernel.OneEach, had its validity scattered row by
		// row and dropped, 6% of q3 at 1e8 rows).
		for j, c := range counts {
			out[j] = array.NewNull(c)
		}
		return out
	}
	valid := scatterValid(a, parts, counts)
	switch a := a.(type) {
	case *array.Boolean:
		vals := make([]uint8, a.Len())
		for i := range vals {
			if a.Value(i) {
				vals[i] = 1
			}
		}
		for j, v := range scatterValues(vals, parts, counts) {
			out[j] = NewBool(v, valid[j])
		}
	case *array.String, *array.Dictionary:
		s := StringsOf(a)
		if s.Dict != nil {
			for j, v := range scatterValues(s.Indices, parts, counts) {
				out[j] = NewDict(v, s.Dict, valid[j])
			}
			break
		}
		offs, data := scatterStrings(s.Offsets, s.Data, parts, counts)
		for j := range out {
			out[j] = NewString(offs[j], data[j], valid[j])
		}
	default:
		t := a.DataType()
		switch ByteWidth(t) {
		case 1:
			fixedOut(out, t, scatterValues(FixedValues[uint8](a), parts, counts), valid)
		case 2:
			fixedOut(out, t, scatterValues(FixedValues[uint16](a), parts, counts), valid)
		case 4:
			fixedOut(out, t, scatterValues(FixedValues[uint32](a), parts, counts), valid)
		case 8:
			fixedOut(out, t, scatterValues(FixedValues[uint64](a), parts, counts), valid)
		case 16:
			fixedOut(out, t, scatterValues(FixedValues[[2]uint64](a), parts, counts), valid)
		default:
			// A type without a scatter of its own is taken apart.
			for j, rows := range SplitRows(parts, len(counts)) {
				out[j] = Take(a, rows)
			}
		}
	}
	return out
}

func fixedOut[T any](out []arrow.Array, t arrow.DataType, vals [][]T, valid [][]byte) {
	for j, v := range vals {
		out[j] = NewFixed(t, v, valid[j])
	}
}

// scatterValues splits vals by parts, each output holding counts[j].
func scatterValues[T alloc.Plain](vals []T, parts []int32, counts []int) [][]T {
	out := scatterOutputs[T](counts)
	scatterInto(vals, parts, out, make([]int, len(counts)))
	return out
}

// scatterOutputs makes the outputs of a scatter, each holding counts[j].
func scatterOutputs[T alloc.Plain](counts []int) [][]T {
	out := make([][]T, len(counts))
	for j, c := range counts {
		out[j] = alloc.NoZeroOf[T](c) // a scatter writes every value
	}
	return out
}

// scatterInto copies vals[i] to out[parts[i]] at next[parts[i]], moving
// next on: a scatter of a column in pieces carries next over.
func scatterInto[T any](vals []T, parts []int32, out [][]T, next []int) {
	for i, p := range parts {
		out[p][next[p]] = vals[i]
		next[p]++
	}
}

// scatterStrings splits plain strings by parts: sized in a first pass,
// copied in a second.
func scatterStrings(offs []int32, data []byte, parts []int32, counts []int) ([][]int32, [][]byte) {
	n := len(counts)
	size := make([]int, n)
	for i, p := range parts {
		size[p] += int(offs[i+1] - offs[i])
	}
	outOffs, outData := make([][]int32, n), make([][]byte, n)
	for j := range outOffs { // every offset and byte is written below
		outOffs[j] = alloc.NoZeroOf[int32](counts[j] + 1)
		outOffs[j][0] = 0
		// 16 bytes past the end, so that a string of at most 16 moves as
		// two words: a call to copy them costs more than the copy.
		outData[j] = alloc.NoZero(size[j] + 16)[:size[j]]
	}
	row, at := make([]int, n), make([]int32, n)
	for i, p := range parts {
		s, e := offs[i], offs[i+1]
		if e-s <= 16 && int(s)+16 <= len(data) {
			d := outData[p][at[p] : at[p]+16]
			binary.LittleEndian.PutUint64(d, binary.LittleEndian.Uint64(data[s:]))
			binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(data[s+8:]))
		} else {
			copy(outData[p][at[p]:], data[s:e])
		}
		at[p] += e - s
		row[p]++
		outOffs[p][row[p]] = at[p]
	}
	return outOffs, outData
}

// scatterValid splits a's validity by parts: nil bitmaps where a has no
// nulls.
func scatterValid(a arrow.Array, parts []int32, counts []int) [][]byte {
	out := make([][]byte, len(counts))
	if a.NullN() == 0 {
		return out
	}
	for j, c := range counts {
		out[j] = make([]byte, (c+7)/8)
	}
	bits, off := Validity(a)
	next := make([]int, len(counts))
	for i, p := range parts {
		if IsValid(bits, off, i) {
			k := next[p]
			out[p][k>>3] |= 1 << (k & 7)
		}
		next[p]++
	}
	return out
}
