package avro

// How each column type maps to Avro and back, in one place: the Arrow
// type a field reads as (mapField, honouring DictProp and TypeProp), the
// Avro type a column writes as (avroTypeOf), and how its values are
// encoded (newColEncoder). A new column type's Avro mapping is here alone.

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/hamba/avro/v2"

	"github.com/duskdata/dusk/internal/kernel"
)

// DictProp is the field property that marks a string field as a dictionary
// column.
const DictProp = "dusk.dictionary"

// TypeProp is the field property that names, as Arrow does, the type of a
// long field holding values of a type Avro has no logical type for
// (durations, nanosecond timestamps, uint64 as its bits, a timestamp's
// zone), which Read honours; other readers see the long.
const TypeProp = "dusk.type"

// keptAsLong reports whether Write keeps a column of type t as a long in
// its own unit named by TypeProp: durations, uint64, nanosecond
// timestamps, and timestamps in a zone other than UTC (the logical types
// would keep the instant but not the zone).
func keptAsLong(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.DurationType, *arrow.Uint64Type:
		return true
	case *arrow.TimestampType:
		return t.Unit == arrow.Nanosecond || t.TimeZone != "" && t.TimeZone != "UTC"
	}
	return false
}

func mapField(f *avro.Field) field {
	fd := field{name: f.Name(), schema: f.Type(), nullIdx: -1}
	t := deref(f.Type())
	unsupported := func(what string) field {
		fd.err = fmt.Errorf("field %s: Avro type %s is not supported (Dusk reads long, int, double, float, boolean, string, bytes and enum, and their unions with null)", f.Name(), what)
		return fd
	}
	if u, ok := t.(*avro.UnionSchema); ok {
		types := u.Types()
		fd.union = true
		switch {
		case len(types) == 1:
			fd.valIdx = 0
		case len(types) == 2 && types[0].Type() == avro.Null && types[1].Type() != avro.Null:
			fd.nullIdx, fd.valIdx = 0, 1
		case len(types) == 2 && types[1].Type() == avro.Null && types[0].Type() != avro.Null:
			fd.nullIdx, fd.valIdx = 1, 0
		default:
			return unsupported("union " + u.String())
		}
		t = deref(types[fd.valIdx])
	}
	var logical avro.LogicalType
	if l, ok := t.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		logical = l.Logical().Type()
	}
	switch t.Type() {
	case avro.Long:
		fd.kind, fd.typ = kLong, kernel.Int64
	case avro.Int:
		fd.kind, fd.typ = kInt, kernel.Int64
	case avro.Double:
		fd.kind, fd.typ = kDouble, kernel.Float64
	case avro.Float:
		fd.kind, fd.typ = kFloat, kernel.Float64
	case avro.Boolean:
		fd.kind, fd.typ = kBool, kernel.Bool
	case avro.String:
		fd.kind, fd.typ = kString, kernel.String
		if v, ok := f.Prop(DictProp).(bool); ok && v {
			fd.typ = kernel.Dict
		}
	case avro.Bytes:
		fd.kind, fd.typ = kBytes, kernel.String
		if logical == avro.Decimal {
			d := t.(avro.LogicalTypeSchema).Logical().(*avro.DecimalLogicalSchema)
			if d.Precision() < 1 || d.Precision() > 38 || d.Scale() < 0 || d.Scale() > d.Precision() {
				return unsupported(describe(t))
			}
			fd.typ = &arrow.Decimal128Type{Precision: int32(d.Precision()), Scale: int32(d.Scale())}
			return fd
		}
	case avro.Null:
		fd.kind, fd.typ = kNull, arrow.Null
	case avro.Enum:
		fd.kind, fd.typ = kEnum, kernel.Dict
		fd.symbols = t.(*avro.EnumSchema).Symbols()
	default:
		return unsupported(describe(t))
	}
	switch logical {
	case "", avro.TimeMillis, avro.TimeMicros, avro.UUID:
	case avro.Date:
		fd.typ = arrow.FixedWidthTypes.Date32
	case avro.TimestampMillis, avro.TimestampMicros, avro.LocalTimestampMillis, avro.LocalTimestampMicros:
		unit, tz := arrow.Millisecond, "UTC"
		if logical == avro.TimestampMicros || logical == avro.LocalTimestampMicros {
			unit = arrow.Microsecond
		}
		if logical == avro.LocalTimestampMillis || logical == avro.LocalTimestampMicros {
			tz = ""
		}
		fd.typ = &arrow.TimestampType{Unit: unit, TimeZone: tz}
	default:
		return unsupported(describe(t))
	}
	if logical != "" && t.Type() != avro.Int && t.Type() != avro.Long && logical != avro.UUID {
		return unsupported(describe(t))
	}
	if name, ok := f.Prop(TypeProp).(string); ok && fd.kind == kLong {
		if typ, err := kernel.ParseType(name); err == nil && keptAsLong(typ) {
			fd.typ = typ
		}
	}
	return fd
}

