package expr

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/internal/kernel"
)

// castCount casts a date, timestamp or duration to a number: the count of
// days or units it holds.
func castCount(col arrow.Array, to arrow.DataType, strict bool) (arrow.Array, error) {
	counts := kernel.Widen(col)
	defer counts.Release()
	if isKernelType(to) {
		return kernel.Cast(counts, KindOfType(to), strict)
	}
	return castNarrow(counts, to, strict)
}

// castNarrow casts to a narrow integer or float32 through int64 or
// float64; an integer out of the target's range does not convert.
func castNarrow(col arrow.Array, to arrow.DataType, strict bool) (arrow.Array, error) {
	if to.ID() == arrow.FLOAT32 {
		wide, err := kernel.Cast(col, kernel.KindFloat, strict)
		if err != nil {
			return nil, err
		}
		defer wide.Release()
		vals := wide.(*array.Float64).Float64Values()
		out := make([]float32, len(vals))
		for i, v := range vals {
			out[i] = float32(v)
		}
		return kernel.NewFixed(to, out, kernel.AlignedValid(wide)), nil
	}
	wide, err := kernel.Cast(col, kernel.KindInt, strict)
	if err != nil {
		return nil, err
	}
	defer wide.Release()
	lo, hi := intRange(to)
	vals := wide.(*array.Int64).Int64Values()
	valid := kernel.AlignedValid(wide)
	for i, v := range vals {
		if (v < lo || v > hi) && wide.IsValid(i) {
			if strict {
				return nil, fmt.Errorf("%d is out of the range of %s", v, to)
			}
			if valid == nil {
				valid = bytes.Repeat([]byte{0xff}, (len(vals)+7)/8)
			}
			valid[i>>3] &^= 1 << (i & 7)
		}
	}
	out, _ := kernel.FromInt64(to, vals, valid)
	return out, nil
}

// intRange is the least and greatest value of an integer type, as int64s
// (uint64's greatest is capped at int64's).
func intRange(t arrow.DataType) (lo, hi int64) {
	bits := uint(t.(arrow.FixedWidthDataType).BitWidth())
	if arrow.IsUnsignedInteger(t.ID()) {
		if bits == 64 {
			return 0, math.MaxInt64
		}
		return 0, 1<<bits - 1
	}
	return -1 << (bits - 1), 1<<(bits-1) - 1
}

// isKernelType reports whether t is one of the four types kernel.Cast
// makes.
func isKernelType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT64, arrow.FLOAT64, arrow.STRING, arrow.BOOL:
		return true
	}
	return false
}

func castFunctions() []*function {
	var out []*function
	for _, name := range []string{"cast", "try_cast"} {
		strict := name == "cast"
		out = append(out, &function{name: name, arity: 1, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				to, err := kernel.ParseType(c.n.Str[0])
				if err == nil {
					_, err = kernel.KindOf(to)
				}
				if err != nil {
					return nil, fmt.Errorf("%s: cannot cast to %s: %w", c.n, c.n.Str[0], err)
				}
				if _, err := CastRule(in[0], to); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", c.n, Describe(c.n.Args[0], in[0]), err)
				}
				return plainOf(to), nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				cast, err := CastRule(in[0].typ, c.out)
				if err != nil {
					return value{}, err
				}
				col, err := cast(Retype(c.array(in[0]), in[0].typ), c.out, strict)
				if err != nil {
					return value{}, fmt.Errorf("%s: %w", c.n, err)
				}
				return c.column(col), nil
			}})
	}
	return out
}

// castToText writes each value as kernel.TextOf does.
func castToText(col arrow.Array, _ arrow.DataType, _ bool) (arrow.Array, error) {
	text, err := kernel.TextOf(col)
	if err != nil {
		return nil, err
	}
	return buildText(col, func(dst []byte, i int) ([]byte, bool) { return text(dst, i), true }), nil
}

