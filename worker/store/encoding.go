package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/cespare/xxhash/v2"

	"github.com/duskdata/dusk/internal/alloc"
)

// A column spilled by column may first be put in a lighter form, so that
// it reads back at memory speed rather than a decompressor's (a general
// compressor decodes a column of small integers at about 1 GB/s a core):
// integers as their distance from the column's least value in 1, 2 or 4
// bytes (frame of reference, as Parquet and DuckDB store them), strings of
// few distinct values as a dictionary and 1- or 2-byte indices. The
// footer names a column's encoding, its type and the encoding's base; the
// section holds the encoded column, as one-column Arrow IPC as always.
type encoding uint8

const (
	plain encoding = iota
	narrowed
	dictionary
)

// encodings is each encoding's pair of conversions: encode returns the
// column's lighter form and its base, or false when it has none worth
// storing; decode turns it back into a column of type t, checking what
// it reads.
var encodings = [...]struct {
	name   string
	encode func(a arrow.Array) (arrow.Array, uint64, bool)
	decode func(enc arrow.Array, t arrow.DataType, base uint64) (arrow.Array, error)
}{
	plain:      {"plain", nil, nil},
	narrowed:   {"narrowed", encodeNarrow, decodeNarrow},
	dictionary: {"dictionary", encodeDict, decodeDict},
}

// encodedTypes are the types an encoding may stand for, by their IDs in
// the footer: types with no parameters.
var encodedTypes = map[arrow.Type]arrow.DataType{
	arrow.INT8: arrow.PrimitiveTypes.Int8, arrow.INT16: arrow.PrimitiveTypes.Int16,
	arrow.INT32: arrow.PrimitiveTypes.Int32, arrow.INT64: arrow.PrimitiveTypes.Int64,
	arrow.UINT8: arrow.PrimitiveTypes.Uint8, arrow.UINT16: arrow.PrimitiveTypes.Uint16,
	arrow.UINT32: arrow.PrimitiveTypes.Uint32, arrow.UINT64: arrow.PrimitiveTypes.Uint64,
	arrow.DATE32: arrow.FixedWidthTypes.Date32, arrow.DATE64: arrow.FixedWidthTypes.Date64,
	arrow.STRING: arrow.BinaryTypes.String, arrow.BINARY: arrow.BinaryTypes.Binary,
}

// columnCode is how a column is stored, as its footer entry says: the
// encoding, the type it stands for (a dictionary's index type) and the
// encoding's base.
type columnCode struct {
	enc  encoding
	typ  arrow.Type
	base uint64
}

// encodeColumn returns a's lightest form and how it is stored.
func encodeColumn(a arrow.Array) (arrow.Array, columnCode) {
	typ := a.DataType().ID()
	if dt, ok := a.DataType().(*arrow.DictionaryType); ok {
		typ = dt.IndexType.ID()
	}
	_, known := encodedTypes[a.DataType().ID()]
	if (known || a.DataType().ID() == arrow.DICTIONARY) && (a.NullN() == 0 || a.Data().Offset() == 0) {
		for e, c := range encodings {
			if c.encode == nil {
				continue
			}
			if enc, base, ok := c.encode(a); ok {
				return enc, columnCode{encoding(e), typ, base}
			}
		}
	}
	a.Retain()
	return a, columnCode{plain, typ, 0}
}

// decodeColumn turns a section's column back into the column spilled.
func decodeColumn(a arrow.Array, c columnCode) (arrow.Array, error) {
	e, typ, base := c.enc, c.typ, c.base
	if e == plain {
		a.Retain()
		return a, nil
	}
	t, ok := encodedTypes[typ]
	if int(e) >= len(encodings) || !ok {
		return nil, fmt.Errorf("encoding %d of type %d", e, typ)
	}
	out, err := encodings[e].decode(a, t, base)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", encodings[e].name, t, err)
	}
	return out, nil
}

