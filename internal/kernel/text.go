package kernel

import (
	"fmt"
	"strconv"
	"time"

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
