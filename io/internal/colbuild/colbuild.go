// Package colbuild owns what the readers that build Arrow columns row by
// row share: the column model of the text formats (Type, Column and Schema,
// which io/csv and io/jsonl export as their own), the typed values of a
// column being built (Values) and the validity bitmap made from its list of
// null rows, and the digit scanning and exact powers of ten behind the
// decimal fast paths.
//
// Must never import: anything of Dusk but internal/kernel and internal/alloc.
package colbuild

import (
	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// Type is a column's type.
type Type string

// The column types text values parse into.
const (
	Int64   Type = "int64"
	Float64 Type = "float64"
	String  Type = "string"
	Bool    Type = "bool"
)

// Valid reports whether t is one of the four types text parses into as it
// is scanned, or another type kernels take, named as Arrow names it
// ("int32", "date32", "timestamp[us, tz=UTC]", "decimal(15, 2)"), which a
// reader parses as text and converts (Logical).
func (t Type) Valid() bool {
	if t.Scanned() {
		return true
	}
	_, ok := t.Logical()
	return ok
}

// Normal is t with the Arrow names of the four scanned types ("utf8")
// as their own ("string").
func (t Type) Normal() Type {
	if typ, err := kernel.ParseType(string(t)); err == nil {
		switch typ.ID() {
		case arrow.STRING:
			return String
		case arrow.INT64:
			return Int64
		case arrow.FLOAT64:
			return Float64
		case arrow.BOOL:
			return Bool
		}
	}
	return t
}

// Scanned reports whether t is one of the four types parsed as scanned.
func (t Type) Scanned() bool { return t == Int64 || t == Float64 || t == String || t == Bool }

// Logical is the Arrow type of a type read as text and then converted
// (kernel.ParseText); false for the scanned types and unknown names.
func (t Type) Logical() (arrow.DataType, bool) {
	if t.Scanned() {
		return nil, false
	}
	typ, err := kernel.ParseType(string(t))
	if err != nil {
		return nil, false
	}
	if _, err := kernel.KindOf(typ); err != nil || typ.ID() == arrow.NULL {
		return nil, false
	}
	return typ, true
}

// Arrow is the column type a reader builds for t: a logical type plain
// (dictionary strings as strings), a scanned type its own.
func (t Type) Arrow() arrow.DataType {
	if logical, ok := t.Logical(); ok {
		return kernel.PlainType(logical)
	}
	switch t {
	case Int64:
		return kernel.Int64
	case Float64:
		return kernel.Float64
	case Bool:
		return kernel.Bool
	}
	return kernel.String
}

// Column is a named, typed column.
type Column struct {
	Name string `json:"name"`
	Type Type   `json:"type"`
	// Dictionary encodes a string column as indices into its distinct
	// values, for columns with few of them (Infer decides from its sample).
	Dictionary bool `json:"dict,omitempty"`
	// Layout is the Go layout of a date or timestamp column's text; ""
	// for ISO 8601.
	Layout string `json:"layout,omitempty"`
}

// Schema is a file's columns, in order.
type Schema []Column

// Arrow is the schema a reader builds records of (every field nullable).
func (s Schema) Arrow() *arrow.Schema {
	fields := make([]arrow.Field, len(s))
	for i, c := range s {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// Names lists the column names.
func (s Schema) Names() []string {
	names := make([]string, len(s))
	for i, c := range s {
		names[i] = c.Name
	}
	return names
}

// Values is a column being built row by row: Kind says which slice holds
// its values, each written at its row's index, and Nulls lists its null
// rows, from which Validity makes the bitmap at the end, so that valid rows
// cost nothing. A string column's values are its parser's own.
type Values struct {
	Kind   Type
	Ints   []int64
	Floats []float64
	Bools  []uint8 // 0 or 1
	Nulls  []int32
}

// Make sizes the slice of Kind for rows rows, and reports whether Kind has
// one here: false for a string column.
func (v *Values) Make(rows int) bool {
	switch v.Kind {
	case Int64:
		v.Ints = make([]int64, rows)
	case Float64:
		v.Floats = make([]float64, rows)
	case Bool:
		v.Bools = make([]uint8, rows)
	default:
		return false
	}
	return true
}

// Array returns the first rows values, with the validity bitmap valid, as
// an array that the caller owns: nil where Make reported false.
func (v *Values) Array(rows int, valid []byte) arrow.Array {
	switch v.Kind {
	case Int64:
		return kernel.NewInt64(v.Ints[:rows], valid)
	case Float64:
		return kernel.NewFloat64(v.Floats[:rows], valid)
	case Bool:
		return kernel.NewBool(v.Bools[:rows], valid)
	}
	return nil
}

// Validity makes the bitmap of rows rows in which the listed ones are null:
// nil when none is.
func Validity(nulls []int32, rows int) []byte {
	if len(nulls) == 0 {
		return nil
	}
	bits := make([]byte, (rows+7)/8)
	for i := range bits {
		bits[i] = 0xff
	}
	for _, r := range nulls {
		bits[r>>3] &^= 1 << (r & 7)
	}
	return bits
}

// Pow10 holds the powers of ten that float64 represents exactly: a decimal
// of at most 15 digits divided by one of them rounds correctly (Clinger's
// fast path). It is read only.
var Pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Digits reads the decimal digits at b[i:] into v, as v*10+digit each
// (wrapping: the caller bounds their count), and returns v and the index
// after the last digit.
func Digits(b []byte, i int, v uint64) (uint64, int) {
	for i < len(b) {
		x := b[i] - '0'
		if x > 9 {
			break
		}
		v = v*10 + uint64(x)
		i++
	}
	return v, i
}

// TimeFit is what a reader's sample says of a column's text values: whether
// all are ISO 8601 dates (2006-01-02), or all dates and times, with an
// offset or all without.
type TimeFit struct {
	notDate, notTime, zoned, naive bool
}

// SeeTime adds one text value to what fit has seen.
func SeeTime(v []byte, fit *TimeFit) {
	if !fit.notDate && !isISODate(v) {
		fit.notDate = true
	}
	if !fit.notTime {
		switch {
		case !isISOTime(v):
			fit.notTime = true
		case hasZone(v):
			fit.zoned = true
		default:
			fit.naive = true
		}
	}
}

// NotTime records a value that is no text at all (a number, an object).
func (fit *TimeFit) NotTime() { fit.notDate, fit.notTime = true, true }

// Type is the column's type by the values seen: date32, timestamp[us]
// (tz=UTC where every value has an offset), or "" for text.
func (fit *TimeFit) Type() Type {
	switch {
	case !fit.notDate:
		return "date32"
	case !fit.notTime && fit.zoned && !fit.naive:
		return "timestamp[us, tz=UTC]"
	case !fit.notTime && !fit.zoned:
		return "timestamp[us]"
	}
	return ""
}

// isISODate reports whether v is a date written 2006-01-02.
func isISODate(v []byte) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	_, err := kernel.ParseDate(string(v))
	return err == nil
}

// isISOTime reports whether v is an ISO 8601 date and time (a T or a space
// between them).
func isISOTime(v []byte) bool {
	if len(v) < 16 || v[4] != '-' || v[7] != '-' || v[10] != 'T' && v[10] != ' ' {
		return false
	}
	_, ok := kernel.ParseTime(string(v), "")
	return ok
}

// hasZone reports whether an ISO 8601 time ends with Z or an offset.
func hasZone(v []byte) bool {
	n := len(v)
	return v[n-1] == 'Z' || n > 19 && (v[n-6] == '+' || v[n-6] == '-') && v[n-3] == ':'
}