// validity returns a's validity buffer for a column of its values from
// offset 0 (encodeColumn takes no column with nulls at an offset).
func validity(a arrow.Array) *memory.Buffer {
	if a.NullN() == 0 {
		return nil
	}
	return a.Data().Buffers()[0]
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// valuesOf returns a fixed-width column's values as T, from its offset;
// false when its buffer is too short for them.
func valuesOf[T integer](a arrow.Array) ([]T, bool) {
	d := a.Data()
	if a.Len() == 0 {
		return nil, true
	}
	buf := d.Buffers()[1]
	if buf == nil || buf.Len()/int(unsafe.Sizeof(T(0))) < d.Offset()+a.Len() {
		return nil, false
	}
	vals := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(buf.Bytes()))), d.Offset()+a.Len())
	return vals[d.Offset():], true
}

// fromValues makes a column of type t holding vals.
func fromValues[T integer](t arrow.DataType, vals []T, valid *memory.Buffer, nulls int) arrow.Array {
	b := memory.NewBufferBytes(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), len(vals)*int(unsafe.Sizeof(T(0)))))
	d := array.NewData(t, len(vals), []*memory.Buffer{valid, b}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// widthOf returns an integer or date type's byte width, else 0.
func widthOf(t arrow.DataType) int {
	fw, ok := t.(arrow.FixedWidthDataType)
	if !ok || !arrow.IsInteger(t.ID()) && t.ID() != arrow.DATE32 && t.ID() != arrow.DATE64 {
		return 0
	}
	return fw.BitWidth() / 8
}

// encodeNarrow stores an integer column as each value's distance from the
// least, in the fewest bytes that hold the largest distance; a dictionary
// column, its indices (the footer's type is then the indices').
func encodeNarrow(a arrow.Array) (arrow.Array, uint64, bool) {
	if d, ok := a.(*array.Dictionary); ok {
		idx, base, ok := encodeNarrow(d.Indices())
		if !ok {
			return nil, 0, false
		}
		defer idx.Release()
		dt := a.DataType().(*arrow.DictionaryType)
		return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: idx.DataType(), ValueType: dt.ValueType, Ordered: dt.Ordered}, idx, d.Dictionary()), base, true
	}
	switch widthOf(a.DataType()) {
	case 2:
		return narrowOf[uint16](a)
	case 4:
		return narrowOf[uint32](a)
	case 8:
		return narrowOf[uint64](a)
	}
	return nil, 0, false
}

// narrowOf narrows a column of integers of T's width, read as T: a
// signed column's values are ordered with their sign bit flipped, and
// distances are taken modulo T, so that signed and unsigned types narrow
// alike.
func narrowOf[T uint16 | uint32 | uint64](a arrow.Array) (arrow.Array, uint64, bool) {
	vals, ok := valuesOf[T](a)
	if !ok || len(vals) == 0 {
		return nil, 0, false
	}
	var flip T
	if id := a.DataType().ID(); arrow.IsSignedInteger(id) || id == arrow.DATE32 || id == arrow.DATE64 {
		flip = 1 << (8*unsafe.Sizeof(T(0)) - 1)
	}
	lo, hi := vals[0]^flip, vals[0]^flip
	for _, v := range vals {
		lo, hi = min(lo, v^flip), max(hi, v^flip)
	}
	base, span := lo^flip, uint64(hi-lo)
	valid, nulls := validity(a), a.NullN()
	switch {
	case span <= math.MaxUint8:
		return fromValues(arrow.PrimitiveTypes.Uint8, distances[T, uint8](vals, base), valid, nulls), uint64(base), true
	case span <= math.MaxUint16 && unsafe.Sizeof(T(0)) > 2:
		return fromValues(arrow.PrimitiveTypes.Uint16, distances[T, uint16](vals, base), valid, nulls), uint64(base), true
	case span <= math.MaxUint32 && unsafe.Sizeof(T(0)) > 4:
		return fromValues(arrow.PrimitiveTypes.Uint32, distances[T, uint32](vals, base), valid, nulls), uint64(base), true
	}
	return nil, 0, false
}