// buildText makes a string column of f over col's rows; nulls stay null.
func buildText(col arrow.Array, f func(dst []byte, i int) ([]byte, bool)) arrow.Array {
	n := col.Len()
	offs := make([]int32, n+1)
	var data []byte
	valid := make([]byte, (n+7)/8)
	for i := 0; i < n; i++ {
		if col.IsValid(i) {
			var ok bool
			if data, ok = f(data, i); ok {
				valid[i>>3] |= 1 << (i & 7)
			}
		}
		offs[i+1] = int32(len(data))
	}
	return kernel.NewString(offs, data, valid)
}

// castWideDecimal casts to a decimal of more than 18 digits, which has no
// int64 form: exactly from decimals and integers, from floats rounded to
// its scale; a value that does not fit fails (strict) or is null.
func castWideDecimal(col arrow.Array, td *arrow.Decimal128Type, strict bool) (arrow.Array, error) {
	var conv func(i int) (decimal128.Num, error)
	switch c := col.(type) {
	case *array.Decimal128:
		from := c.DataType().(*arrow.Decimal128Type).Scale
		conv = func(i int) (decimal128.Num, error) { return c.Value(i).Rescale(from, td.Scale) }
	case *array.Uint64:
		conv = func(i int) (decimal128.Num, error) { return decimal128.FromU64(c.Value(i)).Rescale(0, td.Scale) }
	default:
		switch w := kernel.Widen(col).(type) {
		case *array.Float64:
			conv = func(i int) (decimal128.Num, error) { return decimal128.FromFloat64(w.Value(i), td.Precision, td.Scale) }
		case *array.Int64:
			conv = func(i int) (decimal128.Num, error) { return decimal128.FromI64(w.Value(i)).Rescale(0, td.Scale) }
		default:
			return nil, fmt.Errorf("cannot cast %s to %s", TypeName(col.DataType()), TypeName(td))
		}
	}
	n := col.Len()
	out, valid := make([]decimal128.Num, n), make([]bool, n)
	for i := range out {
		if !col.IsValid(i) {
			continue
		}
		v, err := conv(i)
		if err != nil || !v.FitsInPrecision(td.Precision) {
			if strict {
				return nil, &kernel.CastError{Row: i, Value: valueText(col, i), To: kernel.KindDecimal}
			}
			continue
		}
		out[i], valid[i] = v, true
	}
	b := array.NewDecimal128Builder(memory.DefaultAllocator, td)
	defer b.Release()
	b.AppendValues(out, valid)
	return b.NewArray(), nil
}

// castDecimal converts among decimals, ints and floats.
func castDecimal(col arrow.Array, to arrow.DataType, strict bool) (arrow.Array, error) {
	from := col.DataType()
	fd, fromDec := from.(*arrow.Decimal128Type)
	td, toDec := to.(*arrow.Decimal128Type)
	if toDec && isWideDecimal(td) {
		return castWideDecimal(col, td, strict)
	}
	if !toDec {
		if fd.Precision > DecimalMaxPrecision || to.ID() == arrow.FLOAT64 {
			x := make([]float64, col.Len())
			for i := range x {
				x[i] = col.(*array.Decimal128).Value(i).ToFloat64(fd.Scale)
			}
			out := kernel.NewFloat64(x, kernel.AlignedValid(col))
			if to.ID() == arrow.FLOAT64 {
				return out, nil
			}
			return kernel.Cast(out, kernel.KindInt, strict)
		}
		div := kernel.Pow10(fd.Scale)
		return mapInts(intsOf(kernel.Col(col)), func(x int64) int64 { return x / div }).Array, nil
	}
	n := col.Len()
	out := make([]int64, n)
	valid := kernel.AlignedValid(col)
	limit := kernel.Pow10(min(td.Precision, DecimalMaxPrecision))
	var f func(i int) (int64, bool)
	switch {
	case fromDec && fd.Precision <= DecimalMaxPrecision:
		x := kernel.Widen(col).(*array.Int64).Int64Values()
		f = func(i int) (int64, bool) { return rescale(x[i], fd.Scale, td.Scale) }
	default:
		x, _ := kernel.Col(kernel.Widen(col)).Array.(*array.Float64)
		ints, _ := kernel.Col(kernel.Widen(col)).Array.(*array.Int64)
		mul := math.Pow10(int(td.Scale))
		f = func(i int) (int64, bool) {
			if ints != nil {
				return rescale(ints.Value(i), 0, td.Scale)
			}
			v := math.Round(x.Value(i) * mul)
			return int64(v), v > -0x1p63 && v < 0x1p63
		}
	}
	for i := range out {
		if !col.IsValid(i) {
			continue
		}
		v, ok := f(i)
		if !ok || v >= limit || v <= -limit {
			if strict {
				return nil, &kernel.CastError{Row: i, Value: valueText(col, i), To: kernel.KindDecimal}
			}
			if valid == nil {
				valid = allValid(n)
			}
			valid[i>>3] &^= 1 << (i & 7)
			continue
		}
		out[i] = v
	}
	return Retype(kernel.NewInt64(out, valid), to), nil
}

