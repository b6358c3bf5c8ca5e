package jsonl

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
)

// Write writes rec's rows to w as JSON lines: one object a row, its keys in
// column order, nulls as null. Floats take their shortest form that reads
// back exactly, with ".0" on whole numbers so that they read back as
// floats; NaN and ±Inf, which JSON lacks, are written as null. Invalid
// UTF-8 in strings becomes U+FFFD. The columns must be int64, float64, bool
// or strings (plain or dictionary-encoded); Write does not release rec.
func Write(w io.Writer, rec arrow.Record) error {
	cols := make([]colWriter, rec.NumCols())
	for c := range cols {
		f := rec.Schema().Field(c)
		cw, err := newColWriter(f.Name, rec.Column(c))
		if err != nil {
			return err
		}
		cw.key = append([]byte{','}, appendString(nil, []byte(f.Name))...)
		cw.key = append(cw.key, ':')
		cols[c] = cw
	}
	if len(cols) > 0 {
		cols[0].key[0] = '{'
	}
	const flushAt = 64 << 10
	buf := make([]byte, 0, flushAt+4096)
	for i := 0; i < int(rec.NumRows()); i++ {
		if len(cols) == 0 {
			buf = append(buf, '{')
		}
		for c := range cols {
			buf = cols[c].append(buf, i)
		}
		buf = append(buf, '}', '\n')
		if len(buf) >= flushAt {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// textKind marks a column written through kernel.TextOf.
const textKind Type = "text"

// colWriter appends one column's values, each after its key.
type colWriter struct {
	key    []byte // `,"name":` (or `{"name":` for the first column)
	kind   Type
	valid  []byte
	off    int
	ints   []int64
	floats []float64
	bools  *array.Boolean
	strs   kernel.Strings
	// text writes the other types (kernel.TextOf): narrow numbers and
	// decimals as JSON numbers, dates, timestamps and durations as strings.
	text   func(dst []byte, i int) []byte
	quoted bool
}

func newColWriter(name string, a arrow.Array) (colWriter, error) {
	cw := colWriter{}
	cw.valid, cw.off = kernel.Validity(a)
	switch {
	case a.DataType().ID() == arrow.INT64:
		cw.kind, cw.ints = Int64, a.(*array.Int64).Int64Values()
	case a.DataType().ID() == arrow.FLOAT64:
		cw.kind, cw.floats = Float64, a.(*array.Float64).Float64Values()
	case a.DataType().ID() == arrow.FLOAT32: // NaN and infinities as null, as float64's
		cw.kind, cw.floats = Float64, kernel.Widen(a).(*array.Float64).Float64Values()
	case a.DataType().ID() == arrow.BOOL:
		cw.kind, cw.bools = Bool, a.(*array.Boolean)
	case kernel.IsString(a.DataType()) && (a.DataType().ID() == arrow.STRING || arrow.TypeEqual(a.DataType(), kernel.Dict)):
		cw.kind, cw.strs = String, kernel.StringsOf(a)
	case a.DataType().ID() == arrow.NULL: // every row null (Validity)
		cw.kind = textKind
	default:
		text, err := kernel.TextOf(a)
		if err != nil {
			return cw, fmt.Errorf("jsonl: column %s: cannot write type %s: %w", name, a.DataType(), err)
		}
		k, _ := kernel.KindOf(a.DataType())
		cw.kind, cw.text, cw.quoted = textKind, text, !k.Logical().Numeric // a date, a timestamp, a duration: a string
	}
	return cw, nil
}

func (c *colWriter) append(b []byte, i int) []byte {
	b = append(b, c.key...)
	if !kernel.IsValid(c.valid, c.off, i) {
		return append(b, "null"...)
	}
	switch c.kind {
	case Int64:
		return strconv.AppendInt(b, c.ints[i], 10)
	case Float64:
		return appendFloat(b, c.floats[i])
	case Bool:
		return strconv.AppendBool(b, c.bools.Value(i))
	case textKind:
		if c.quoted {
			return append(c.text(append(b, '"'), i), '"')
		}
		return c.text(b, i)
	}
	v := c.strs.Value(i)
	return appendString(b, unsafeBytes(v))
}

// unsafeBytes views s as bytes without copying; they must not be changed.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// appendFloat writes f as encoding/json does (plain decimals between 1e-6
// and 1e21, exponents outside), plus ".0" on whole numbers.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json writes it
		if n := len(b); n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
		return b
	}
	for _, c := range b[start:] {
		if c == '.' {
			return b
		}
	}
	return append(b, '.', '0')
}

// escapes marks the bytes a JSON string cannot hold as they are (control
// characters, the quote, the backslash) and the non-ASCII bytes, which are
// checked for valid UTF-8.
var escapes = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string.
func appendString(b []byte, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if !escapes[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s[i:])
			if r != utf8.RuneError || size > 1 {
				i += size
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
