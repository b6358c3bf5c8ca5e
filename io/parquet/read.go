package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/duskdata/dusk/internal/alloc"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/procmem"
	"github.com/duskdata/dusk/io/files"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// Read decodes the given row groups of a file (nil: all of them, else in the
// order given) into one record, with only the named columns (nil: all), in
// the file's column order. The caller owns the record and releases it.
func Read(r io.ReaderAt, size int64, path string, groups []int, cols []string) (arrow.Record, error) {
	return ReadWhere(r, size, path, groups, cols, nil)
}

// ReadWhere reads as Read does, but only the rows that every filter
// passes. A filter's column is tested as it is decoded, page by page, and
// is not built unless cols names it: where its pages are
// dictionary-encoded, each dictionary value is tested once and each row
// looks its index's outcome up (a date, a discount, a flag: thousands of
// values or fewer for a million rows), and a plain page is tested as an
// array of its own, in the cache; a column cols names that has plain
// pages is built whole once and tested whole. The columns read are built
// with the passing rows only (see keeper).
func ReadWhere(r io.ReaderAt, size int64, path string, groups []int, cols []string, filters []files.Filter) (arrow.Record, error) {
	f, err := open(r, size, path)
	if err != nil {
		return nil, err
	}
	sel, err := f.selectColumns(cols)
	if err != nil {
		return nil, err
	}
	rowGroups := f.file.RowGroups()
	if groups == nil {
		groups = make([]int, len(rowGroups))
		for g := range groups {
			groups[g] = g
		}
	}
	rows := int64(0)
	for _, g := range groups {
		if g < 0 || g >= len(rowGroups) {
			return nil, fmt.Errorf("read %s: no row group %d (the file has %d)", path, g, len(rowGroups))
		}
		rows += rowGroups[g].NumRows()
	}
	if rows > math.MaxInt32 {
		return nil, fmt.Errorf("read %s: %d rows are too many for one record; read fewer row groups", path, rows)
	}

	rd := &reading{file: f, r: r, size: size, groups: groups, rows: int(rows), pages: map[[2]int][]pageAt{}}
	if err := rd.checkClaims(sel, filters); err != nil {
		return nil, err
	}
	rd.narrow(filters)
	rows = int64(rd.rows)
	var keep []uint8                  // the rows the filters pass; nil: no filter
	built := map[string]arrow.Array{} // columns read whole to be tested
	defer func() {
		for _, a := range built {
			a.Release()
		}
	}()
	for _, flt := range filters {
		tested, err := f.selectColumns([]string{flt.Column})
		if err != nil {
			return nil, err
		}
		c := tested[0]
		if !slices.Contains(sel, c) || rd.dictionaryEncoded(c) {
			// Tested as decoded; a column also read is decoded again
			// below, its kept rows only, its pages cheap to read twice.
			// The first filter's rows grow as its pages give them.
			fb := &filterBuilder{col: c, pass: flt.Pass, sift: flt.Sift, keep: keep, rows: int(rows), first: keep == nil}
			if err := rd.column(c, fb); err != nil {
				return nil, err
			}
			keep = fb.keep
			continue
		}
		// A column also read, of plain pages: read whole once, tested
		// whole, its kept rows taken below.
		a, ok := built[c.name]
		if !ok {
			if a, err = rd.build(c, nil, int(rows)); err != nil {
				return nil, err
			}
			built[c.name] = a
		}
		if keep == nil { // the rows, counted by reading a
			keep = keepRows(nil, int(rows), int(rows))
		}
		a.Retain() // for test to release
		if err := (&filterBuilder{col: c, pass: flt.Pass, sift: flt.Sift}).test(a, keep); err != nil {
			return nil, fmt.Errorf("read %s: column %s: %w", path, c.name, err)
		}
	}
	kept := int(rows)
	if keep != nil {
		kept = kernel.CountSelected(keep)
	}

	fields := make([]arrow.Field, len(sel))
	arrays := make([]arrow.Array, 0, len(sel))
	defer func() {
		for _, a := range arrays {
			a.Release()
		}
	}()
	var picked []int32 // the kept rows, to take from a column built whole
	for i, c := range sel {
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: true}
		a, ok := built[c.name]
		if ok {
			delete(built, c.name)
		} else if a, err = rd.build(c, keep, kept); err != nil {
			return nil, err
		}
		if a.Len() != kept {
			if picked == nil {
				picked = kernel.SelectedRows(keep, kept)
			}
			whole := a
			a = kernel.Take(whole, picked)
			whole.Release()
		}
		arrays = append(arrays, a)
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), arrays, int64(kept)), nil
}

// reading is a read of some row groups of a file, rows in all.
type reading struct {
	*file
	r      io.ReaderAt
	size   int64
	groups []int
	rows   int
	// windows are the rows of each of groups read; nil: all of them.
	windows []window
	// pages are each chunk's data pages, by row group and leaf, as
	// checkChunk found them.
	pages map[[2]int][]pageAt
}

// dictionaryEncoded reports whether every chunk of c read is
// dictionary-encoded, as far as the metadata says.
func (rd *reading) dictionaryEncoded(c *column) bool {
	meta := rd.file.file.Metadata()
	for _, g := range rd.groups {
		if !dictionaryEncoded(&meta.RowGroups[g].Columns[c.leaf].MetaData) {
			return false
		}
	}
	return true
}