// avroTypeOf is the Avro type a column of f's type is written as: its
// primitive type, its logical type, and its field's properties.
func avroTypeOf(f arrow.Field) (t avro.Type, logical avro.LogicalSchema, opts []avro.SchemaOption, err error) {
	switch {
	case f.Type.ID() == arrow.INT64:
		t = avro.Long
	case f.Type.ID() == arrow.FLOAT64:
		t = avro.Double
	case f.Type.ID() == arrow.BOOL:
		t = avro.Boolean
	case f.Type.ID() == arrow.STRING:
		t = avro.String
	case arrow.TypeEqual(f.Type, kernel.Dict):
		t = avro.String
		opts = append(opts, avro.WithProps(map[string]any{DictProp: true}))
	case f.Type.ID() == arrow.INT8 || f.Type.ID() == arrow.INT16 || f.Type.ID() == arrow.INT32 ||
		f.Type.ID() == arrow.UINT8 || f.Type.ID() == arrow.UINT16:
		t = avro.Int
	case f.Type.ID() == arrow.UINT32:
		t = avro.Long
	case f.Type.ID() == arrow.FLOAT32:
		t = avro.Double
	case f.Type.ID() == arrow.DATE32:
		t, logical = avro.Int, avro.NewPrimitiveLogicalSchema(avro.Date)
	case keptAsLong(f.Type):
		t = avro.Long
		opts = append(opts, avro.WithProps(map[string]any{TypeProp: f.Type.String()}))
	case f.Type.ID() == arrow.TIMESTAMP:
		ts := f.Type.(*arrow.TimestampType)
		l := map[bool]avro.LogicalType{false: avro.TimestampMillis, true: avro.TimestampMicros}[ts.Unit == arrow.Microsecond]
		if ts.TimeZone == "" {
			l = map[bool]avro.LogicalType{false: avro.LocalTimestampMillis, true: avro.LocalTimestampMicros}[ts.Unit == arrow.Microsecond]
		}
		t, logical = avro.Long, avro.NewPrimitiveLogicalSchema(l)
	case f.Type.ID() == arrow.DECIMAL128:
		d := f.Type.(*arrow.Decimal128Type)
		t, logical = avro.Bytes, avro.NewDecimalLogicalSchema(int(d.Precision), int(d.Scale))
	case f.Type.ID() == arrow.NULL:
		t = avro.Null
	default:
		return "", nil, nil, fmt.Errorf("avro: column %s: type %s cannot be written", f.Name, f.Type)
	}
	return t, logical, opts, nil
}

func newColEncoder(a arrow.Array) colEncoder {
	e := colEncoder{}
	e.valid, e.off = kernel.Validity(a)
	switch a := a.(type) {
	case *array.Int64:
		e.kind, e.ints = kLong, a.Int64Values()
	case *array.Float64:
		e.kind, e.floats = kDouble, a.Float64Values()
	case *array.Boolean:
		e.kind, e.bools = kBool, a
	case *array.Date32, *array.Int8, *array.Int16, *array.Int32, *array.Uint8, *array.Uint16, *array.Uint32:
		// an Avro int is encoded as a long is
		e.kind, e.ints = kLong, kernel.Widen(a).(*array.Int64).Int64Values()
	case *array.Float32:
		e.kind, e.floats = kDouble, kernel.Widen(a).(*array.Float64).Float64Values()
	case *array.Null:
		e.kind = kNull
	case *array.Uint64, *array.Duration:
		e.kind, e.ints = kLong, kernel.FixedValues[int64](a) // uint64 as its bits
	case *array.Decimal128:
		e.kind, e.decimals = kBytes, a.Values()
	case *array.Timestamp:
		e.kind, e.ints = kLong, kernel.FixedValues[int64](a)
		if a.DataType().(*arrow.TimestampType).Unit == arrow.Second && !keptAsLong(a.DataType()) { // as timestamp-millis
			ms := make([]int64, len(e.ints))
			for i, v := range e.ints {
				ms[i] = v * 1000
			}
			e.ints = ms
		}
	default: // strings, plain or dictionary (sameColumns checked)
		s := kernel.StringsOf(a)
		e.kind, e.strs = kString, &s
	}
	return e
}
