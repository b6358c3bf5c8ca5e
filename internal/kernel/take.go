package kernel

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/alloc"
)

// Filter keeps the rows of rec where sel is 1 (each byte 0 or 1). Keeping every row returns
// rec itself, retained. A column of 4- or 8-byte values without nulls is
// compressed by the mask in one pass (compressBy); the others are taken
// by the kept rows' numbers, listed once for all of them. Where few are
// kept, every column is taken by the kept rows' numbers: a pass over all
// of a column's values then costs more than reaching the few (TPC-H q6
// keeps 2% of the lines).
func Filter(rec arrow.Record, sel []uint8) arrow.Record {
	n := CountSelected(sel)
	if n == len(sel) {
		rec.Retain()
		return rec
	}
	sparse := n < len(sel)/sparseKept
	var loc Rows
	located := false
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		if !sparse {
			if cols[i] = compressBy(c, sel, n); cols[i] != nil {
				continue
			}
		}
		if !located {
			idx := SelectedRows(sel, n)
			loc, located = LocateRows([]arrow.Array{c}, idx), true
		}
		cols[i] = TakeParts([]arrow.Array{c}, loc)
	}
	out := array.NewRecord(rec.Schema(), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return out
}

// compressBy is the n rows of a that sel keeps, for a column of 4- or
// 8-byte values without nulls (nil for any other): every value is
// written where the next kept one goes, and only a kept one moves it on,
// so no branch waits on the mask (half the cost of listing the rows and
// gathering them, 2.2 ns a value where half are kept).
func compressBy(a arrow.Array, sel []uint8, n int) arrow.Array {
	if a.NullN() > 0 || IsString(a.DataType()) || a.DataType().ID() == arrow.DICTIONARY {
		return nil
	}
	switch ByteWidth(a.DataType()) {
	case 8:
		return NewFixed(a.DataType(), compressValues(FixedValues[uint64](a), sel, n), nil)
	case 4:
		return NewFixed(a.DataType(), compressValues(FixedValues[uint32](a), sel, n), nil)
	}
	return nil
}

// compressValues is the n values of vals that sel keeps.
func compressValues[T uint32 | uint64](vals []T, sel []uint8, n int) []T {
	out := alloc.NoZeroOf[T](n + 1) // the last write may land one past
	sel = sel[:len(vals)]
	k := 0
	for i, v := range vals {
		out[k] = v
		k += int(sel[i] & 1)
	}
	return out[:n]
}

// CountSelected counts the rows sel keeps (each byte 0 or 1).
func CountSelected(sel []uint8) int {
	n := 0
	words := len(sel) &^ 7
	for i := 0; i < words; i += 8 {
		n += bits.OnesCount64(word(sel, i)) // a 0 or 1 a byte
	}
	for _, v := range sel[words:] {
		n += int(v)
	}
	return n
}

// sparseKept: a mask keeping fewer than one row in sparseKept is read a
// word of eight rows at a time, skipping the words that keep none.
const sparseKept = 16

// SelectedRows lists the n rows sel keeps (each byte 0 or 1), rising.
// Every row is written where the next kept one goes, and only a kept one
// moves it on: no branch to mispredict where about half are kept. Where
// few are kept, the words of eight rows that keep none are skipped.
func SelectedRows(sel []uint8, n int) []int32 {
	idx := make([]int32, n+1)
	if n < len(sel)/sparseKept {
		return sparseRows(sel, idx)
	}
	k := 0
	for i, v := range sel {
		idx[k] = int32(i)
		k += int(v & 1)
	}
	return idx[:n]
}

// sparseRows lists the rows sel keeps into idx, skipping words of eight
// rows that keep none (in a word of 0 or 1 bytes, row j's is bit 8j).
func sparseRows(sel []uint8, idx []int32) []int32 {
	k := 0
	words := len(sel) &^ 7
	for i := 0; i < words; i += 8 {
		for w := word(sel, i) & 0x0101010101010101; w != 0; w &= w - 1 {
			idx[k] = int32(i + bits.TrailingZeros64(w)>>3)
			k++
		}
	}
	for i := words; i < len(sel); i++ {
		idx[k] = int32(i)
		k += int(sel[i] & 1)
	}
	return idx[:k]
}