// checkClaims checks, before anything is allocated for them, what the
// chunks to read claim: their pages' headers against the chunks' bytes
// and the row groups' rows (checkChunk), and the memory the columns'
// rows need against what this process may use (a row group claiming
// 2^31-1 rows of decimals had 32 GiB allocated, and the process died).
func (rd *reading) checkClaims(sel []*column, filters []files.Filter) error {
	cols := slices.Clone(sel)
	for _, flt := range filters {
		if c, err := rd.selectColumns([]string{flt.Column}); err == nil && !slices.Contains(cols, c[0]) {
			cols = append(cols, c[0])
		}
	}
	for _, c := range cols {
		for _, g := range rd.groups {
			pages, err := rd.checkChunk(rd.r, rd.size, g, c)
			if err != nil {
				return &ChunkError{Path: rd.path, RowGroup: g, Column: c.name, Err: err}
			}
			rd.pages[[2]int{g, c.leaf}] = pages
		}
	}
	var need int64
	for _, c := range cols {
		need += int64(rd.rows) * bytesPerRow(c)
	}
	if most := procmem.ReadCeiling(); need > most {
		return fmt.Errorf("read %s: %d rows of %d columns need %d MiB, more than this process may use (%d MiB): read fewer row groups at once, or give it more memory",
			rd.path, rd.rows, len(cols), need>>20, most>>20)
	}
	return nil
}

// bytesPerRow is what a row of c takes once read, its strings' bytes
// aside (those are bounded by the file's size).
func bytesPerRow(c *column) int64 {
	switch c.kind {
	case parquet.Boolean:
		return 1
	case parquet.Float:
		return 4
	case parquet.FixedLenByteArray:
		return 16
	case parquet.Int32:
		return 12 // and a widened copy, for the types an int32 does not hold
	case parquet.ByteArray:
		return 4 // an offset, or a dictionary index
	}
	return 8
}

// column decodes c's chunks of the row groups into b.
func (rd *reading) column(c *column, b pager) error {
	rowGroups := rd.file.file.RowGroups()
	row := 0
	for i, g := range rd.groups {
		w := window{0, int(rowGroups[g].NumRows())}
		if rd.windows != nil {
			w = rd.windows[i]
		}
		if w.to == w.from {
			continue
		}
		chunk := rowGroups[g].ColumnChunks()[c.leaf]
		if w.from > 0 {
			rd.seekable(g, c, chunk)
		}
		if err := readChunk(b, chunk, row, w.from, w.to-w.from); err != nil {
			return &ChunkError{Path: rd.path, RowGroup: g, Column: c.name, Err: err}
		}
		row += w.to - w.from
	}
	return nil
}

// build reads column c, of which keep keeps kept rows (nil: all): not at
// all where none is kept, only the kept rows where its builder can
// (keeper), else whole.
func (rd *reading) build(c *column, keep []uint8, kept int) (arrow.Array, error) {
	if kept == 0 {
		return newBuilder(c, 0, 0).finish(), nil
	}
	var b builder
	if kept < rd.rows && (c.kind != parquet.ByteArray || c.typ == kernel.Dict) {
		k := newBuilder(c, kept+1, 0).(keeper) // numbers and dictionary strings
		k.keepOnly(keep)
		b = k
	} else {
		b = newBuilder(c, rd.rows, rd.bytesHint(c, rd.groups, rd.size))
	}
	if err := rd.column(c, b); err != nil {
		return nil, err
	}
	return b.finish(), nil
}

// selectColumns returns the named columns in file order (nil: all of them).
func (f *file) selectColumns(names []string) ([]*column, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var sel []*column
	for i := range f.cols {
		c := &f.cols[i]
		if names != nil && !want[c.name] {
			continue
		}
		if c.err != nil {
			return nil, fmt.Errorf("read %s: %w", f.path, c.err)
		}
		delete(want, c.name)
		sel = append(sel, c)
	}
	for _, n := range names {
		if want[n] {
			return nil, fmt.Errorf("read %s: no column %q", f.path, n)
		}
	}
	return sel, nil
}

// bytesHint guesses the string bytes of a column in the given groups, to
// size its buffer: the chunks' uncompressed size, within reason.
func (f *file) bytesHint(c *column, groups []int, size int64) int {
	if c.kind != parquet.ByteArray {
		return 0
	}
	meta := f.file.Metadata()
	n := int64(0)
	for _, g := range groups {
		n += meta.RowGroups[g].Columns[c.leaf].MetaData.TotalUncompressedSize
	}
	return int(max(0, min(n, 16*size, 1<<30)))
}

// readChunk decodes n rows of a column chunk, from its row from on, into
// rows [row, row+n) of b. parquet-go can panic on a corrupt file: a panic
// becomes the error.
func readChunk(b pager, chunk parquet.ColumnChunk, row, from, n int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("decode: parquet-go panicked: %v", p)
		}
	}()
	pages := chunk.Pages()
	defer pages.Close()
	if from > 0 {
		if err := pages.SeekToRow(int64(from)); err != nil {
			return fmt.Errorf("seek to row %d: %w", from, err)
		}
	}
	end := row + n
	for i := 0; row < end; i++ {
		p, err := pages.ReadPage()
		if err == io.EOF {
			break
		}
		if err != nil {
			return &PageError{Page: i, Offset: -1, Err: err}
		}
		if len(p.RepetitionLevels()) > 0 {
			parquet.Release(p)
			return &PageError{Page: i, Offset: -1, Err: errors.New("repetition levels in a column that is not repeated")}
		}
		page := p
		if left := int64(end - row); p.NumRows() > left {
			page = p.Slice(0, left) // the window ends in this page
		}
		rows, err := b.page(page, row, end)
		parquet.Release(p)
		if err != nil {
			return &PageError{Page: i, Offset: -1, Err: err}
		}
		row += rows
	}
	if row != end {
		return fmt.Errorf("the chunk holds %d rows, its row group %d", n-(end-row), n)
	}
	return nil
}

