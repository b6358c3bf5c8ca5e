package format

import (
	"encoding/binary"
	"math"
)

// DecodePageHeader decodes a page header in Thrift's compact protocol from
// the start of b, without reflection: readers decode one header a page, and
// thrift.Decoder's reflective walk of them cost more than the CRC of the
// page they head. It returns the bytes the header took. ok is false where b
// holds anything but the plain case: a field of a struct type no page
// header has, a known field of another type than its own or seen twice, a
// required field missing, a value out of its range, or b cut short; the
// caller then decodes the same bytes with thrift.Decoder, which decides.
// Where ok is true, h is what thrift.Decoder decodes into a new PageHeader;
// where it is false, h is left zero.
func DecodePageHeader(b []byte, h *PageHeader) (n int, ok bool) {
	r := compact{b: b}
	*h = PageHeader{}
	var seen uint16
	r.fields(func(id int16, t byte) {
		if id < 1 || id > 8 {
			r.other(t)
			return
		}
		r.once(&seen, id)
		switch id {
		case 1:
			h.Type = PageType(r.i32(t))
		case 2:
			h.UncompressedPageSize = r.i32(t)
		case 3:
			h.CompressedPageSize = r.i32(t)
		case 4:
			h.CRC = r.i32(t)
		case 5:
			r.dataPage(t, &h.DataPageHeader.V)
			h.DataPageHeader.Valid = true
		case 6:
			r.structOf(t, func(_ int16, t byte) { r.other(t) })
			h.IndexPageHeader.Valid = true
		case 7:
			r.dictionaryPage(t, &h.DictionaryPageHeader.V)
			h.DictionaryPageHeader.Valid = true
		case 8:
			r.dataPageV2(t, &h.DataPageHeaderV2.V)
			h.DataPageHeaderV2.Valid = true
		}
	})
	r.require(seen, 1<<1|1<<2|1<<3)
	if r.bad {
		*h = PageHeader{}
		return 0, false
	}
	return r.i, true
}

func (r *compact) dataPage(t byte, d *DataPageHeader) {
	var seen uint16
	r.structOf(t, func(id int16, t byte) {
		if id < 1 || id > 5 {
			r.other(t)
			return
		}
		r.once(&seen, id)
		switch id {
		case 1:
			d.NumValues = r.i32(t)
		case 2:
			d.Encoding = Encoding(r.i32(t))
		case 3:
			d.DefinitionLevelEncoding = Encoding(r.i32(t))
		case 4:
			d.RepetitionLevelEncoding = Encoding(r.i32(t))
		case 5:
			r.statistics(t, &d.Statistics)
		}
	})
	r.require(seen, 1<<1|1<<2|1<<3|1<<4)
}

func (r *compact) dictionaryPage(t byte, d *DictionaryPageHeader) {
	var seen uint16
	r.structOf(t, func(id int16, t byte) {
		if id < 1 || id > 3 {
			r.other(t)
			return
		}
		r.once(&seen, id)
		switch id {
		case 1:
			d.NumValues = r.i32(t)
		case 2:
			d.Encoding = Encoding(r.i32(t))
		case 3:
			d.IsSorted = r.boolean(t)
		}
	})
	r.require(seen, 1<<1|1<<2)
}

func (r *compact) dataPageV2(t byte, d *DataPageHeaderV2) {
	var seen uint16
	r.structOf(t, func(id int16, t byte) {
		if id < 1 || id > 8 {
			r.other(t)
			return
		}
		r.once(&seen, id)
		switch id {
		case 1:
			d.NumValues = r.i32(t)
		case 2:
			d.NumNulls = r.i32(t)
		case 3:
			d.NumRows = r.i32(t)
		case 4:
			d.Encoding = Encoding(r.i32(t))
		case 5:
			d.DefinitionLevelsByteLength = r.i32(t)
		case 6:
			d.RepetitionLevelsByteLength = r.i32(t)
		case 7:
			d.IsCompressed.V = r.boolean(t)
			d.IsCompressed.Valid = true
		case 8:
			r.statistics(t, &d.Statistics)
		}
	})
	r.require(seen, 1<<1|1<<2|1<<3|1<<4|1<<5|1<<6)
}