// TakeRecord returns the rows of rec at idx, in that order.
func TakeRecord(rec arrow.Record, idx []int32) arrow.Record {
	loc := LocateRows(rec.Columns()[:min(1, rec.NumCols())], idx)
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		cols[i] = TakeParts([]arrow.Array{c}, loc)
	}
	out := array.NewRecord(rec.Schema(), cols, int64(len(idx)))
	for _, c := range cols {
		c.Release()
	}
	return out
}

// Take returns the rows of a at idx, in that order; an index of -1 gives
// a null row. Dictionary columns keep their dictionary. Taking every row
// in order returns a itself, retained.
func Take(a arrow.Array, idx []int32) arrow.Array {
	parts := []arrow.Array{a}
	return TakeParts(parts, LocateRows(parts, idx))
}

// Rows locates rows of parts read as one array: taken row j is row row[j]
// of part part[j] (of part 0 where part is nil), and null where row[j] is
// negative. Locating rows once serves every column of a record, and of
// one split in pieces, as a join's sides are.
type Rows struct {
	part, row []int32
	missing   bool // some row is negative
	whole     bool // the rows are all of one part's, in order: nothing to copy
}

// LocateRows locates idx, rows of parts read as one array (-1: none), in
// parts, of which only the lengths count. Rows in order, or many in one
// part, are found without a search.
func LocateRows(parts []arrow.Array, idx []int32) Rows {
	if len(parts) <= 1 {
		// No branch a row: the least index (negative: a missing row) and,
		// where as many rows are taken as the part has, whether any index
		// is not its own position, in accumulators of their own so that
		// the work of one row need not wait on the last.
		if len(parts) == 0 || len(idx) != parts[0].Len() {
			return Rows{row: idx, missing: anyNegative(idx)}
		}
		var low0, low1, diff0, diff1 int32
		j := 0
		for ; j+2 <= len(idx); j += 2 {
			a, b := idx[j], idx[j+1]
			low0, low1 = min(low0, a), min(low1, b)
			diff0, diff1 = diff0|(a^int32(j)), diff1|(b^int32(j+1))
		}
		for ; j < len(idx); j++ {
			low0, diff0 = min(low0, idx[j]), diff0|(idx[j]^int32(j))
		}
		return Rows{row: idx, missing: min(low0, low1) < 0, whole: diff0|diff1 == 0}
	}
	starts := make([]int32, len(parts)+1)
	for k, p := range parts {
		starts[k+1] = starts[k] + int32(p.Len())
	}
	loc := Rows{part: make([]int32, len(idx)), row: make([]int32, len(idx))}
	c := 0
	for j, i := range idx {
		if i < 0 {
			loc.row[j], loc.missing = -1, true
			continue
		}
		if i < starts[c] || i >= starts[c+1] {
			// The first part that ends after i: it is not empty.
			lo, hi := 0, len(parts)-1
			for lo < hi {
				if m := (lo + hi) / 2; starts[m+1] > i {
					hi = m
				} else {
					lo = m + 1
				}
			}
			if i >= starts[lo+1] {
				panic(fmt.Sprintf("kernel: take row %d of %d", i, starts[len(parts)]))
			}
			c = lo
		}
		loc.part[j], loc.row[j] = int32(c), i-starts[c]
	}
	return loc
}

// RowsIn locates rows by their parts and their rows there, one of each
// per row (part nil: all in part 0); a negative row is a null.
func RowsIn(part, row []int32) Rows {
	if part != nil && len(part) != len(row) {
		panic(fmt.Sprintf("kernel: %d parts for %d rows", len(part), len(row)))
	}
	low := int32(0)
	for _, r := range row {
		low = min(low, r)
	}
	return Rows{part: part, row: row, missing: low < 0}
}

// Len returns the number of rows loc locates.
func (loc Rows) Len() int { return len(loc.row) }

// At locates the rows at idx of those loc locates, -1 giving a null.
func (loc Rows) At(idx []int32) Rows {
	out := Rows{row: make([]int32, len(idx))}
	if loc.part != nil {
		out.part = make([]int32, len(idx))
	}
	for j, i := range idx {
		if i < 0 || loc.row[i] < 0 {
			out.row[j], out.missing = -1, true
			continue
		}
		out.row[j] = loc.row[i]
		if loc.part != nil {
			out.part[j] = loc.part[i]
		}
	}
	return out
}