// errCorrupt says a page's parts disagree.
var errCorrupt = errors.New("corrupt page")

// pager takes a column's pages in turn.
type pager interface {
	// page decodes p into the rows from row on, short of end, and returns
	// how many rows it held.
	page(p parquet.Page, row, end int) (int, error)
}

// nullBuilder is a builder of a column of Arrow's null type: its pages
// decoded as any column's, then only their count kept.
type nullBuilder struct{ builder }

func (b nullBuilder) finish() arrow.Array {
	a := b.builder.finish()
	defer a.Release()
	return array.NewNull(a.Len())
}

// builder decodes a column's pages into Go slices that become its array.
type builder interface {
	pager
	// finish returns the column, which the caller owns.
	finish() arrow.Array
}

func newBuilder(c *column, rows, bytesHint int) builder {
	if c.typ.ID() == arrow.NULL { // decoded as the int64 nulls it holds, given as Arrow's null type
		raw := *c
		raw.typ = kernel.Int64
		return nullBuilder{newBuilder(&raw, rows, bytesHint)}
	}
	v := validity{optional: c.optional, rows: rows}
	typ := c.typ
	switch c.kind {
	case parquet.Boolean:
		return &numBuilder[uint8]{validity: v, vals: make([]uint8, 0, firstRows[uint8](rows)), plain: unpackBools,
			array: func(vals []uint8, valid []byte) arrow.Array { return kernel.NewBool(vals, valid) }}
	case parquet.Float:
		return numbers(v, rows, parquet.Float, (*encoding.Values).Float, typ)
	case parquet.Double:
		return numbers(v, rows, parquet.Double, (*encoding.Values).Double, typ)
	case parquet.Int32:
		b := numbers(v, rows, parquet.Int32, (*encoding.Values).Int32, typ)
		b.array = func(vals []int32, valid []byte) arrow.Array { return fromInt32(typ, vals, valid) }
		return b
	case parquet.Int64:
		b := numbers(v, rows, parquet.Int64, (*encoding.Values).Int64, typ)
		if typ.ID() == arrow.DECIMAL128 {
			b.array = func(vals []int64, valid []byte) arrow.Array { return intsAs(typ, vals, valid) }
		}
		return b
	case parquet.Int96:
		return &numBuilder[int64]{validity: v, vals: make([]int64, 0, firstRows[int64](rows)), plain: int96Nanos,
			array: func(vals []int64, valid []byte) arrow.Array { return kernel.NewFixed(typ, vals, valid) }}
	case parquet.FixedLenByteArray:
		return &numBuilder[decimal128.Num]{validity: v, vals: make([]decimal128.Num, 0, firstRows[decimal128.Num](rows)), plain: fixedDecimals,
			array: func(vals []decimal128.Num, valid []byte) arrow.Array { return kernel.NewFixed(typ, vals, valid) }}
	}
	if c.typ == kernel.Dict {
		return &dictBuilder{validity: v, indices: make([]int32, 0, firstRows[int32](rows)), offsets: []int32{0}}
	}
	offsets := make([]int32, 1, firstRows[int32](rows+1))
	return &stringBuilder{validity: v, offsets: offsets, data: make([]byte, 0, bytesHint)}
}

// keepRows is keep lengthened to n rows (extend), the new ones kept.
func keepRows(keep []uint8, n, most int) []uint8 {
	old := len(keep)
	keep = extend(keep, n, most)
	fillOnes(keep[old:n])
	return keep
}

