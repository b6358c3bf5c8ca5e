package kernel

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
)

// DateField is a part of a date or a time of day.
type DateField uint8

const (
	Year DateField = iota
	Quarter
	Month
	Day
	Hour
	Minute
	Second
	Weekday   // ISO: Monday 1 ... Sunday 7, as Polars
	DayOfYear // 1 ... 366
)

var dateFieldNames = [...]string{"year", "quarter", "month", "day", "hour", "minute", "second", "weekday", "day_of_year"}

func (f DateField) String() string { return dateFieldNames[f] }

// OfTime reports whether f is a part of the time of day, which dates lack.
func (f DateField) OfTime() bool { return f >= Hour && f <= Second }

// DateFields extracts f from each of a date32 column's days. Year, month
// and day come from a table of the days of 1900 to 2099 (one load each);
// other days, and the other fields, are computed.
func DateFields(days []int32, f DateField) []int32 {
	out := make([]int32, len(days))
	table := civilTable()
	switch shift, mask := packedField(f); f {
	case Year, Month, Day:
		table := table[:tableDays]
		out := out[:len(days)]
		for i, d := range days {
			j := uint(d - tableFirstDay)
			if j >= tableDays {
				out[i] = dayField(int64(d), f)
				continue
			}
			out[i] = int32(table[j] >> shift & mask)
		}
	default:
		for i, d := range days {
			out[i] = dayField(int64(d), f)
		}
	}
	return out
}

// packedField is where f sits in the table's packed dates; mask 0 where it
// is not there.
func packedField(f DateField) (shift, mask uint32) {
	switch f {
	case Year:
		return 9, 0x7fffff
	case Month:
		return 5, 0xf
	case Day:
		return 0, 0x1f
	}
	return 0, 0
}

// tableFirstDay is 1900-01-01 in days since 1970; the table runs to
// 2099-12-31.
const (
	tableFirstDay = -25567
	tableDays     = 73049
)

var (
	civilOnce sync.Once
	civilDays []uint32 // per day: year<<9 | month<<5 | day
)

// civilTable is the packed date of each day of the table's span.
func civilTable() []uint32 {
	civilOnce.Do(func() {
		civilDays = make([]uint32, tableDays)
		for i := range civilDays {
			y, m, d := civil(int64(i + tableFirstDay))
			civilDays[i] = uint32(y)<<9 | uint32(m)<<5 | uint32(d)
		}
	})
	return civilDays
}

// dayField is a date field of a day that is not Year, Month or Day's fast
// loops.
func dayField(d int64, f DateField) int32 {
	switch f {
	case Year, Month, Day, Quarter, DayOfYear:
		y, m, dd := civil(d)
		switch f {
		case Year:
			return int32(y)
		case Month:
			return int32(m)
		case Day:
			return int32(dd)
		case Quarter:
			return int32((m + 2) / 3)
		}
		return int32(d - DaysFromCivil(y, 1, 1) + 1)
	case Weekday:
		return int32(floorMod(d+3, 7) + 1) // 1970-01-01 was a Thursday
	}
	return 0 // a date's time of day is midnight
}

// civil is CivilFromDays for days within ±5.8 million years of 1970, where
// the era arithmetic never meets a negative operand: the compiler turns its
// divisions by constants into multiplications.
func civil(days int64) (year, month, day int64) {
	z := uint64(days + 719468 + 146097*4000)
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = int64(doy - (153*mp+2)/5 + 1)
	month = int64(mp + 3)
	if mp >= 10 {
		month -= 12
	}
	year = int64(yoe+era*400) - 400*4000
	if month <= 2 {
		year++
	}
	return year, month, day
}