// rescale moves an unscaled value from scale a to scale b, rounding half
// away from zero when b is smaller; false where it overflows int64.
func rescale(v int64, a, b int32) (int64, bool) {
	switch {
	case b > a:
		m := kernel.Pow10(b - a)
		if v > math.MaxInt64/m || v < math.MinInt64/m {
			return 0, false
		}
		return v * m, true
	case b < a:
		m := kernel.Pow10(a - b)
		q, r := v/m, v%m
		if 2*r >= m {
			q++
		} else if 2*r <= -m {
			q--
		}
		return q, true
	}
	return v, true
}

func allValid(n int) []byte {
	v := make([]byte, (n+7)/8)
	for i := range v {
		v[i] = 0xff
	}
	return v
}

// valueText is row i as text, for errors.
func valueText(col arrow.Array, i int) string {
	if kernel.IsString(col.DataType()) {
		return strconv.Quote(kernel.StringsOf(col).Value(i))
	}
	if text, err := kernel.TextOf(col); err == nil {
		return string(text(nil, i))
	}
	return col.ValueStr(i)
}

// castDurations converts durations to another unit, floored where it is
// coarser (as a timestamp's unit converts).
func castDurations(col arrow.Array, to arrow.DataType, _ bool) (arrow.Array, error) {
	d := convertUnit(intsOf(kernel.Col(col)), col.DataType().(*arrow.DurationType).Unit, to.(*arrow.DurationType).Unit)
	return Retype(d.Array, to), nil
}

// castTimes converts between dates and timestamps: a date is midnight (in
// the timestamp's zone), a timestamp's date is that of its wall clock.
func castTimes(col arrow.Array, to arrow.DataType, _ bool) (arrow.Array, error) {
	if arrow.TypeEqual(col.DataType(), to) { // a date to a date: as it is (it crashed)
		col.Retain()
		return col, nil
	}
	vals := intsOf(kernel.Col(col)).Array.(*array.Int64).Int64Values()
	out := make([]int64, len(vals))
	switch from := col.DataType().(type) {
	case *arrow.Date32Type:
		t := to.(*arrow.TimestampType)
		loc, err := kernel.Location(t.TimeZone)
		if err != nil {
			return nil, err
		}
		for i, d := range vals {
			y, m, dd := kernel.CivilFromDays(d)
			out[i] = kernel.FromTime(time.Date(int(y), time.Month(m), int(dd), 0, 0, 0, 0, loc), t.Unit)
		}
	case *arrow.TimestampType:
		loc, err := kernel.Location(from.TimeZone)
		if err != nil {
			return nil, err
		}
		switch t := to.(type) {
		case *arrow.Date32Type:
			perDay := kernel.UnitsPerSecond(from.Unit) * 86400
			for i, v := range vals {
				w := kernel.ToTime(v, from.Unit).In(loc)
				_, off := w.Zone()
				out[i] = FloorDiv(v+int64(off)*kernel.UnitsPerSecond(from.Unit), perDay)
			}
		case *arrow.TimestampType:
			return Retype(convertUnit(kernel.Col(kernel.NewInt64(vals, kernel.AlignedValid(col))), from.Unit, t.Unit).Array, to), nil
		}
	}
	return Retype(kernel.NewInt64(out, kernel.AlignedValid(col)), to), nil
}
