package kernel

// A column's values as text and back, for every type: TextOf writes them
// as writers and printed tables show them, ParseText reads them as the text
// readers and casts from strings give them.

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
)

// TextOf returns what appends row i of a non-string column as text, as
// writers (CSV, hive directories) and printed tables show it: integers and
// floats as Go formats them shortest, dates as 2006-01-02, timestamps in
// ISO 8601 with their unit's digits (and Z or the zone's offset where the
// type has a time zone), durations as Go's time.Duration, decimals exactly
// with their scale's digits. Nulls are the caller's to handle.
func TextOf(a arrow.Array) (func(dst []byte, i int) []byte, error) {
	if k, err := KindOf(a.DataType()); err != nil || k == KindString || k == KindNull {
		return nil, fmt.Errorf("no text form for %s", a.DataType())
	}
	switch t := a.DataType().(type) {
	case *arrow.Date32Type:
		v := FixedValues[int32](a)
		return func(dst []byte, i int) []byte { return AppendDate(dst, int64(v[i])) }, nil
	case *arrow.TimestampType:
		v := FixedValues[int64](a)
		loc, err := Location(t.TimeZone)
		if err != nil {
			return nil, err
		}
		layout := [...]string{"2006-01-02T15:04:05", "2006-01-02T15:04:05.000", "2006-01-02T15:04:05.000000", "2006-01-02T15:04:05.000000000"}[t.Unit]
		if t.TimeZone != "" {
			layout += "Z07:00"
		}
		return func(dst []byte, i int) []byte { return ToTime(v[i], t.Unit).In(loc).AppendFormat(dst, layout) }, nil
	case *arrow.DurationType:
		v := FixedValues[int64](a)
		per := int64(time.Second) / UnitsPerSecond(t.Unit)
		return func(dst []byte, i int) []byte { return append(dst, time.Duration(v[i]*per).String()...) }, nil
	case *arrow.Decimal128Type:
		v := FixedValues[decimal128.Num](a)
		return func(dst []byte, i int) []byte { return append(dst, v[i].ToString(t.Scale)...) }, nil
	case *arrow.Float32Type:
		v := FixedValues[float32](a)
		return func(dst []byte, i int) []byte { return strconv.AppendFloat(dst, float64(v[i]), 'g', -1, 32) }, nil
	case *arrow.Uint64Type:
		v := FixedValues[uint64](a)
		return func(dst []byte, i int) []byte { return strconv.AppendUint(dst, v[i], 10) }, nil
	}
	switch w := Widen(a).(type) {
	case interface{ Int64Values() []int64 }:
		v := w.Int64Values()
		return func(dst []byte, i int) []byte { return strconv.AppendInt(dst, v[i], 10) }, nil
	case interface{ Float64Values() []float64 }:
		v := w.Float64Values()
		return func(dst []byte, i int) []byte { return strconv.AppendFloat(dst, v[i], 'g', -1, 64) }, nil
	case interface{ Value(int) bool }:
		return func(dst []byte, i int) []byte { return strconv.AppendBool(dst, w.Value(i)) }, nil
	}
	return nil, fmt.Errorf("no text form for %s", a.DataType())
}

// Location loads a time zone by its IANA name ("" and "UTC" are UTC; fixed
// offsets such as "+05:30" are accepted too), naming it when unknown.
func Location(tz string) (*time.Location, error) {
	switch tz {
	case "", "UTC", "Z", "utc":
		return time.UTC, nil
	}
	if len(tz) == 6 && (tz[0] == '+' || tz[0] == '-') && tz[3] == ':' {
		h, err1 := strconv.Atoi(tz[1:3])
		m, err2 := strconv.Atoi(tz[4:])
		if err1 == nil && err2 == nil && h <= 23 && m <= 59 {
			off := (h*60 + m) * 60
			if tz[0] == '-' {
				off = -off
			}
			return time.FixedZone(tz, off), nil
		}
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: use an IANA name such as Europe/Paris, or an offset such as +05:30", tz)
	}
	return loc, nil
}

// ToTime is the instant v units after the epoch.
func ToTime(v int64, u arrow.TimeUnit) time.Time {
	per := UnitsPerSecond(u)
	sec, frac := v/per, v%per
	if frac < 0 {
		sec, frac = sec-1, frac+per
	}
	return time.Unix(sec, frac*(int64(time.Second)/per)).UTC()
}

// FromTime is t in units since the epoch.
func FromTime(t time.Time, u arrow.TimeUnit) int64 {
	per := UnitsPerSecond(u)
	return t.Unix()*per + int64(t.Nanosecond())/(int64(time.Second)/per)
}