// TimeFields extracts f from each of a timestamp column's values, in unit u,
// read as wall-clock time in loc. A date part is worked out once per day
// the values enter (values near one another share their day), so a run of
// one day's values costs a comparison each.
func TimeFields(vals []int64, u arrow.TimeUnit, loc *time.Location, f DateField) []int32 {
	out := make([]int32, len(vals))
	out = out[:len(vals)]
	per := UnitsPerSecond(u)
	perDay := per * 86400
	z := newZoneShift(loc, u)
	var dayStart, dayEnd int64 = 1, 0 // the day last entered: none yet
	var dayValue int32
	if !f.OfTime() && loc == time.UTC { // one unsigned comparison a value
		start := int64(math.MinInt64) // no day entered yet
		for i, v := range vals {
			if uint64(v-start) >= uint64(perDay) {
				days := floorDiv(v, perDay)
				start, dayValue = days*perDay, dateField(days, f)
			}
			out[i] = dayValue
		}
		return out
	}
	if !f.OfTime() {
		for i, v := range vals {
			if v = z.shift(v); v < dayStart || v >= dayEnd {
				days := floorDiv(v, perDay)
				dayStart, dayEnd = days*perDay, days*perDay+perDay
				dayValue = dateField(days, f)
			}
			out[i] = dayValue
		}
		return out
	}
	for i, v := range vals {
		if v = z.shift(v); v < dayStart || v >= dayEnd {
			days := floorDiv(v, perDay)
			dayStart, dayEnd = days*perDay, days*perDay+perDay
		}
		sec := (v - dayStart) / per
		switch f {
		case Hour:
			out[i] = int32(sec / 3600)
		case Minute:
			out[i] = int32(sec / 60 % 60)
		default:
			out[i] = int32(sec % 60)
		}
	}
	return out
}

// dateField is f of a day: from the table where it holds the day and f.
func dateField(days int64, f DateField) int32 {
	shift, mask := packedField(f)
	if j := uint64(days - tableFirstDay); mask != 0 && j < tableDays {
		return int32(civilTable()[j] >> shift & mask)
	}
	return dayField(days, f)
}

// zoneShift shifts instants (in unit u) by loc's offset from UTC at each,
// so that their wall clock reads as UTC. It remembers the span over which
// the offset holds (time.ZoneBounds), so that values near one another look
// the zone up once; in UTC the span is everything.
type zoneShift struct {
	loc             *time.Location
	u               arrow.TimeUnit
	start, end, off int64
}

func newZoneShift(loc *time.Location, u arrow.TimeUnit) *zoneShift {
	z := &zoneShift{loc: loc, u: u, start: 1} // an empty span
	if loc == time.UTC {
		z.start, z.end = math.MinInt64, math.MaxInt64
	}
	return z
}

func (z *zoneShift) shift(v int64) int64 {
	if v < z.start || v >= z.end {
		z.lookup(v)
	}
	return v + z.off
}

func (z *zoneShift) lookup(v int64) {
	t := ToTime(v, z.u).In(z.loc)
	_, o := t.Zone()
	z.off = int64(o) * UnitsPerSecond(z.u)
	s, e := t.ZoneBounds()
	z.start, z.end = math.MinInt64, math.MaxInt64
	if !s.IsZero() {
		z.start = FromTime(s, z.u)
	}
	if !e.IsZero() {
		z.end = FromTime(e, z.u)
	}
}

// unlocalize turns wall-clock values of loc (as localizer gives them) back
// into instants, as time.Date resolves a wall-clock time in loc.
func unlocalize(loc *time.Location, u arrow.TimeUnit) func(int64) int64 {
	if loc == time.UTC {
		return func(v int64) int64 { return v }
	}
	return func(v int64) int64 {
		w := ToTime(v, u)
		return FromTime(time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc), u)
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// Every is a truncation step: a fixed length of time (in nanoseconds) or a
// number of calendar months.
type Every struct {
	Nanos  int64
	Months int64
}

// ParseEvery reads a step as Polars writes it: a number and a unit, ns us ms
// s m h d w mo q y ("15m", "1h", "1d", "1w", "1mo", "1q", "1y"); the parts
// add up ("1h30m").
func ParseEvery(s string) (Every, error) {
	var e Every
	rest := s
	if rest == "" {
		return e, fmt.Errorf("empty step: write a number and a unit, such as 1h, 1d or 1mo")
	}
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		n, err := strconv.ParseInt(rest[:i], 10, 64)
		if err != nil || n <= 0 {
			return Every{}, fmt.Errorf("step %q: want a positive number before each unit", s)
		}
		rest = rest[i:]
		j := 0
		for j < len(rest) && (rest[j] < '0' || rest[j] > '9') {
			j++
		}
		unit := rest[:j]
		rest = rest[j:]
		switch unit {
		case "ns":
			e.Nanos += n
		case "us":
			e.Nanos += n * 1e3
		case "ms":
			e.Nanos += n * 1e6
		case "s":
			e.Nanos += n * 1e9
		case "m":
			e.Nanos += n * 60e9
		case "h":
			e.Nanos += n * 3600e9
		case "d":
			e.Nanos += n * 86400e9
		case "w":
			e.Nanos += n * 7 * 86400e9
		case "mo":
			e.Months += n
		case "q":
			e.Months += 3 * n
		case "y":
			e.Months += 12 * n
		default:
			return Every{}, fmt.Errorf("step %q: unknown unit %q; the units are ns, us, ms, s, m, h, d, w, mo, q and y", s, unit)
		}
	}
	if e.Nanos != 0 && e.Months != 0 {
		return Every{}, fmt.Errorf("step %q: mixes months with a fixed length", s)
	}
	return e, nil
}