// fillOnes sets every byte of b to 1 by doubling copies, at memmove's
// speed, where a loop stores a byte at a time.
func fillOnes(b []byte) {
	if len(b) == 0 {
		return
	}
	b[0] = 1
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// trustedBytes is how much a builder allocates on the strength of the rows
// a row group claims; past it, a column's slices grow with the rows its
// pages have given (extend), so that a damaged count costs no memory.
const trustedBytes = 16 << 20

// firstRows is how many of rows a builder of Ts makes room for at once.
func firstRows[T any](rows int) int {
	return min(rows, trustedBytes/int(max(1, unsafe.Sizeof(*new(T)))))
}

// extend returns s lengthened to n, growing its memory by doubling up to
// most (a column's claimed rows, which n does not pass: the pages' rows
// are checked against it). New elements are zero where s's spare capacity
// was made zero (by make, not alloc.NoZeroOf).
func extend[T any](s []T, n, most int) []T {
	if n <= cap(s) {
		return s[:max(n, len(s))]
	}
	grown := make([]T, n, min(max(n, 2*cap(s)), max(n, most)))
	copy(grown, s)
	return grown
}

// numbers builds a column of a page kind whose values Arrow stores as they
// are (T), as typ.
func numbers[T alloc.Plain](v validity, rows int, kind parquet.Kind, values func(*encoding.Values) []T, typ arrow.DataType) *numBuilder[T] {
	// Uncleared: every row is written (a null one as zero), or the chunk
	// is an error (readChunk checks that its pages held every row).
	return &numBuilder[T]{validity: v, vals: alloc.NoZeroOf[T](firstRows[T](rows))[:0],
		plain: func(p parquet.Page, _ int, _ *[]T) ([]T, error) {
			if p.Type().Kind() != kind {
				return nil, fmt.Errorf("%w: a %s page in a %s column", errCorrupt, p.Type().Kind(), kind)
			}
			return values(dataOf(p)), nil
		},
		array: func(vals []T, valid []byte) arrow.Array { return kernel.NewFixed(typ, vals, valid) }}
}

// fromInt32 makes the column of an INT32 column's values: as they are for
// int32, uint32 and date32, narrowed or widened for the other types.
func fromInt32(typ arrow.DataType, vals []int32, valid []byte) arrow.Array {
	switch typ.ID() {
	case arrow.INT32, arrow.UINT32, arrow.DATE32:
		return kernel.NewFixed(typ, vals, valid)
	}
	wide := make([]int64, len(vals))
	for i, v := range vals {
		wide[i] = int64(v)
	}
	return intsAs(typ, wide, valid)
}

// intsAs makes a column of type typ (a narrower or wider int, or a
// decimal's unscaled values) from int64s.
func intsAs(typ arrow.DataType, vals []int64, valid []byte) arrow.Array {
	out, _ := kernel.FromInt64(typ, vals, valid)
	return out
}

// julianEpoch is the Julian day number of 1970-01-01.
const julianEpoch = 2440588

// int96Nanos reads an INT96 page as nanoseconds since the epoch: each value
// is the nanoseconds of its day (8 bytes) and the day's Julian number (4).
func int96Nanos(p parquet.Page, _ int, buf *[]int64) ([]int64, error) {
	if p.Type().Kind() != parquet.Int96 {
		return nil, fmt.Errorf("%w: a %s page in an INT96 column", errCorrupt, p.Type().Kind())
	}
	v := dataOf(p).Int96()
	out := grow(*buf, len(v))
	*buf = out
	for i, x := range v {
		nanos := int64(x[0]) | int64(x[1])<<32
		out[i] = (int64(x[2])-julianEpoch)*86400e9 + nanos
	}
	return out, nil
}

// fixedDecimals reads a FIXED_LEN_BYTE_ARRAY page of big-endian two's
// complement unscaled decimals.
func fixedDecimals(p parquet.Page, _ int, buf *[]decimal128.Num) ([]decimal128.Num, error) {
	if p.Type().Kind() != parquet.FixedLenByteArray {
		return nil, fmt.Errorf("%w: a %s page in a decimal column", errCorrupt, p.Type().Kind())
	}
	data, size := dataOf(p).FixedLenByteArray()
	if size < 1 || size > 16 {
		return nil, fmt.Errorf("%w: decimals of %d bytes", errCorrupt, size)
	}
	n := len(data) / size
	out := grow(*buf, n)
	*buf = out
	for i := range out {
		out[i] = kernel.DecimalFromBigEndian(data[i*size : (i+1)*size])
	}
	return out, nil
}

// validity is a column's validity bitmap, made at its first null: a
// column with none (most optional columns written by most writers) costs
// a check of each page's definition levels, not a bit a row.
type validity struct {
	optional bool
	rows     int    // the column's rows, for the bitmap
	bits     []byte // nil while no row so far is null
	nulls    int
}

// levels reads a page's shape: its rows, from its definition levels for an
// optional column, and how many of them are not null. It sets their bits.
// Pages are read in row order.
func (v *validity) levels(p parquet.Page, row, end int) (n, k int, levels []byte, err error) {
	if !v.optional {
		n = int(p.NumValues())
		k = n
	} else {
		levels = p.DefinitionLevels()
		n = len(levels)
	}
	if n > end-row {
		return 0, 0, nil, fmt.Errorf("%w: %d rows, past the row group's end", errCorrupt, n)
	}
	if !v.optional || v.bits == nil && p.NumNulls() == 0 {
		return n, n, levels, nil
	}
	first := v.bits == nil
	v.bits = extend(v.bits, (row+n+7)/8, (v.rows+7)/8)
	if first { // the first null: every row before it is valid
		setOnes(v.bits, row)
	}
	k = setBits(v.bits, row, levels)
	v.nulls += n - k
	return n, k, levels, nil
}

// setOnes sets the first n bits of bm.
func setOnes(bm []byte, n int) {
	full := n >> 3
	for i := range bm[:full] {
		bm[i] = 0xff
	}
	if r := n & 7; r != 0 {
		bm[full] |= 1<<r - 1
	}
}

// keptValid returns the bitmap of the rows keep keeps, kept of them: nil
// when none is null.
func (v *validity) keptValid(keep []uint8, kept int) []byte {
	if v.nulls == 0 {
		return nil
	}
	out := make([]byte, (kept+7)/8)
	k := 0
	for i, x := range keep {
		if x != 0 {
			out[k>>3] |= v.bits[i>>3] >> (i & 7) & 1 << (k & 7)
			k++
		}
	}
	return out
}

// valid returns the bitmap for the array: nil when nothing is null.
func (v *validity) valid() []byte {
	if v.nulls == 0 {
		return nil
	}
	return v.bits
}

// setBits sets bit pos+i of bm for each level that is not zero (not null,
// in a column whose maximum definition level is 1) and counts them.
func setBits(bm []byte, pos int, levels []byte) int {
	ones, i := 0, 0
	for ; i < len(levels) && (pos+i)&7 != 0; i++ {
		if levels[i] != 0 {
			bm[(pos+i)>>3] |= 1 << ((pos + i) & 7)
			ones++
		}
	}
	out := bm[(pos+i)>>3:]
	for ; i+8 <= len(levels); i += 8 {
		// Fold each of 8 level bytes into its low bit (set if the byte is
		// not zero), then gather the 8 low bits into one byte.
		x := binary.LittleEndian.Uint64(levels[i:])
		x |= x >> 4
		x |= x >> 2
		x |= x >> 1
		b := byte(((x & 0x0101010101010101) * 0x0102040810204080) >> 56)
		out[0] = b
		out = out[1:]
		ones += bits.OnesCount8(b)
	}
	for ; i < len(levels); i++ {
		if levels[i] != 0 {
			bm[(pos+i)>>3] |= 1 << ((pos + i) & 7)
			ones++
		}
	}
	return ones
}

// place writes a page's k non-null values src into dst, one per row, at
// the rows whose level is not zero; with no nulls it is a copy.
func place[T any](dst, src []T, levels []byte, k int) error {
	if len(src) < k {
		return fmt.Errorf("%w: %d values for %d non-null rows", errCorrupt, len(src), k)
	}
	if k == len(dst) {
		copy(dst, src[:k])
		return nil
	}
	src = src[:k]
	j := 0
	for i, l := range levels {
		if l != 0 {
			dst[i] = src[j]
			j++
		} else {
			dst[i] = *new(T)
		}
	}
	return nil
}

// gather looks up indices in dict, into out (len(idx) values).
func gather[T any](out, dict []T, idx []int32) error {
	out = out[:len(idx)]
	for i, j := range idx {
		if uint32(j) >= uint32(len(dict)) {
			return fmt.Errorf("%w: dictionary index %d out of %d values", errCorrupt, j, len(dict))
		}
		out[i] = dict[j]
	}
	return nil
}

// grow returns s with length n, reusing its memory.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// dictCache holds a dictionary's values converted to a column's type; a
// column chunk has one dictionary, shared by its pages.
type dictCache[T any] struct {
	dict parquet.Dictionary
	vals []T
}

func (d *dictCache[T]) get(dict parquet.Dictionary, convert func(parquet.Page) ([]T, error)) ([]T, error) {
	if dict != d.dict {
		vals, err := convert(dict.Page())
		if err != nil {
			return nil, fmt.Errorf("dictionary: %w", err)
		}
		d.dict, d.vals = dict, vals
	}
	return d.vals, nil
}

// indices returns the first k dictionary indices of a dictionary-encoded
// page.
func indices(p parquet.Page, k int) ([]int32, error) {
	idx := dataOf(p).Int32()
	if len(idx) < k {
		return nil, fmt.Errorf("%w: %d values for %d non-null rows", errCorrupt, len(idx), k)
	}
	return idx[:k], nil
}

// indexed decodes a dictionary-encoded page of k non-null values into dst
// (a row each) through the dictionary's values.
func indexed[T any](p parquet.Page, dict, dst []T, levels []byte, k int, scratch *[]T) error {
	idx, err := indices(p, k)
	if err != nil {
		return err
	}
	if k == len(dst) {
		return gather(dst, dict, idx)
	}
	*scratch = grow(*scratch, k)
	if err := gather(*scratch, dict, idx); err != nil {
		return err
	}
	return place(dst, *scratch, levels, k)
}

// keptRows is the state of a builder that writes only the rows keep
// keeps (keeper): the next one goes to at. Each row is written where the
// next kept one goes and only a kept one moves at on, without a branch:
// the column has room for one row past the kept ones.
type keptRows struct {
	keep []uint8
	at   int
}

// keeper is a builder that can write only the rows keep keeps, where a
// filter keeps some: the column is not built whole to be taken apart
// after. Made for one row more than are kept, it is told which with
// keepOnly.
type keeper interface {
	builder
	keepOnly(keep []uint8)
}

// keepPlain writes into out from at the kept rows of a page: src holds
// the values of its rows whose level is not zero (of every row, where
// levels is nil), a null row is a zero. It returns the next at.
func keepPlain[T any](out []T, at int, keep, levels []byte, src []T) int {
	if levels == nil || len(src) == len(keep) {
		keep = keep[:len(src)]
		for i, v := range src {
			out[at] = v
			at += int(keep[i])
		}
		return at
	}
	j := 0
	for i, l := range levels {
		var v T
		if l != 0 {
			v = src[j]
			j++
		}
		out[at] = v
		at += int(keep[i])
	}
	return at
}

// keepIndexed is keepPlain for a dictionary-encoded page: idx holds the
// dictionary indices of its rows that are not null.
func keepIndexed[T any](out []T, at int, keep, levels []byte, dict []T, idx []int32) (int, error) {
	if levels == nil || len(idx) == len(keep) {
		keep = keep[:len(idx)]
		for i, x := range idx {
			if uint32(x) >= uint32(len(dict)) {
				return at, fmt.Errorf("%w: dictionary index %d out of %d values", errCorrupt, x, len(dict))
			}
			out[at] = dict[x]
			at += int(keep[i])
		}
		return at, nil
	}
	j := 0
	for i, l := range levels {
		var v T
		if l != 0 {
			x := idx[j]
			j++
			if uint32(x) >= uint32(len(dict)) {
				return at, fmt.Errorf("%w: dictionary index %d out of %d values", errCorrupt, x, len(dict))
			}
			v = dict[x]
		}
		out[at] = v
		at += int(keep[i])
	}
	return at, nil
}

// keepNulls writes a zero for each kept row of an all-null page.
func keepNulls[T any](out []T, at int, keep []byte) int {
	for _, x := range keep {
		out[at] = *new(T)
		at += int(x)
	}
	return at
}

// numBuilder builds a fixed-width column, or a bool one (a byte a bool).
type numBuilder[T any] struct {
	validity
	keptRows
	vals    []T
	scratch []T
	dict    dictCache[T]
	// plain returns a plain page's values, at least its first k: the
	// page's own, or converted into *buf.
	plain func(p parquet.Page, k int, buf *[]T) ([]T, error)
	// array makes the column of the values.
	array func(vals []T, valid []byte) arrow.Array
}

func (b *numBuilder[T]) page(p parquet.Page, row, end int) (int, error) {
	n, k, levels, err := b.levels(p, row, end)
	if err != nil {
		return n, err
	}
	if b.keep != nil {
		return n, b.pageKept(p, row, n, k, levels)
	}
	b.vals = extend(b.vals, row+n, b.rows)
	dst := b.vals[row : row+n]
	if k == 0 {
		clear(dst) // all null
		return n, nil
	}
	if d := p.Dictionary(); d != nil {
		dict, err := b.dictionary(d)
		if err != nil {
			return 0, err
		}
		return n, indexed(p, dict, dst, levels, k, &b.scratch)
	}
	src, err := b.plain(p, k, &b.scratch)
	if err != nil {
		return 0, err
	}
	return n, place(dst, src, levels, k)
}

func (b *numBuilder[T]) dictionary(d parquet.Dictionary) ([]T, error) {
	return b.dict.get(d, func(p parquet.Page) ([]T, error) { return b.plain(p, int(p.NumValues()), new([]T)) })
}

// pageKept writes the kept rows of a page of n rows, k of them not null,
// from b.at on.
func (b *numBuilder[T]) pageKept(p parquet.Page, row, n, k int, levels []byte) error {
	keep := b.keep[row : row+n]
	if k == 0 {
		b.at = keepNulls(b.vals, b.at, keep)
		return nil
	}
	if d := p.Dictionary(); d != nil {
		dict, err := b.dictionary(d)
		if err != nil {
			return err
		}
		idx, err := indices(p, k)
		if err != nil {
			return err
		}
		b.at, err = keepIndexed(b.vals, b.at, keep, levels, dict, idx)
		return err
	}
	src, err := b.plain(p, k, &b.scratch)
	if err != nil {
		return err
	}
	if len(src) < k {
		return fmt.Errorf("%w: %d values for %d non-null rows", errCorrupt, len(src), k)
	}
	b.at = keepPlain(b.vals, b.at, keep, levels, src[:k])
	return nil
}

func (b *numBuilder[T]) keepOnly(keep []uint8) {
	b.vals = extend(b.vals, b.rows, b.rows) // the kept rows and one, counted from the pages
	b.keptRows, b.rows = keptRows{keep: keep}, len(keep)
}

func (b *numBuilder[T]) finish() arrow.Array {
	if b.keep != nil {
		return b.array(b.vals[:b.at], b.keptValid(b.keep, b.at))
	}
	return b.array(b.vals, b.valid())
}

// unpackBools returns the first k values of a plain boolean page, a byte
// each, in *buf.
func unpackBools(p parquet.Page, k int, buf *[]uint8) ([]uint8, error) {
	if p.Type().Kind() != parquet.Boolean {
		return nil, fmt.Errorf("%w: a %s page in a bool column", errCorrupt, p.Type().Kind())
	}
	packed := dataOf(p).Boolean()
	if len(packed)*8 < k {
		return nil, fmt.Errorf("%w: %d bytes of booleans for %d values", errCorrupt, len(packed), k)
	}
	out := grow(*buf, k)
	*buf = out
	for i := range out {
		out[i] = packed[i>>3] >> (i & 7) & 1
	}
	return out, nil
}

// byteArrays returns a plain BYTE_ARRAY page's first k values: value i is
// data[offs[i]:offs[i+1]].
func byteArrays(p parquet.Page, k int) (data []byte, offs []uint32, err error) {
	if p.Type().Kind() != parquet.ByteArray {
		return nil, nil, fmt.Errorf("%w: a %s page in a string column", errCorrupt, p.Type().Kind())
	}
	data, offs = dataOf(p).ByteArray()
	if len(offs) < k+1 || offs[0] > offs[k] || int(offs[k]) > len(data) {
		return nil, nil, fmt.Errorf("%w: %d string offsets for %d values", errCorrupt, len(offs), k)
	}
	return data, offs[:k+1], nil
}

// stringBuilder builds a plain string column.
type stringBuilder struct {
	validity
	offsets []int32 // len rows+1
	data    []byte
	dict    parquet.Dictionary // the current chunk's dictionary, and its values
	dData   []byte
	dOffs   []uint32
}

func (b *stringBuilder) page(p parquet.Page, row, end int) (int, error) {
	n, k, levels, err := b.levels(p, row, end)
	if err != nil {
		return 0, err
	}
	b.offsets = extend(b.offsets, row+1+n, b.rows+1)
	offs := b.offsets[row+1 : row+1+n]
	if k == 0 { // all null
		for i := range offs {
			offs[i] = int32(len(b.data))
		}
		return n, nil
	}
	if d := p.Dictionary(); d != nil {
		if d != b.dict {
			if b.dData, b.dOffs, err = byteArrays(d.Page(), d.Len()); err != nil {
				return 0, fmt.Errorf("dictionary: %w", err)
			}
			b.dict = d
		}
		idx, err := indices(p, k)
		if err != nil {
			return 0, err
		}
		j := 0
		for i := range offs {
			if levels == nil || levels[i] != 0 {
				x := idx[j]
				j++
				if uint32(x) >= uint32(len(b.dOffs)-1) {
					return 0, fmt.Errorf("%w: dictionary index %d out of %d values", errCorrupt, x, len(b.dOffs)-1)
				}
				b.data = append(b.data, b.dData[b.dOffs[x]:b.dOffs[x+1]]...)
			}
			offs[i] = int32(len(b.data))
		}
		if len(b.data) > math.MaxInt32 {
			return 0, errTooLong
		}
		return n, nil
	}
	data, vo, err := byteArrays(p, k)
	if err != nil {
		return 0, err
	}
	base := int64(len(b.data)) - int64(vo[0])
	if base+int64(vo[k]) > math.MaxInt32 {
		return 0, errTooLong
	}
	b.data = append(b.data, data[vo[0]:vo[k]]...)
	if k == n {
		for i, o := range vo[1:] {
			offs[i] = int32(base + int64(o))
		}
		return n, nil
	}
	j := 0
	for i, l := range levels {
		if l != 0 {
			j++
		}
		offs[i] = int32(base + int64(vo[j]))
	}
	return n, nil
}

var errTooLong = errors.New("the strings pass 2 GiB, too many for one column; read fewer row groups")

func (b *stringBuilder) finish() arrow.Array {
	return kernel.NewString(b.offsets, b.data, b.valid())
}

// dictBuilder builds a dictionary-encoded string column; the dictionaries
// of several chunks are merged into one.
type dictBuilder struct {
	validity
	keptRows
	indices []int32
	offsets []int32 // the merged dictionary's values
	data    []byte
	ids     map[string]int32 // value to merged id, built once two dictionaries meet

	dict    parquet.Dictionary // the current chunk's dictionary
	remap   []int32            // its values' merged ids
	scratch []int32
}

func (b *dictBuilder) page(p parquet.Page, row, end int) (int, error) {
	n, k, levels, err := b.levels(p, row, end)
	if err != nil {
		return n, err
	}
	if b.keep == nil {
		b.indices = extend(b.indices, row+n, b.rows)
	}
	if k == 0 { // all null: the indices stay zero
		if b.keep != nil {
			b.at = keepNulls(b.indices, b.at, b.keep[row:row+n])
		}
		return n, nil
	}
	if d := p.Dictionary(); d != nil {
		if d != b.dict {
			if err := b.useDictionary(d); err != nil {
				return 0, fmt.Errorf("dictionary: %w", err)
			}
		}
		if b.keep != nil {
			idx, err := indices(p, k)
			if err != nil {
				return 0, err
			}
			b.at, err = keepIndexed(b.indices, b.at, b.keep[row:row+n], levels, b.remap, idx)
			return n, err
		}
		return n, indexed(p, b.remap, b.indices[row:row+n], levels, k, &b.scratch)
	}
	// A plain page, where the metadata promised a dictionary: add its
	// values to the dictionary one by one.
	data, vo, err := byteArrays(p, k)
	if err != nil {
		return 0, err
	}
	b.index()
	ids := make([]int32, k)
	for j := range ids {
		ids[j] = b.intern(data[vo[j]:vo[j+1]])
	}
	if b.keep != nil {
		b.at = keepPlain(b.indices, b.at, b.keep[row:row+n], levels, ids)
	} else if err := place(b.indices[row:row+n], ids, levels, k); err != nil {
		return 0, err
	}
	if len(b.data) > math.MaxInt32 {
		return 0, errTooLong
	}
	return n, nil
}

// useDictionary makes d the current chunk's dictionary, adding its values
// to the merged one.
func (b *dictBuilder) useDictionary(d parquet.Dictionary) error {
	data, offs, err := byteArrays(d.Page(), d.Len())
	if err != nil {
		return err
	}
	b.dict, b.remap = d, make([]int32, len(offs)-1)
	if len(b.offsets) == 1 && b.ids == nil {
		// The first dictionary: its ids are the merged ones.
		base := offs[0]
		for j, o := range offs[1:] {
			b.offsets = append(b.offsets, int32(o-base))
			b.remap[j] = int32(j)
		}
		b.data = append(b.data, data[base:offs[len(offs)-1]]...)
		return nil
	}
	b.index()
	for j := range b.remap {
		b.remap[j] = b.intern(data[offs[j]:offs[j+1]])
	}
	if len(b.data) > math.MaxInt32 {
		return errTooLong
	}
	return nil
}

// index builds the map of the merged dictionary's values.
func (b *dictBuilder) index() {
	if b.ids != nil {
		return
	}
	b.ids = make(map[string]int32, len(b.offsets))
	for j := len(b.offsets) - 2; j >= 0; j-- { // the first of duplicates wins
		b.ids[string(b.data[b.offsets[j]:b.offsets[j+1]])] = int32(j)
	}
}

// intern returns v's id in the merged dictionary, adding it if new.
func (b *dictBuilder) intern(v []byte) int32 {
	if id, ok := b.ids[string(v)]; ok {
		return id
	}
	id := int32(len(b.offsets) - 1)
	b.data = append(b.data, v...)
	b.offsets = append(b.offsets, int32(len(b.data)))
	b.ids[string(v)] = id
	return id
}

func (b *dictBuilder) keepOnly(keep []uint8) {
	b.indices = extend(b.indices, b.rows, b.rows) // the kept rows and one, counted from the pages
	b.keptRows, b.rows = keptRows{keep: keep}, len(keep)
}

func (b *dictBuilder) finish() arrow.Array {
	values := kernel.NewString(b.offsets, b.data, nil)
	defer values.Release()
	if b.keep != nil {
		return kernel.NewDict(b.indices[:b.at], values, b.keptValid(b.keep, b.at))
	}
	return kernel.NewDict(b.indices, values, b.valid())
}

// dataOf returns a page's values, as they are in its buffers.
func dataOf(p parquet.Page) *encoding.Values {
	v := p.Data()
	return &v
}

// filterBuilder tests a column's pages against a filter, ANDing the
// outcome into keep (a byte a row), without keeping the column.
type filterBuilder struct {
	col   *column
	pass  func(arrow.Array) ([]uint8, error)
	sift  func(arrow.Array, []uint8) error // nil: pass tests every value
	keep  []uint8
	rows  int  // the rows claimed
	first bool // the first filter's: keep grows with the pages, every row kept

	dict     parquet.Dictionary // the current chunk's dictionary
	passes   []uint8            // the outcome of each of its values
	nullPass uint8              // the outcome for a null
	nullSeen bool               // nullPass is known
}

// pageRows returns a page's rows, and its definition levels if c is
// optional, checking that they end by end.
func pageRows(c *column, p parquet.Page, row, end int) (int, []byte, error) {
	n := int(p.NumValues())
	var levels []byte
	if c.optional {
		levels = p.DefinitionLevels()
		n = len(levels)
	}
	if n > end-row {
		return 0, nil, fmt.Errorf("%w: %d rows, past the row group's end", errCorrupt, n)
	}
	return n, levels, nil
}

func (b *filterBuilder) page(p parquet.Page, row, end int) (int, error) {
	n, levels, err := pageRows(b.col, p, row, end)
	if err != nil {
		return 0, err
	}
	if b.first {
		b.keep = keepRows(b.keep, row+n, b.rows)
	}
	keep := b.keep[row : row+n]
	d := p.Dictionary()
	if d == nil {
		// A plain page: its values, as a column of their own.
		vals := newBuilder(b.col, n, 0)
		if _, err := vals.page(p, 0, n); err != nil {
			return 0, err
		}
		return n, b.test(vals.finish(), keep)
	}
	if d != b.dict {
		var values arrow.Array
		values, err = b.dictionary(d)
		if err != nil {
			return 0, fmt.Errorf("dictionary: %w", err)
		}
		if b.passes, err = b.passOf(values); err != nil {
			return 0, err
		}
		b.dict = d
	}
	if levels == nil || p.NumNulls() == 0 {
		idx, err := indices(p, n)
		if err != nil {
			return 0, err
		}
		return n, lookUp(keep, b.passes, idx)
	}
	k := 0
	for _, l := range levels {
		k += int(min(l, 1))
	}
	idx, err := indices(p, k)
	if err != nil {
		return 0, err
	}
	if !b.nullSeen {
		if b.nullPass, err = b.passOfNull(); err != nil {
			return 0, err
		}
		b.nullSeen = true
	}
	j := 0
	for i, l := range levels {
		if l == 0 {
			keep[i] &= b.nullPass
			continue
		}
		x := idx[j]
		j++
		if uint32(x) >= uint32(len(b.passes)) {
			return 0, fmt.Errorf("%w: dictionary index %d out of %d values", errCorrupt, x, len(b.passes))
		}
		keep[i] &= b.passes[x]
	}
	return n, nil
}

// lookUp ANDs into keep each row's outcome, by its dictionary index.
func lookUp(keep, passes []uint8, idx []int32) error {
	keep = keep[:len(idx)]
	for i, x := range idx {
		if uint32(x) >= uint32(len(passes)) {
			return fmt.Errorf("%w: dictionary index %d out of %d values", errCorrupt, x, len(passes))
		}
		keep[i] &= passes[x]
	}
	return nil
}

// dictionary decodes a dictionary's values as a column.
func (b *filterBuilder) dictionary(d parquet.Dictionary) (arrow.Array, error) {
	c := *b.col
	c.optional = false // a dictionary holds no nulls
	if c.typ == kernel.Dict {
		c.typ = arrow.BinaryTypes.String
	}
	vals := newBuilder(&c, d.Len(), 0)
	if _, err := vals.page(d.Page(), 0, d.Len()); err != nil {
		return nil, err
	}
	return vals.finish(), nil
}

// test ANDs the outcome of values, a row each, into keep.
func (b *filterBuilder) test(values arrow.Array, keep []uint8) error {
	if b.sift != nil {
		defer values.Release()
		if len(keep) != values.Len() {
			return fmt.Errorf("filter on %s: %d rows for %d values", b.col.name, len(keep), values.Len())
		}
		return b.sift(values, keep)
	}
	passes, err := b.passOf(values)
	if err != nil {
		return err
	}
	for i, v := range passes {
		keep[i] &= v
	}
	return nil
}

// passOf runs the filter on values, which it releases.
func (b *filterBuilder) passOf(values arrow.Array) ([]uint8, error) {
	defer values.Release()
	passes, err := b.pass(values)
	if err != nil {
		return nil, err
	}
	if len(passes) != values.Len() {
		return nil, fmt.Errorf("filter on %s: %d outcomes for %d values", b.col.name, len(passes), values.Len())
	}
	return passes, nil
}

// passOfNull runs the filter on a null.
func (b *filterBuilder) passOfNull() (uint8, error) {
	typ := b.col.typ
	if typ == kernel.Dict {
		typ = arrow.BinaryTypes.String
	}
	passes, err := b.passOf(array.MakeArrayOfNull(memory.DefaultAllocator, typ, 1))
	if err != nil {
		return 0, err
	}
	return passes[0], nil
}