func distances[T uint16 | uint32 | uint64, N uint8 | uint16 | uint32](vals []T, base T) []N {
	out := alloc.NoZeroOf[N](len(vals))
	for i, v := range vals {
		out[i] = N(v - base)
	}
	return out
}

// decodeNarrow widens a narrowed column back to type t; a dictionary
// column's indices, back to the index type t.
func decodeNarrow(enc arrow.Array, t arrow.DataType, base uint64) (arrow.Array, error) {
	if d, ok := enc.(*array.Dictionary); ok {
		if !arrow.IsInteger(t.ID()) {
			return nil, fmt.Errorf("dictionary indices of type %s", t)
		}
		idx, err := decodeNarrow(d.Indices(), t, base)
		if err != nil {
			return nil, err
		}
		defer idx.Release()
		dt := enc.DataType().(*arrow.DictionaryType)
		return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: t, ValueType: dt.ValueType, Ordered: dt.Ordered}, idx, d.Dictionary()), nil
	}
	w := widthOf(t)
	var n int
	switch enc.DataType().ID() {
	case arrow.UINT8:
		n = 1
	case arrow.UINT16:
		n = 2
	case arrow.UINT32:
		n = 4
	}
	if n == 0 || n >= w {
		return nil, fmt.Errorf("stored as %s", enc.DataType())
	}
	switch w {
	case 2:
		return widen(enc, t, uint16(base))
	case 4:
		return widen(enc, t, uint32(base))
	}
	return widen(enc, t, base)
}

func widen[T uint16 | uint32 | uint64](enc arrow.Array, t arrow.DataType, base T) (arrow.Array, error) {
	var out []T
	var ok bool
	switch enc.DataType().ID() {
	case arrow.UINT8:
		var v []uint8
		v, ok = valuesOf[uint8](enc)
		out = widened(v, base)
	case arrow.UINT16:
		var v []uint16
		v, ok = valuesOf[uint16](enc)
		out = widened(v, base)
	default:
		var v []uint32
		v, ok = valuesOf[uint32](enc)
		out = widened(v, base)
	}
	if !ok {
		return nil, errors.New("values cut short")
	}
	return fromValues(t, out, validity(enc), enc.NullN()), nil
}

func widened[T uint16 | uint32 | uint64, N uint8 | uint16 | uint32](vals []N, base T) []T {
	out := alloc.NoZeroOf[T](len(vals))
	for i, v := range vals {
		out[i] = T(v) + base
	}
	return out
}

// Dictionaries are tried on strings while they stay small: at most
// maxDict values, and no more than one new value in two of the first
// probeRows rows (a column of ids, distinct in every partition, is given
// up on early).
const (
	maxDict   = math.MaxUint16 + 1
	probeRows = 4096
)

