package expr

import (
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/internal/kernel"
)

// Operands of different types meet in a common type before they are
// compared, chosen between or computed on, and the kernels then see each
// as its physical form: int64 for integers, decimals (unscaled, at the
// common scale), dates (days), timestamps and durations (in the common
// unit); float64 for floats; bool; strings. Retype turns a kernel's int64
// result back into the logical type.

// DecimalMaxPrecision is the widest decimal that computes exactly here: its
// unscaled values fit an int64.
const DecimalMaxPrecision = 18

func scaleOf(t arrow.DataType) int32 {
	if d, ok := t.(*arrow.Decimal128Type); ok {
		return d.Scale
	}
	return 0
}

// coerce gives v, of type from, in the physical form of type to (see the
// top of this file); it fails only for a string that does not parse as
// the date or timestamp it is compared with.
func coerce(c *evalCall, v value, to arrow.DataType) (kernel.Datum, error) {
	from := v.typ
	d := v.asDatum()
	if d.Array == nil && d.Scalar == nil {
		return d, nil // null
	}
	switch to := to.(type) {
	case *arrow.Float64Type:
		if dt, ok := from.(*arrow.Decimal128Type); ok {
			return scaled(d, func(x int64) float64 { return float64(x) / float64(kernel.Pow10(dt.Scale)) }, dt), nil
		}
		return d, nil // kernels read every other number as float64
	case *arrow.Decimal128Type:
		if mul := kernel.Pow10(to.Scale - scaleOf(from)); mul != 1 {
			return mapInts(intsOf(d), func(x int64) int64 { return x * mul }), nil
		}
		return intsOf(d), nil
	case *arrow.Date32Type:
		if s, ok := d.Scalar.(string); ok {
			days, err := kernel.ParseDate(s)
			return kernel.Scalar(days), err
		}
		return intsOf(d), nil
	case *arrow.TimestampType:
		per := kernel.UnitsPerSecond(to.Unit)
		switch from := from.(type) {
		case *arrow.StringType:
			t, ok := kernel.ParseTime(d.Scalar.(string), "")
			if !ok {
				return kernel.Datum{}, fmt.Errorf("%q is not a timestamp in ISO 8601 form", d.Scalar)
			}
			if loc, err := kernel.Location(to.TimeZone); err == nil && !hasOffset(d.Scalar.(string)) {
				t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
			}
			return kernel.Scalar(kernel.FromTime(t, to.Unit)), nil
		case *arrow.Date32Type:
			return mapInts(intsOf(d), func(x int64) int64 { return x * 86400 * per }), nil
		case *arrow.TimestampType:
			return convertUnit(intsOf(d), from.Unit, to.Unit), nil
		}
	case *arrow.DurationType:
		if from, ok := from.(*arrow.DurationType); ok {
			return convertUnit(intsOf(d), from.Unit, to.Unit), nil
		}
	}
	return d, nil
}

// isWideDecimal reports whether t is a decimal of more than 18 digits,
// which has no int64 form: its arithmetic is float64's, but a choice
// between values (when, coalesce) keeps them exact (wideDecimalOf).
func isWideDecimal(t arrow.DataType) bool {
	d, ok := t.(*arrow.Decimal128Type)
	return ok && d.Precision > DecimalMaxPrecision
}

