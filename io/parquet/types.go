package parquet

// How each column type maps to Parquet and back, in one place: the Arrow
// type a Parquet leaf reads as (columnOf, refined by the file's Arrow
// schema in refineTypes), and the Parquet leaf and values a column type
// writes as (leafOf, parquetValues). A new column type's Parquet mapping
// is here alone.

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/duskdata/dusk/internal/kernel"
)

// columnOf maps a leaf element at the top level.
func columnOf(e *format.SchemaElement, leaf int) column {
	c := column{name: e.Name, leaf: leaf, kind: parquet.Kind(e.Type.V)}
	c.optional = e.RepetitionType.Valid && e.RepetitionType.V == format.Optional
	unsupported := func() column {
		c.err = fmt.Errorf("column %s: parquet type %s is not supported (Dusk reads numbers, bool, strings, DATE, TIMESTAMP, INT96 and DECIMAL up to 38 digits)", e.Name, typeName(e))
		return c
	}
	if e.RepetitionType.Valid && e.RepetitionType.V == format.Repeated {
		return unsupported()
	}
	logical := e.LogicalType.Value
	conv, hasConv := e.ConvertedType.V, e.ConvertedType.Valid
	if !hasConv {
		conv = -1
	}
	decimal := func(p, s int32) column {
		if p < 1 || p > 38 || s < 0 || s > p {
			return unsupported()
		}
		c.typ = &arrow.Decimal128Type{Precision: p, Scale: s}
		return c
	}
	if l, ok := logical.(*format.DecimalType); ok {
		if e.Type.V == format.ByteArray || e.Type.V == format.FixedLenByteArray && e.TypeLength.V > 16 {
			return unsupported()
		}
		return decimal(l.Precision, l.Scale)
	}
	if logical == nil && conv == deprecated.Decimal {
		if e.Type.V == format.ByteArray || e.Type.V == format.FixedLenByteArray && e.TypeLength.V > 16 {
			return unsupported()
		}
		return decimal(e.Precision.V, e.Scale.V)
	}
	switch e.Type.V {
	case format.Boolean:
		c.typ = kernel.Bool
	case format.Float:
		c.typ = arrow.PrimitiveTypes.Float32
	case format.Double:
		c.typ = kernel.Float64
	case format.Int96:
		c.typ = &arrow.TimestampType{Unit: arrow.Nanosecond} // as Spark and Impala write it: naive, as pandas reads it
	case format.Int32, format.Int64:
		wide := e.Type.V == format.Int64
		bits, signed := 32, true
		if wide {
			bits = 64
		}
		switch l := logical.(type) {
		case nil:
			switch conv {
			case -1, deprecated.Int32, deprecated.Int64:
			case deprecated.Int8, deprecated.Int16:
				bits = 8 * (1 + int(conv-deprecated.Int8))
			case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
				bits, signed = 8<<int(conv-deprecated.Uint8), false
			case deprecated.Date:
				c.typ = arrow.FixedWidthTypes.Date32
			case deprecated.TimestampMillis, deprecated.TimestampMicros:
				c.typ = &arrow.TimestampType{Unit: arrow.Millisecond + arrow.TimeUnit(conv-deprecated.TimestampMillis), TimeZone: "UTC"}
			case deprecated.TimeMillis, deprecated.TimeMicros:
				c.typ = kernel.Int64 // raw, in the column's unit
			default:
				return unsupported()
			}
		case *format.IntType:
			bits, signed = int(l.BitWidth), l.IsSigned
			if bits != 8 && bits != 16 && bits != 32 && bits != 64 {
				return unsupported()
			}
		case *format.DateType:
			c.typ = arrow.FixedWidthTypes.Date32
		case *format.TimestampType:
			tz := ""
			if l.IsAdjustedToUTC {
				tz = "UTC"
			}
			unit := arrow.Millisecond
			switch l.Unit.Value.(type) {
			case *format.MicroSeconds:
				unit = arrow.Microsecond
			case *format.NanoSeconds:
				unit = arrow.Nanosecond
			}
			c.typ = &arrow.TimestampType{Unit: unit, TimeZone: tz}
		case *format.TimeType, *format.NullType:
			c.typ = kernel.Int64 // raw, in the column's unit; NULL as int64 nulls
		default:
			return unsupported()
		}
		if c.typ == nil {
			c.typ, c.unsigned = intTypes[intType{bits, signed}], !signed
		}
		if c.typ == arrow.FixedWidthTypes.Date32 && wide || c.typ.ID() == arrow.TIMESTAMP && !wide {
			return unsupported()
		}
	case format.ByteArray:
		switch logical.(type) {
		case nil:
			if hasConv && conv != deprecated.UTF8 && conv != deprecated.Enum && conv != deprecated.Json {
				return unsupported()
			}
		case *format.StringType, *format.EnumType, *format.JsonType:
		default:
			return unsupported()
		}
		c.typ = kernel.String // or Dict: open decides from the row groups
	default:
		return unsupported()
	}
	return c
}

type intType struct {
	bits   int
	signed bool
}

// intTypes are the Arrow types of Parquet's integer logical types.
var intTypes = map[intType]arrow.DataType{
	{8, true}: arrow.PrimitiveTypes.Int8, {16, true}: arrow.PrimitiveTypes.Int16,
	{32, true}: arrow.PrimitiveTypes.Int32, {64, true}: arrow.PrimitiveTypes.Int64,
	{8, false}: arrow.PrimitiveTypes.Uint8, {16, false}: arrow.PrimitiveTypes.Uint16,
	{32, false}: arrow.PrimitiveTypes.Uint32, {64, false}: arrow.PrimitiveTypes.Uint64,
}