func (r *compact) statistics(t byte, s *Statistics) {
	var seen uint16
	r.structOf(t, func(id int16, t byte) {
		if id < 1 || id > 6 {
			r.other(t)
			return
		}
		r.once(&seen, id)
		switch id {
		case 1:
			s.Max = r.binary(t)
		case 2:
			s.Min = r.binary(t)
		case 3:
			s.NullCount = r.i64(t)
		case 4:
			s.DistinctCount = r.i64(t)
		case 5:
			s.MaxValue = r.binary(t)
		case 6:
			s.MinValue = r.binary(t)
		}
	})
}

// Compact protocol types, as a field header's low four bits give them.
const (
	compactTrue   = 1
	compactFalse  = 2
	compactI8     = 3
	compactI16    = 4
	compactI32    = 5
	compactI64    = 6
	compactDouble = 7
	compactBinary = 8
	compactStruct = 12
)

// compact reads Thrift's compact protocol from b; bad is set at the first
// thing DecodePageHeader leaves to thrift.Decoder, and every read after it
// gives zero.
type compact struct {
	b   []byte
	i   int
	bad bool
}

func (r *compact) uvarint() uint64 {
	if r.bad {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.i += n
	return v
}

// varint reads a zigzag varint in [lo, hi].
func (r *compact) varint(lo, hi int64) int64 {
	u := r.uvarint()
	v := int64(u>>1) ^ -int64(u&1)
	if v < lo || v > hi {
		r.bad = true
		return 0
	}
	return v
}

func (r *compact) i32(t byte) int32 {
	if t != compactI32 {
		r.bad = true
	}
	return int32(r.varint(math.MinInt32, math.MaxInt32))
}

func (r *compact) i64(t byte) int64 {
	if t != compactI64 {
		r.bad = true
	}
	return r.varint(math.MinInt64, math.MaxInt64)
}

// boolean is a bool field's value, which the compact protocol keeps in its
// type.
func (r *compact) boolean(t byte) bool {
	if t != compactTrue && t != compactFalse {
		r.bad = true
	}
	return t == compactTrue
}

func (r *compact) binary(t byte) []byte {
	if t != compactBinary {
		r.bad = true
	}
	n := r.uvarint()
	if r.bad || n > math.MaxInt32 || n > uint64(len(r.b)-r.i) {
		r.bad = true
		return nil
	}
	v := make([]byte, n)
	copy(v, r.b[r.i:])
	r.i += int(n)
	return v
}

// other steps over a field the struct being read does not have: one of a
// plain type is skipped as thrift.Decoder skips it;
// anything else is thrift.Decoder's to read.
func (r *compact) other(t byte) {
	switch t {
	case compactTrue, compactFalse:
	case compactI8:
		r.i++
		r.bad = r.bad || r.i > len(r.b)
	case compactI16:
		r.varint(math.MinInt16, math.MaxInt16)
	case compactI32:
		r.varint(math.MinInt32, math.MaxInt32)
	case compactI64:
		r.varint(math.MinInt64, math.MaxInt64)
	case compactDouble:
		r.i += 8
		r.bad = r.bad || r.i > len(r.b)
	case compactBinary:
		n := r.uvarint()
		if n > math.MaxInt32 || n > uint64(len(r.b)-r.i) {
			r.bad = true
			return
		}
		r.i += int(n)
	default:
		r.bad = true
	}
}

// once notes field id in seen; a field seen twice is thrift.Decoder's to
// read (it decodes the second over the first).
func (r *compact) once(seen *uint16, id int16) {
	if *seen&(1<<id) != 0 {
		r.bad = true
	}
	*seen |= 1 << id
}

// structOf reads a struct field's fields with field, if t is a struct's type.
func (r *compact) structOf(t byte, field func(id int16, t byte)) {
	if t != compactStruct {
		r.bad = true
		return
	}
	r.fields(field)
}

// fields reads a struct's fields up to its stop, each with field.
func (r *compact) fields(field func(id int16, t byte)) {
	last := int16(0)
	for !r.bad {
		if r.i >= len(r.b) {
			r.bad = true
			return
		}
		head := r.b[r.i]
		r.i++
		if head == 0 {
			return
		}
		id := last + int16(head>>4)
		if head>>4 == 0 {
			id = int16(r.varint(math.MinInt16, math.MaxInt16))
		}
		field(id, head&0x0f)
		last = id
	}
}

// require marks the read bad unless seen holds every bit of want: a
// required field missing is thrift.Decoder's error to give.
func (r *compact) require(seen, want uint16) {
	if seen&want != want {
		r.bad = true
	}
}
