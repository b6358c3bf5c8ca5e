// Package typetest makes columns of every example type of kernel's logical
// type table from small whole-number seeds, and reads any column back as
// plain text and numbers, so that tests walking the kinds through a layer
// (expressions, keys, aggregations, files, spill) can check each answer
// against a plain computation over the seeds.
//
// Must never import: anything of Dusk but internal/kernel, internal/alloc and graph.
package typetest

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/internal/kernel"
)

// Seeds are 0 to MaxSeed; a larger seed is a larger value for every
// ordered type (bools: odd seeds are true).
const MaxSeed = 12

// epoch is where dates and timestamps of seed 0 fall: 2019-11-03, the day
// New York's clocks went back, so zoned seeds cross a change of offset.
var epoch = time.Date(2019, 11, 3, 0, 0, 0, 0, time.UTC)

// Number is the value of seed s in a numeric type t, as float64: signed
// integers, floats and decimals run from -6 up (floats +0.5, decimals
// +0.25, both exact in binary and in decimal), unsigned ones from 0.
func Number(t arrow.DataType, s int) float64 {
	switch {
	case arrow.IsUnsignedInteger(t.ID()):
		return float64(s)
	case arrow.IsInteger(t.ID()):
		return float64(s - 6)
	case arrow.IsFloating(t.ID()):
		return float64(s-6) + 0.5
	case t.ID() == arrow.DECIMAL128:
		return float64(s-6) + 0.25
	}
	panic(fmt.Sprintf("typetest: %s is not numeric", t))
}

// Go is seed s as the Go value a user writes for it in an expression: an
// int64, float64, string, bool, time.Time or time.Duration; a date is its
// ISO 8601 text (comparisons with dates take it) and a decimal its float.
func Go(t arrow.DataType, s int) any {
	switch k, _ := kernel.KindOf(t); k {
	case kernel.KindInt:
		return int64(Number(t, s))
	case kernel.KindFloat, kernel.KindDecimal:
		return Number(t, s)
	case kernel.KindString:
		return fmt.Sprintf("s%02d", s)
	case kernel.KindBool:
		return s%2 == 1
	case kernel.KindDate:
		return epoch.AddDate(0, 0, 40*s).Format("2006-01-02")
	case kernel.KindTimestamp:
		return instant(s)
	case kernel.KindDuration:
		return time.Duration(s-6) * 1500 * time.Millisecond
	}
	return nil
}

// instant is a timestamp seed's instant: whole seconds, hours apart.
func instant(s int) time.Time { return epoch.Add(time.Duration(s) * (3*time.Hour + 17*time.Second)) }

// Column builds a column of type t holding seeds[i] where valid[i].
func Column(t arrow.DataType, seeds []int, valid []bool) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, t)
	defer b.Release()
	for i, s := range seeds {
		if !valid[i] {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.Int8Builder:
			b.Append(int8(Number(t, s)))
		case *array.Int16Builder:
			b.Append(int16(Number(t, s)))
		case *array.Int32Builder:
			b.Append(int32(Number(t, s)))
		case *array.Int64Builder:
			b.Append(int64(Number(t, s)))
		case *array.Uint8Builder:
			b.Append(uint8(Number(t, s)))
		case *array.Uint16Builder:
			b.Append(uint16(Number(t, s)))
		case *array.Uint32Builder:
			b.Append(uint32(Number(t, s)))
		case *array.Uint64Builder:
			b.Append(uint64(Number(t, s)))
		case *array.Float32Builder:
			b.Append(float32(Number(t, s)))
		case *array.Float64Builder:
			b.Append(Number(t, s))
		case *array.Decimal128Builder:
			scale := t.(*arrow.Decimal128Type).Scale
			v, err := decimal128.FromFloat64(Number(t, s), t.(*arrow.Decimal128Type).Precision, scale)
			if err != nil {
				panic(err)
			}
			b.Append(v)
		case *array.StringBuilder:
			b.Append(Go(t, s).(string))
		case *array.BinaryDictionaryBuilder:
			if err := b.AppendString(Go(t, s).(string)); err != nil {
				panic(err)
			}
		case *array.BooleanBuilder:
			b.Append(s%2 == 1)
		case *array.Date32Builder:
			b.Append(arrow.Date32(epoch.Unix()/86400 + int64(40*s)))
		case *array.TimestampBuilder:
			v, err := arrow.TimestampFromTime(instant(s), t.(*arrow.TimestampType).Unit)
			if err != nil {
				panic(err)
			}
			b.Append(v)
		case *array.DurationBuilder:
			b.Append(arrow.Duration(int64(Go(t, s).(time.Duration)) / int64(t.(*arrow.DurationType).Unit.Multiplier())))
		case *array.NullBuilder:
			b.AppendNull()
		default:
			panic(fmt.Sprintf("typetest: no builder for %s", t))
		}
	}
	return b.NewArray()
}

// Text is a column's value i in a form that does not depend on how the
// type is stored: integers, floats and decimals as their exact value,
// dates as ISO 8601, timestamps as the instant in UTC, durations in
// nanoseconds, strings themselves (dictionary-encoded or not); "null" for a
// null. Two columns hold the same values exactly where their texts agree.
func Text(a arrow.Array, i int) string {
	if a.IsNull(i) || a.DataType().ID() == arrow.NULL {
		return "null"
	}
	switch a := a.(type) {
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC().Format(time.RFC3339Nano)
	case *array.Duration:
		return fmt.Sprint(int64(a.Value(i)) * int64(a.DataType().(*arrow.DurationType).Unit.Multiplier()))
	case *array.Decimal128:
		r := new(big.Rat).SetFrac(a.Value(i).BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.DataType().(*arrow.Decimal128Type).Scale)), nil))
		scale := int(a.DataType().(*arrow.Decimal128Type).Scale)
		if scale == 0 {
			return r.FloatString(0)
		}
		return strings.TrimSuffix(strings.TrimRight(r.FloatString(scale), "0"), ".")
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'f', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'f', -1, 64)
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02")
	}
	return a.ValueStr(i)
}

// Float is a numeric column's value i as float64.
func Float(a arrow.Array, i int) float64 {
	f, _, err := big.ParseFloat(Text(a, i), 10, 64, big.ToNearestEven)
	if err != nil {
		panic(fmt.Sprintf("typetest: %s value %q is no number", a.DataType(), Text(a, i)))
	}
	v, _ := f.Float64()
	return v
}