// TakeParts gathers the rows loc locates in parts, columns of one kind:
// all plain or dictionary strings alike. Where the parts are encoded with
// one dictionary, or with dictionaries small beside the rows taken, the
// result is encoded too; other strings come out plain. Taking every row
// of one part in order returns it, retained.
func TakeParts(parts []arrow.Array, loc Rows) arrow.Array {
	if loc.whole {
		parts[0].Retain()
		return parts[0]
	}
	valid := rowsValid(parts, loc)
	switch parts[0].(type) {
	case *array.Int64:
		return NewInt64(gatherRows(partValues(parts, (*array.Int64).Int64Values), loc), valid)
	case *array.Float64:
		return NewFloat64(gatherRows(partValues(parts, (*array.Float64).Float64Values), loc), valid)
	case *array.Boolean:
		bits, offs := make([][]byte, len(parts)), make([]int, len(parts))
		for k, p := range parts {
			if b := p.Data().Buffers()[1]; b != nil { // nil in an empty array
				bits[k], offs[k] = b.Bytes(), p.Data().Offset()
			}
		}
		out := make([]uint8, len(loc.row))
		if loc.part == nil {
			bits, off := bits[0], offs[0]
			for j, r := range loc.row {
				if k := off + int(r); r >= 0 {
					out[j] = bits[k>>3] >> (k & 7) & 1
				}
			}
		} else {
			for j, r := range loc.row {
				if c := loc.part[j]; r >= 0 {
					k := offs[c] + int(r)
					out[j] = bits[c][k>>3] >> (k & 7) & 1
				}
			}
		}
		return NewBool(out, valid)
	case *array.String, *array.Dictionary:
		if d := sharedDict(parts); d != nil {
			return NewDict(gatherRows(partValues(parts, dictIndices), loc), d, valid)
		}
		if values, remap := unifyDicts(parts, len(loc.row)); values != nil {
			defer values.Release()
			return NewDict(gatherRemapped(partValues(parts, dictIndices), remap, loc), values, valid)
		}
		offs, data := takeStrings(stringPartsOf(parts), loc)
		return NewString(offs, data, valid)
	case *array.Null:
		return array.NewNull(len(loc.row))
	}
	return takeFixed(parts, loc, valid)
}

func partOf(loc Rows, j int) int {
	if loc.part == nil {
		return 0
	}
	return int(loc.part[j])
}

// partValues returns each part's values.
func partValues[A arrow.Array, T any](parts []arrow.Array, values func(A) []T) [][]T {
	out := make([][]T, len(parts))
	for k, p := range parts {
		out[k] = values(p.(A))
	}
	return out
}

// dictIndices returns a string dictionary column's indices.
func dictIndices(d *array.Dictionary) []int32 { return d.Indices().(*array.Int32).Int32Values() }

// gather returns vals at idx, which holds no -1.
func gather[T alloc.Plain](vals []T, idx []int32) []T { return gatherRows([][]T{vals}, Rows{row: idx}) }

// gatherRows gathers the values loc locates, zero for a null row.
func gatherRows[T alloc.Plain](vals [][]T, loc Rows) []T {
	out := alloc.NoZeroOf[T](len(loc.row)) // every row is written below
	switch {
	case loc.part == nil && !loc.missing:
		v := vals[0]
		for j, r := range loc.row {
			out[j] = v[r]
		}
	case loc.part == nil:
		v := vals[0]
		for j, r := range loc.row {
			if r >= 0 {
				out[j] = v[r]
			} else {
				out[j] = *new(T)
			}
		}
	default:
		for j, r := range loc.row {
			if r >= 0 {
				out[j] = vals[loc.part[j]][r]
			} else {
				out[j] = *new(T)
			}
		}
	}
	return out
}

// gatherRemapped gathers the dictionary indices loc locates, each mapped
// by its part's remap into a union of the dictionaries. A null row may
// hold any index: one outside its dictionary is taken as 0.
func gatherRemapped(ids [][]int32, remap [][]int32, loc Rows) []int32 {
	out := make([]int32, len(loc.row))
	for j, r := range loc.row {
		if r >= 0 {
			c := partOf(loc, j)
			if k := ids[c][r]; uint(k) < uint(len(remap[c])) {
				out[j] = remap[c][k]
			}
		}
	}
	return out
}