// mondayOffset aligns weeks to Mondays: 1970-01-05 was one.
const mondayOffset = 4

// TruncateDays floors each date to the start of its step: weeks start on
// Monday, months and years on their first day; other steps count from
// 1970-01-01. A step of less than a day leaves dates as they are.
func TruncateDays(days []int32, e Every) []int32 {
	out := make([]int32, len(days))
	for i, d := range days {
		out[i] = int32(truncateDay(int64(d), e))
	}
	return out
}

func truncateDay(d int64, e Every) int64 {
	if e.Months > 0 {
		y, m, _ := civil(d)
		months := y*12 + m - 1
		months = floorDiv(months, e.Months) * e.Months
		return DaysFromCivil(floorDiv(months, 12), floorMod(months, 12)+1, 1)
	}
	step := e.Nanos / 86400e9
	if step <= 1 {
		return d
	}
	if e.Nanos%(7*86400e9) == 0 {
		return floorDiv(d-mondayOffset, step)*step + mondayOffset
	}
	return floorDiv(d, step) * step
}

// TruncateTimes floors each timestamp (unit u, wall clock in loc) to the
// start of its step. The start keeps the value's offset from UTC where that
// names it (the hour 01:30 EST floors to is 01:00 EST, not the 01:00 EDT an
// hour before, when clocks go back); otherwise (a day that began in summer
// time) the zone says which instant the wall clock is.
func TruncateTimes(vals []int64, u arrow.TimeUnit, loc *time.Location, e Every) []int64 {
	out := make([]int64, len(vals))
	per := UnitsPerSecond(u)
	perDay := per * 86400
	z, back := newZoneShift(loc, u), unlocalize(loc, u)
	step := e.Nanos / (int64(time.Second) / per)
	if e.Months == 0 && step <= 0 {
		step = 1 // a step finer than the unit
	}
	for i, v := range vals {
		w := z.shift(v)
		off := w - v
		switch {
		case e.Months > 0 || e.Nanos%(7*86400e9) == 0 && e.Nanos > 0:
			w = truncateDay(floorDiv(w, perDay), e) * perDay
		default:
			w = floorDiv(w, step) * step
		}
		if same := w - off; z.shift(same) == w {
			out[i] = same
		} else {
			out[i] = back(w)
		}
	}
	return out
}

// AddMonths moves each date by n calendar months, clamping the day to the
// last of a shorter month (Jan 31 + 1 month is Feb 28 or 29), as pandas'
// DateOffset and Polars do.
func AddMonths(days int64, n int64) int64 {
	y, m, d := civil(days)
	months := y*12 + m - 1 + n
	y, m = floorDiv(months, 12), floorMod(months, 12)+1
	last := DaysFromCivil(y+m/12, m%12+1, 1) - DaysFromCivil(y, m, 1)
	return DaysFromCivil(y, m, min(d, last))
}

// AddMonthsTimes moves timestamps (unit u, wall clock in loc) by n months,
// keeping their time of day.
func AddMonthsTimes(vals []int64, u arrow.TimeUnit, loc *time.Location, n int64) []int64 {
	out := make([]int64, len(vals))
	perDay := UnitsPerSecond(u) * 86400
	z, back := newZoneShift(loc, u), unlocalize(loc, u)
	for i, v := range vals {
		w := z.shift(v)
		d := floorDiv(w, perDay)
		out[i] = back(AddMonths(d, n)*perDay + (w - d*perDay))
	}
	return out
}

// ParseDate reads a date as 2006-01-02 (ISO 8601) into days since
// 1970-01-01.
func ParseDate(s string) (int64, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a date in the form 2006-01-02", s)
	}
	return floorDiv(t.Unix(), 86400), nil
}

// isoLayouts are the ISO 8601 forms ParseTime tries when given no layout.
var isoLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02",
}

// ParseTime reads s with a Go layout, or with "" as ISO 8601 (a date, a
// date and time with a T or a space, with or without fractions and an
// offset); ok is false where it does not parse.
func ParseTime(s, layout string) (time.Time, bool) {
	if layout != "" {
		t, err := time.Parse(layout, s)
		return t, err == nil
	}
	for _, l := range isoLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
