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
// timestamps, uint64 (its bits) and timestamps
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
)

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
		t, logical, opts, err := avroTypeOf(f)
		if err != nil {
			return nil, err
		}
		var u avro.Schema = avro.NewNullSchema()
		if t != avro.Null {
			if u, err = avro.NewUnionSchema([]avro.Schema{avro.NewNullSchema(), avro.NewPrimitiveSchema(t, logical)}); err != nil {
				return nil, fmt.Errorf("avro: column %s: %w", f.Name, err)
			}
		}
		opts = append(opts, avro.WithDefault(nil))
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