// encodeDict stores a string or binary column of few distinct values as
// a dictionary column with 1- or 2-byte indices; a null's index is 0.
func encodeDict(a arrow.Array) (arrow.Array, uint64, bool) {
	offs, data := stringsOf(a)
	if offs == nil || a.Len() == 0 {
		return nil, 0, false
	}
	valid := validity(a)
	var bitmap []byte
	if valid != nil {
		bitmap = valid.Bytes()
	}
	t := newStringTable()
	idx := alloc.NoZeroOf[uint16](a.Len())
	bytesIn := int(offs[a.Len()] - offs[0])
	for i := range idx {
		if bitmap != nil && bitmap[i>>3]&(1<<(i&7)) == 0 {
			idx[i] = 0
			continue
		}
		id, ok := t.id(data[offs[i]:offs[i+1]])
		if !ok || i == probeRows && t.len() > probeRows/2 {
			return nil, 0, false
		}
		idx[i] = uint16(id)
	}
	n := t.len()
	if n == 0 || len(t.data)+4*n+2*a.Len() >= bytesIn+4*a.Len() {
		return nil, 0, false
	}
	dict := array.MakeFromData(array.NewData(a.DataType(), n,
		[]*memory.Buffer{nil, memory.NewBufferBytes(i32Bytes(t.offsets)), memory.NewBufferBytes(t.data)}, nil, 0, 0))
	defer dict.Release()
	var indices arrow.Array
	if n <= math.MaxUint8+1 {
		small := alloc.NoZeroOf[uint8](len(idx))
		for i, v := range idx {
			small[i] = uint8(v)
		}
		indices = fromValues(arrow.PrimitiveTypes.Uint8, small, valid, a.NullN())
	} else {
		indices = fromValues(arrow.PrimitiveTypes.Uint16, idx, valid, a.NullN())
	}
	defer indices.Release()
	dt := &arrow.DictionaryType{IndexType: indices.DataType(), ValueType: a.DataType()}
	return array.NewDictionaryArray(dt, indices, dict), 0, true
}

// stringsOf returns a string or binary column's offsets, from its offset,
// and its data.
func stringsOf(a arrow.Array) ([]int32, []byte) {
	d := a.Data()
	if d.DataType().ID() != arrow.STRING && d.DataType().ID() != arrow.BINARY {
		return nil, nil
	}
	bufs := d.Buffers()
	if bufs[1] == nil || bufs[1].Len() < 4*(d.Offset()+d.Len()+1) {
		return nil, nil
	}
	offs := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(bufs[1].Bytes()))), d.Offset()+d.Len()+1)
	var data []byte
	if bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	return offs[d.Offset():], data
}

func i32Bytes(v []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}

// stringTable numbers distinct byte strings: open addressing over slots
// holding id+1, the strings kept end to end as a string column's data.
type stringTable struct {
	slots   []uint32
	hashes  []uint64 // by id
	offsets []int32
	data    []byte
}

func newStringTable() *stringTable {
	return &stringTable{slots: make([]uint32, 1024), offsets: []int32{0}}
}

func (t *stringTable) len() int { return len(t.offsets) - 1 }

// id returns b's number, adding it if new; false once there would be more
// than maxDict.
func (t *stringTable) id(b []byte) (int, bool) {
	h := hashBytes(b)
	mask := uint64(len(t.slots) - 1)
	for s := h & mask; ; s = (s + 1) & mask {
		v := t.slots[s]
		if v == 0 {
			break
		}
		id := int(v - 1)
		if t.hashes[id] == h && string(t.data[t.offsets[id]:t.offsets[id+1]]) == string(b) {
			return id, true
		}
	}
	id := t.len()
	if id == maxDict {
		return 0, false
	}
	t.hashes = append(t.hashes, h)
	t.data = append(t.data, b...)
	t.offsets = append(t.offsets, int32(len(t.data)))
	if 2*(id+1) > len(t.slots) {
		t.rehash()
	} else {
		t.put(h, id)
	}
	return id, true
}

func (t *stringTable) put(h uint64, id int) {
	mask := uint64(len(t.slots) - 1)
	s := h & mask
	for t.slots[s] != 0 {
		s = (s + 1) & mask
	}
	t.slots[s] = uint32(id + 1)
}

func (t *stringTable) rehash() {
	t.slots = make([]uint32, 2*len(t.slots))
	for id, h := range t.hashes {
		t.put(h, id)
	}
}

// hashBytes hashes a string: a short one by a multiply of its bytes, a
// longer one by xxhash.
func hashBytes(b []byte) uint64 {
	if len(b) > 8 {
		return xxhash.Sum64(b)
	}
	var w [8]byte
	copy(w[:], b)
	h := (binary.LittleEndian.Uint64(w[:]) ^ uint64(len(b))<<59) * 0x9E3779B97F4A7C15
	return h ^ h>>29
}