// rowsValid is the validity of the rows loc locates in parts; nil when
// none is null.
func rowsValid(parts []arrow.Array, loc Rows) []byte {
	bits, offs := make([][]byte, len(parts)), make([]int, len(parts))
	nulls := loc.missing
	for k, p := range parts {
		bits[k], offs[k] = Validity(p)
		nulls = nulls || bits[k] != nil
	}
	if !nulls {
		return nil
	}
	out := make([]byte, (len(loc.row)+7)/8)
	nulls = false
	if loc.part == nil && !loc.missing {
		valid, off := bits[0], offs[0]
		for j, r := range loc.row {
			if k := off + int(r); valid[k>>3]&(1<<(k&7)) != 0 {
				out[j>>3] |= 1 << (j & 7)
			} else {
				nulls = true
			}
		}
	} else {
		for j, r := range loc.row {
			if c := partOf(loc, j); r >= 0 && IsValid(bits[c], offs[c], int(r)) {
				out[j>>3] |= 1 << (j & 7)
			} else {
				nulls = true
			}
		}
	}
	if !nulls {
		return nil
	}
	return out
}

// stringPart is a string column as offsets into data, indexed by row or,
// for a dictionary column, by the row's entry in ids.
type stringPart struct {
	offs []int32
	data []byte
	ids  []int32
}

func stringPartsOf(parts []arrow.Array) []stringPart {
	out := make([]stringPart, len(parts))
	for k, p := range parts {
		s := StringsOf(p)
		if s.Dict != nil {
			out[k].offs, out[k].data = stringParts(s.Dict)
			out[k].ids = s.Indices
		} else {
			out[k].offs, out[k].data = s.Offsets, s.Data
		}
	}
	return out
}

// span returns where row r's string lies in p.data; an empty span for
// a null row (r < 0) or a dictionary index outside the dictionary (a null
// row may hold any).
func (p *stringPart) span(r int32) (start, end int) {
	i := int(r)
	if p.ids != nil && r >= 0 {
		i = int(p.ids[r])
	}
	if uint(i) >= uint(len(p.offs)-1) {
		return 0, 0
	}
	return int(p.offs[i]), int(p.offs[i+1])
}

// takeStrings gathers the strings loc locates in parts (null: empty) into
// new offsets and bytes, in one pass: rows are often in random order (a
// join's build side), where every pass costs cache misses, so the bytes
// are sized from the average length and grown if need be rather than
// measured first. Strings of up to 16 bytes are copied as one 16-byte
// word where both sides have room, without a call to memmove: most keys
// and labels are that short.
func takeStrings(parts []stringPart, loc Rows) ([]int32, []byte) {
	strs, size := 0, 0
	for _, p := range parts {
		if n := len(p.offs) - 1; n > 0 {
			strs, size = strs+n, size+int(p.offs[n]-p.offs[0])
		}
	}
	est := 16
	if strs > 0 {
		est += size / strs * len(loc.row) * 9 / 8
	}
	outOffs := make([]int32, len(loc.row)+1)
	data := make([]byte, est)
	pos := 0
	p := &parts[0]
	for j, r := range loc.row {
		if loc.part != nil {
			p = &parts[loc.part[j]]
		}
		start, end := p.span(r)
		if pos+16+end-start > len(data) {
			data = grow(data, pos, end-start)
		}
		if end-start <= 16 && start+16 <= len(p.data) {
			*(*[16]byte)(data[pos : pos+16]) = *(*[16]byte)(p.data[start : start+16])
		} else {
			copy(data[pos:], p.data[start:end])
		}
		pos += end - start
		outOffs[j+1] = int32(pos)
	}
	return outOffs, data[:pos:pos]
}

// grow returns data, of which pos bytes are used, with room for n more
// and a 16-byte word beyond them.
func grow(data []byte, pos, n int) []byte {
	data = append(data[:pos], make([]byte, len(data)/2+16+n)...)
	return data[:cap(data)]
}
