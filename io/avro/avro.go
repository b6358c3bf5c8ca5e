// Package avro converts between Avro object container files and Arrow
// records. Schemas are parsed and files written with
// github.com/hamba/avro/v2; reading walks the container's blocks itself
// and decodes each value straight into the Go slices that become Arrow
// buffers, driven by the file's schema, with every length and count checked
// against the bytes that are there, so that a corrupt file is an error
// naming the file and the block or record, never a panic or a runaway
// allocation.
//
// Type mapping on read (Dusk columns are int64, float64, bool and strings):
//
//	long, int                 int64  (also with logical types time-*)
//	int date                  date32
//	long timestamp-millis/micros        timestamp[ms|us, tz=UTC]
//	long local-timestamp-millis/micros  timestamp[ms|us] (naive)
//	double, float             float64
//	boolean                   bool
//	string (also uuid), bytes string (bytes must be UTF-8 text)
//	enum                      dictionary string (kernel.Dict), the symbols its dictionary
//	null                      null (every value null)
//	["null", T], [T, "null"]  T, with nulls
//
// bytes with the decimal logical type read as decimal128(precision, scale).
// The time-of-day logical types read as their raw numbers (ms or µs since
// midnight). Arrays, maps, records, fixed (decimals among them) and unions
// of several types are not supported: ArrowSchema and Inspect fail on them, naming the
// field, and Read when they are asked for (a projection that leaves them
// out reads the file).
//
// Writing maps int64, float64, bool, strings, date32 and timestamps to
// ["null", long | double | boolean | string | int date | long timestamp-*],
// seconds written as milliseconds; narrower ints to int (uint32 to long),
// float32 to double, decimals to bytes decimal(precision, scale), and an
// all-null column to null. A dictionary string column is written as string
// with the field property "dusk.dictionary": true, which Read honours, so
// that a round trip keeps the column's type; durations, nanosecond
// timestamps, uint64 (its bits) and millisecond or microsecond timestamps
// in a zone other than UTC are written as long with the field property
// "dusk.type" naming their Arrow type, which Read honours too (other
// readers see the long).
//
// Must never import: scheduler, worker, scheduler/server, worker/process, the collections.
package avro

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
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

// keptAsLong reports whether Write keeps a column of type t as a long
// named by TypeProp.
func keptAsLong(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.DurationType, *arrow.Uint64Type:
		return true
	case *arrow.TimestampType:
		return t.Unit == arrow.Nanosecond || t.Unit != arrow.Second && t.TimeZone != "" && t.TimeZone != "UTC"
	}
	return false
}

// kind is how a field's values are encoded.
type kind uint8

const (
	kLong kind = iota
	kInt
	kDouble
	kFloat
	kBool
	kString
	kBytes
	kEnum
	kNull // the null type: no bytes, every value null
)

// field is how to read one field of the file's records.
type field struct {
	name    string
	schema  avro.Schema // the field's schema, to skip it
	err     error       // why the field cannot be read; nil if it can
	kind    kind
	union   bool  // the value follows a union branch index
	nullIdx int64 // the null branch; -1 for none
	valIdx  int64 // the value's branch
	symbols []string
	typ     arrow.DataType
}

// fieldsOf maps a record schema's fields; a field that cannot be read
// carries its error.
func fieldsOf(s avro.Schema) ([]field, error) {
	s = deref(s)
	rs, ok := s.(*avro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("the schema is %s, not a record", describe(s))
	}
	fields := make([]field, len(rs.Fields()))
	for i, f := range rs.Fields() {
		fields[i] = mapField(f)
	}
	return fields, nil
}

func deref(s avro.Schema) avro.Schema {
	if r, ok := s.(*avro.RefSchema); ok {
		return r.Schema()
	}
	return s
}

// describe names an Avro type for a message.
func describe(s avro.Schema) string {
	s = deref(s)
	name := string(s.Type())
	if n, ok := s.(avro.NamedSchema); ok {
		name += " " + n.FullName()
	}
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		name += " (logical type " + string(l.Logical().Type()) + ")"
	}
	return name
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

// ArrowSchema maps an Avro record schema to an Arrow schema of Dusk's
// types, every field nullable (see the package comment for the mapping).
// A field of a type Dusk cannot hold is an error naming it.
func ArrowSchema(s avro.Schema) (*arrow.Schema, error) {
	fields, err := fieldsOf(s)
	if err != nil {
		return nil, fmt.Errorf("avro: %w", err)
	}
	out := make([]arrow.Field, len(fields))
	for i, f := range fields {
		if f.err != nil {
			return nil, fmt.Errorf("avro: %w", f.err)
		}
		out[i] = arrow.Field{Name: f.name, Type: f.typ, Nullable: true}
	}
	return arrow.NewSchema(out, nil), nil
}

// AvroSchema maps an Arrow schema of Dusk's types to an Avro record schema
// named name, every field a union ["null", T] with default null. Column
// names must be valid Avro names: letters, digits and _, not starting with
// a digit.
func AvroSchema(name string, s *arrow.Schema) (avro.Schema, error) {
	fields := make([]*avro.Field, s.NumFields())
	seen := map[string]bool{}
	for i, f := range s.Fields() {
		if seen[f.Name] {
			return nil, fmt.Errorf("avro: two columns named %s", f.Name)
		}
		seen[f.Name] = true
		var t avro.Type
		var logical avro.LogicalSchema
		var opts []avro.SchemaOption
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
			return nil, fmt.Errorf("avro: column %s: type %s cannot be written", f.Name, f.Type)
		}
		var u avro.Schema = avro.NewNullSchema()
		if t != avro.Null {
			var err error
			if u, err = avro.NewUnionSchema([]avro.Schema{avro.NewNullSchema(), avro.NewPrimitiveSchema(t, logical)}); err != nil {
				return nil, fmt.Errorf("avro: column %s: %w", f.Name, err)
			}
		}
		opts = append(opts, avro.WithDefault(nil))
		var err error
		if fields[i], err = avro.NewField(f.Name, u, opts...); err != nil {
			return nil, fmt.Errorf("avro: column %q is not a valid Avro field name (letters, digits and _, not starting with a digit): %w", f.Name, err)
		}
	}
	rs, err := avro.NewRecordSchema(name, "", fields)
	if err != nil {
		return nil, fmt.Errorf("avro: record name %q: %w", name, err)
	}
	return rs, nil
}