// wideDecimalOf gives v (a decimal, an integer or null) as decimal128
// values at to's scale, exactly, or fails where one does not fit.
func wideDecimalOf(v value, to *arrow.Decimal128Type) (kernel.Datum, error) {
	d := v.asDatum()
	from := scaleOf(v.typ)
	rescale := func(x decimal128.Num) (decimal128.Num, error) {
		if from == to.Scale {
			return x, nil
		}
		y, err := x.Rescale(from, to.Scale)
		if err != nil || !y.FitsInPrecision(to.Precision) {
			return y, fmt.Errorf("%s does not fit %s", x.ToString(from), TypeName(to))
		}
		return y, nil
	}
	switch {
	case d.Array == nil && d.Scalar == nil, v.typ.ID() == arrow.NULL:
		return kernel.Datum{}, nil // null
	case d.Array == nil:
		i, ok := d.Scalar.(int64)
		if !ok {
			return kernel.Datum{}, fmt.Errorf("%v is not a value of %s", d.Scalar, TypeName(to))
		}
		x, err := rescale(decimal128.FromI64(i))
		return kernel.Scalar(x), err
	}
	var nums []decimal128.Num
	if col, ok := d.Array.(*array.Decimal128); ok {
		nums = slices.Clone(col.Values())
	} else if ints, ok := intsOf(d).Array.(*array.Int64); ok {
		nums = make([]decimal128.Num, ints.Len())
		for i, x := range ints.Int64Values() {
			nums[i] = decimal128.FromI64(x)
		}
	} else {
		return kernel.Datum{}, fmt.Errorf("a %s column is not a value of %s", TypeName(v.typ), TypeName(to))
	}
	for i, x := range nums {
		if d.Array.IsValid(i) {
			var err error
			if nums[i], err = rescale(x); err != nil {
				return kernel.Datum{}, err
			}
		}
	}
	b := array.NewDecimal128Builder(memory.DefaultAllocator, to)
	defer b.Release()
	valid := make([]bool, len(nums))
	for i := range valid {
		valid[i] = d.Array.IsValid(i)
	}
	b.AppendValues(nums, valid)
	return kernel.Col(b.NewArray()), nil
}

// hasOffset reports whether an ISO 8601 text names its offset from UTC.
func hasOffset(s string) bool {
	_, ok := kernel.ParseTime(s, time.RFC3339Nano)
	return ok || len(s) > 10 && (s[len(s)-1] == 'Z' || s[len(s)-6] == '+' || s[len(s)-6] == '-')
}

// convertUnit rescales times from unit a to unit b, flooring where b is
// coarser.
func convertUnit(d kernel.Datum, a, b arrow.TimeUnit) kernel.Datum {
	pa, pb := kernel.UnitsPerSecond(a), kernel.UnitsPerSecond(b)
	switch {
	case pa == pb:
		return d
	case pb > pa:
		return mapInts(d, func(x int64) int64 { return x * (pb / pa) })
	}
	return mapInts(d, func(x int64) int64 { return FloorDiv(x, pa/pb) })
}

// FloorDiv is a / b rounded toward negative infinity.
func FloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// intsOf reads an integer-like column or scalar as int64.
func intsOf(d kernel.Datum) kernel.Datum {
	if d.Array == nil {
		return d
	}
	w := kernel.Widen(d.Array)
	if _, ok := w.(*array.Int64); ok {
		return kernel.Col(w)
	}
	return d
}

// mapInts applies f to an int64 column's values (keeping its nulls) or to an
// int64 scalar.
func mapInts(d kernel.Datum, f func(int64) int64) kernel.Datum {
	if d.Array == nil {
		if v, ok := d.Scalar.(int64); ok {
			return kernel.Scalar(f(v))
		}
		return d
	}
	a := d.Array.(*array.Int64)
	vals := a.Int64Values()
	out := make([]int64, len(vals))
	for i, v := range vals {
		out[i] = f(v)
	}
	return kernel.Col(kernel.NewFixed(kernel.Int64, out, kernel.AlignedValid(a)))
}

// scaled reads a decimal column or scalar as float64.
func scaled(d kernel.Datum, f func(int64) float64, t *arrow.Decimal128Type) kernel.Datum {
	if d.Array == nil {
		if v, ok := d.Scalar.(int64); ok {
			return kernel.Scalar(f(v))
		}
		return d
	}
	if t.Precision > DecimalMaxPrecision {
		return kernel.Col(kernel.Widen(d.Array)) // float64 already
	}
	a := kernel.Widen(d.Array).(*array.Int64)
	vals := a.Int64Values()
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = f(v)
	}
	return kernel.Col(kernel.NewFixed(kernel.Float64, out, kernel.AlignedValid(a)))
}

// Retype turns a kernel's int64 result into a column of the logical type t
// (a date, timestamp, duration or decimal); other results are as they are.
func Retype(a arrow.Array, t arrow.DataType) arrow.Array {
	ints, ok := a.(*array.Int64)
	if k := KindOfType(t); !ok || k != kernel.KindDate && k != kernel.KindTimestamp && k != kernel.KindDuration && k != kernel.KindDecimal {
		return a
	}
	if out, ok := kernel.FromInt64(t, ints.Int64Values(), kernel.AlignedValid(ints)); ok {
		return out
	}
	return a
}