// decodeDict turns a dictionary column back into plain strings of type t.
func decodeDict(enc arrow.Array, t arrow.DataType, _ uint64) (arrow.Array, error) {
	d, ok := enc.(*array.Dictionary)
	if !ok || !arrow.TypeEqual(d.Dictionary().DataType(), t) {
		return nil, fmt.Errorf("stored as %s", enc.DataType())
	}
	doffs, ddata := stringsOf(d.Dictionary())
	if doffs == nil {
		return nil, errors.New("a dictionary without values")
	}
	var offs []int32
	var data []byte
	var err error
	switch d.Indices().DataType().ID() {
	case arrow.UINT8:
		offs, data, err = gatherIndices[uint8](d.Indices(), doffs, ddata)
	case arrow.UINT16:
		offs, data, err = gatherIndices[uint16](d.Indices(), doffs, ddata)
	default:
		err = fmt.Errorf("indices of %s", d.Indices().DataType())
	}
	if err != nil {
		return nil, err
	}
	ad := array.NewData(t, enc.Len(), []*memory.Buffer{validity(d.Indices()),
		memory.NewBufferBytes(i32Bytes(offs)), memory.NewBufferBytes(data)}, nil, enc.NullN(), 0)
	defer ad.Release()
	return array.MakeFromData(ad), nil
}

func gatherIndices[N uint8 | uint16](indices arrow.Array, doffs []int32, ddata []byte) ([]int32, []byte, error) {
	idx, ok := valuesOf[N](indices)
	if !ok {
		return nil, nil, errors.New("indices cut short")
	}
	return gatherStrings(idx, doffs, ddata)
}

// gatherStrings writes the dictionary's strings at idx end to end; an
// index beyond the dictionary, or data beyond a column's 2 GiB, is an
// error. Strings of up to 16 bytes, as ids are, go as two 8-byte words
// each, the next string written over what the words wrote past the end.
func gatherStrings[N uint8 | uint16](idx []N, doffs []int32, ddata []byte) ([]int32, []byte, error) {
	k := len(doffs) - 1
	longest := 0
	for j := range k {
		if doffs[j] < 0 || doffs[j] > doffs[j+1] || int(doffs[j+1]) > len(ddata) {
			return nil, nil, fmt.Errorf("dictionary value %d at %d..%d of %d bytes", j, doffs[j], doffs[j+1], len(ddata))
		}
		longest = max(longest, int(doffs[j+1]-doffs[j]))
	}
	var total int64
	for _, j := range idx {
		if int(j) >= k {
			return nil, nil, fmt.Errorf("index %d in a dictionary of %d", j, k)
		}
		total += int64(doffs[j+1] - doffs[j])
	}
	if total > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%d bytes of strings", total)
	}
	offs := alloc.NoZeroOf[int32](len(idx) + 1)
	offs[0] = 0
	if longest > 16 {
		data := alloc.NoZero(int(total))
		at := int32(0)
		for i, j := range idx {
			at += int32(copy(data[at:], ddata[doffs[j]:doffs[j+1]]))
			offs[i+1] = at
		}
		return offs, data, nil
	}
	type short struct {
		lo, hi uint64
		n      int
	}
	words := make([]short, k)
	for j := range words {
		var w [16]byte
		words[j].n = copy(w[:], ddata[doffs[j]:doffs[j+1]])
		words[j].lo, words[j].hi = binary.LittleEndian.Uint64(w[:]), binary.LittleEndian.Uint64(w[8:])
	}
	data := alloc.NoZero(int(total) + 16)
	at := 0
	for i, j := range idx {
		w := words[j]
		binary.LittleEndian.PutUint64(data[at:], w.lo)
		binary.LittleEndian.PutUint64(data[at+8:], w.hi)
		at += w.n
		offs[i+1] = int32(at)
	}
	return offs, data[:total], nil
}