// refineTypes gives each column the type the file's Arrow schema names
// for it where the Parquet type stands for that one: an INT64 as a
// duration, a UTC-adjusted timestamp in its zone.
func refineTypes(cols []column, s *arrow.Schema) {
	if s == nil {
		return
	}
	for i := range cols {
		c := &cols[i]
		fs, ok := s.FieldsByName(c.name)
		if !ok || len(fs) != 1 || c.typ == nil {
			continue
		}
		switch t := fs[0].Type.(type) {
		case *arrow.DurationType:
			if c.typ.ID() == arrow.INT64 {
				c.typ = t
			}
		case *arrow.NullType: // a column of nulls (Parquet's NULL logical type reads as int64 nulls)
			if c.typ.ID() == arrow.INT64 {
				c.typ = arrow.Null
			}
		case *arrow.TimestampType:
			// The zone, in the unit stored (seconds are written as
			// milliseconds: they read back so, in their zone).
			if have, ok := c.typ.(*arrow.TimestampType); ok && have.TimeZone == "UTC" && t.TimeZone != "" {
				c.typ = &arrow.TimestampType{Unit: have.Unit, TimeZone: t.TimeZone}
			}
		}
	}
}

// leafOf is the Parquet type of a column type beyond int64, float64, bool
// and strings (which Write maps itself), as pyarrow writes them: narrow
// ints with their INT logical type, DATE, TIMESTAMP adjusted to UTC where
// the column has a time zone (seconds written as milliseconds), DECIMAL in
// INT32, INT64 or a 16-byte FIXED_LEN_BYTE_ARRAY by precision, durations
// as plain INT64 (the Arrow schema says what they are), an all-null column
// as the NULL logical type; nil for a type it cannot write.
func leafOf(t arrow.DataType) parquet.Node {
	switch t := t.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type:
		return parquet.Int(t.(arrow.FixedWidthDataType).BitWidth())
	case *arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type:
		return parquet.Uint(t.(arrow.FixedWidthDataType).BitWidth())
	case *arrow.Float32Type:
		return parquet.Leaf(parquet.FloatType)
	case *arrow.Date32Type:
		return parquet.Date()
	case *arrow.TimestampType:
		unit := [...]parquet.TimeUnit{parquet.Millisecond, parquet.Millisecond, parquet.Microsecond, parquet.Nanosecond}[t.Unit]
		return parquet.TimestampAdjusted(unit, t.TimeZone != "")
	case *arrow.DurationType:
		return parquet.Leaf(parquet.Int64Type)
	case *arrow.NullType:
		return parquet.Leaf(parquet.NullType) // every value null, as pyarrow writes it
	case *arrow.Decimal128Type:
		switch {
		case t.Precision <= 9:
			return parquet.Decimal(int(t.Scale), int(t.Precision), parquet.Int32Type)
		case t.Precision <= 18:
			return parquet.Decimal(int(t.Scale), int(t.Precision), parquet.Int64Type)
		}
		return parquet.Decimal(int(t.Scale), int(t.Precision), parquet.FixedLenByteArrayType(16))
	}
	return nil
}

// parquetValues returns the Parquet value of each row of a column of a type
// leafOf maps.
func parquetValues(a arrow.Array) func(i int) parquet.Value {
	switch t := a.DataType().(type) {
	case *arrow.Int8Type:
		v := kernel.FixedValues[int8](a)
		return func(i int) parquet.Value { return parquet.Int32Value(int32(v[i])) }
	case *arrow.Int16Type:
		v := kernel.FixedValues[int16](a)
		return func(i int) parquet.Value { return parquet.Int32Value(int32(v[i])) }
	case *arrow.Int32Type, *arrow.Date32Type:
		v := kernel.FixedValues[int32](a)
		return func(i int) parquet.Value { return parquet.Int32Value(v[i]) }
	case *arrow.Uint8Type:
		v := kernel.FixedValues[uint8](a)
		return func(i int) parquet.Value { return parquet.Int32Value(int32(v[i])) }
	case *arrow.Uint16Type:
		v := kernel.FixedValues[uint16](a)
		return func(i int) parquet.Value { return parquet.Int32Value(int32(v[i])) }
	case *arrow.Uint32Type:
		v := kernel.FixedValues[uint32](a)
		return func(i int) parquet.Value { return parquet.Int32Value(int32(v[i])) }
	case *arrow.Float32Type:
		v := kernel.FixedValues[float32](a)
		return func(i int) parquet.Value { return parquet.FloatValue(v[i]) }
	case *arrow.TimestampType:
		v := kernel.FixedValues[int64](a)
		if t.Unit == arrow.Second {
			return func(i int) parquet.Value { return parquet.Int64Value(v[i] * 1000) }
		}
		return func(i int) parquet.Value { return parquet.Int64Value(v[i]) }
	case *arrow.Uint64Type, *arrow.DurationType:
		v := kernel.FixedValues[int64](a)
		return func(i int) parquet.Value { return parquet.Int64Value(v[i]) }
	case *arrow.Decimal128Type:
		v := kernel.FixedValues[decimal128.Num](a)
		switch {
		case t.Precision <= 9:
			return func(i int) parquet.Value { return parquet.Int32Value(int32(v[i].LowBits())) }
		case t.Precision <= 18:
			return func(i int) parquet.Value { return parquet.Int64Value(int64(v[i].LowBits())) }
		}
		return func(i int) parquet.Value {
			var b [16]byte
			binary.BigEndian.PutUint64(b[:8], uint64(v[i].HighBits()))
			binary.BigEndian.PutUint64(b[8:], v[i].LowBits())
			return parquet.FixedLenByteArrayValue(b[:])
		}
	}
	panic(fmt.Sprintf("parquet: no values for %s", a.DataType()))
}