// AppendDate appends the date days after 1970-01-01 as 2006-01-02.
func AppendDate(dst []byte, days int64) []byte {
	y, m, d := CivilFromDays(days)
	if y < 0 || y > 9999 {
		return append(dst, time.Unix(days*86400, 0).UTC().Format("2006-01-02")...)
	}
	return append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
}

// CivilFromDays is the proleptic Gregorian year, month and day of the date
// days after 1970-01-01 (Howard Hinnant's days_from_civil, inverted): a few
// multiplications, no table, no branch on the month.
func CivilFromDays(days int64) (year, month, day int64) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365]
	mp := (5*doy + 2) / 153                                // [0, 11], from March
	day = doy - (153*mp+2)/5 + 1
	month = mp + 3
	if month > 12 {
		month -= 12
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

// DaysFromCivil is the number of days from 1970-01-01 to the given date.
func DaysFromCivil(year, month, day int64) int64 {
	if month <= 2 {
		year--
	}
	era := year / 400
	if year < 0 && year%400 != 0 {
		era--
	}
	yoe := year - era*400
	mp := (month + 9) % 12
	doy := (153*mp+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// ParseError is a text value that does not parse as its column's type.
type ParseError struct {
	Row   int
	Value string
	To    arrow.DataType
	How   string // what the text should look like
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("row %d: %q is not a %s%s", e.Row, e.Value, TypeName(e.To), e.How)
}

// ParseText parses a string column into type to: any integer width (with
// its range checked), float32 or float64, bool, a date (2006-01-02), a
// timestamp (ISO 8601, or the Go layout given; a text without an offset is
// a wall-clock time in the type's zone), a duration (a count of its unit,
// or Go's form: 1m30s, as TextOf writes it), or a decimal (its scale's digits,
// more rounded half away from zero). Strict, a value that does not parse is
// a *ParseError; lenient, it becomes null.
func ParseText(a arrow.Array, to arrow.DataType, layout string, strict bool) (arrow.Array, error) {
	s := StringsOf(a)
	n := a.Len()
	valid := Col(a).validBytes(n)
	var loc *time.Location
	if t, ok := to.(*arrow.TimestampType); ok {
		var err error
		if loc, err = Location(t.TimeZone); err != nil {
			return nil, err
		}
	}
	parse := textParser(to, layout, loc)
	if parse == nil {
		return nil, fmt.Errorf("cannot parse text as %s", to)
	}
	out := make([]uint64, n)
	how := map[arrow.Type]string{arrow.DATE32: " date (2006-01-02)", arrow.TIMESTAMP: " timestamp (ISO 8601)", arrow.DECIMAL128: " decimal"}[to.ID()]
	if layout != "" && (to.ID() == arrow.DATE32 || to.ID() == arrow.TIMESTAMP) {
		how = fmt.Sprintf(" in the layout %q", layout)
	}
	var wide []decimal128.Num
	if to.ID() == arrow.DECIMAL128 {
		wide = make([]decimal128.Num, n)
	}
	for i := range out {
		if valid != nil && valid[i] == 0 {
			continue
		}
		b := s.bytesOf(i)
		v, ok := parse(b)
		if ok && wide != nil {
			wide[i] = decimal128.FromI64(int64(v))
		}
		if !ok && wide != nil {
			wide[i], ok = parseWideDecimal(b, to.(*arrow.Decimal128Type))
		}
		if !ok {
			if strict {
				return nil, &ParseError{Row: i, Value: string(b), To: to, How: how}
			}
			valid = ones(valid, n)
			valid[i] = 0
			continue
		}
		out[i] = v
	}
	if wide != nil {
		return NewFixed(to, wide, packValid(valid)), nil
	}
	return fromBits(to, out, packValid(valid)), nil
}

// textParser returns what parses one value as to's bits (an int64, a
// float's bits, a bool, days, a time in its unit, an unscaled decimal of up
// to 18 digits), or nil for a type text does not parse into.
func textParser(to arrow.DataType, layout string, loc *time.Location) func([]byte) (uint64, bool) {
	switch t := to.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		bits := t.(arrow.FixedWidthDataType).BitWidth()
		return func(b []byte) (uint64, bool) {
			v, ok := parseInt(b)
			return uint64(v), ok && v >= -1<<(bits-1) && v <= 1<<(bits-1)-1
		}
	case *arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type:
		bits := t.(arrow.FixedWidthDataType).BitWidth()
		return func(b []byte) (uint64, bool) {
			v, err := strconv.ParseUint(view(b), 10, bits)
			return v, err == nil
		}
	case *arrow.Float32Type:
		return func(b []byte) (uint64, bool) {
			v, err := strconv.ParseFloat(view(b), 32)
			return uint64(math.Float32bits(float32(v))), err == nil
		}
	case *arrow.Float64Type:
		return func(b []byte) (uint64, bool) {
			v, err := strconv.ParseFloat(view(b), 64)
			return math.Float64bits(v), err == nil
		}
	case *arrow.BooleanType:
		return func(b []byte) (uint64, bool) {
			switch string(b) {
			case "true", "True", "TRUE", "1":
				return 1, true
			case "false", "False", "FALSE", "0":
				return 0, true
			}
			return 0, false
		}
	case *arrow.Date32Type:
		if layout == "" {
			layout = "2006-01-02"
		}
		return func(b []byte) (uint64, bool) {
			tm, err := time.Parse(layout, view(b))
			if err != nil {
				return 0, false
			}
			_, off := tm.Zone()
			return uint64(floorDiv(tm.Unix()+int64(off), 86400)), true
		}
	case *arrow.TimestampType:
		return func(b []byte) (uint64, bool) {
			tm, ok := ParseTime(view(b), layout)
			if !ok {
				return 0, false
			}
			if _, off := tm.Zone(); off == 0 && tm.Location() == time.UTC && loc != time.UTC && !textHasOffset(b) {
				tm = time.Date(tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), loc)
			}
			return uint64(FromTime(tm, t.Unit)), true
		}
	case *arrow.DurationType:
		per := int64(time.Second) / UnitsPerSecond(t.Unit)
		return func(b []byte) (uint64, bool) {
			if v, ok := parseInt(b); ok {
				return uint64(v), true // a count of the unit, as other writers hold it
			}
			d, err := time.ParseDuration(view(b)) // as TextOf writes it: 1m30s
			return uint64(int64(d) / per), err == nil && int64(d)%per == 0
		}
	case *arrow.Decimal128Type:
		return func(b []byte) (uint64, bool) {
			v, ok := parseDecimal(b, t.Scale)
			return uint64(v), ok && t.Precision <= 18 && v < Pow10(t.Precision) && v > -Pow10(t.Precision)
		}
	}
	return nil
}

// view reads b as a string without copying, for parsers that keep nothing
// of it but in an error, which the callers drop.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// textHasOffset reports whether an ISO 8601 text ends with Z or an offset.
func textHasOffset(b []byte) bool {
	n := len(b)
	return n > 10 && (b[n-1] == 'Z' || n > 16 && (b[n-6] == '+' || b[n-6] == '-') && b[n-3] == ':')
}

// parseDecimal reads an optionally signed decimal number as an unscaled
// int64 at scale, rounding extra digits half away from zero.
func parseDecimal(b []byte, scale int32) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	var v int64
	frac := int32(-1) // digits after the point; -1 before it
	digits, up, extra := 0, false, false
	for _, c := range b {
		if c == '.' {
			if frac >= 0 {
				return 0, false
			}
			frac = 0
			continue
		}
		if c < '0' || c > '9' {
			return 0, false
		}
		digits++
		if frac >= scale { // past the scale's digits: the first rounds
			if !extra {
				up, extra = c >= '5', true
			}
			continue
		}
		if frac >= 0 {
			frac++
		}
		if v > (math.MaxInt64-9)/10 {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if digits == 0 {
		return 0, false
	}
	for frac = max(frac, 0); frac < scale; frac++ {
		if v > math.MaxInt64/10 {
			return 0, false
		}
		v *= 10
	}
	if up {
		v++
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseWideDecimal reads a decimal of more than 18 digits exactly.
func parseWideDecimal(b []byte, t *arrow.Decimal128Type) (decimal128.Num, bool) {
	v, err := decimal128.FromString(string(b), t.Precision, t.Scale)
	return v, err == nil
}

// fromBits makes a column of type to from values held as 64-bit patterns.
func fromBits(to arrow.DataType, vals []uint64, valid []byte) arrow.Array {
	switch ByteWidth(to) {
	case 1:
		return NewFixed(to, narrowBits[uint8](vals), valid)
	case 2:
		return NewFixed(to, narrowBits[uint16](vals), valid)
	case 4:
		return NewFixed(to, narrowBits[uint32](vals), valid)
	case 8:
		return NewFixed(to, vals, valid)
	}
	bools := narrowBits[uint8](vals)
	return NewBool(bools, valid)
}

func narrowBits[T uint8 | uint16 | uint32](vals []uint64) []T {
	out := make([]T, len(vals))
	for i, v := range vals {
		out[i] = T(v)
	}
	return out
}
