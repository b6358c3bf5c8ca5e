package kernel

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
)

// The type table, and how the computing kernels read each type (Widen):
// a new type is its entry here, its Widen case, and its text both ways
// (text.go); the expression rules, Parquet and Avro each map it in one
// file of their own (dataframe/internal/expr/types.go, io/parquet/types.go,
// io/avro/types.go).

// Logical describes one logical column type, a Kind, once: its name, the
// Arrow types that hold it, the type its literals and computed values take,
// and the families of operations it joins (as DuckDB's LogicalType and
// Arrow's type traits). Code asks this table rather than switch on kinds,
// and dataframe's TestEveryType walks every entry's examples through each
// layer (expressions, keys, aggregations, casts, the file formats, spill),
// so a type one layer lacks fails there by name.
type Logical struct {
	Kind Kind
	// Name names the kind in messages and is a literal's kind in a task.
	Name string
	// IDs are the Arrow type IDs that hold it (strings also as dictionaries).
	IDs []arrow.Type
	// Default is the type its literals and computed values take.
	Default arrow.DataType
	// Examples are one of each shape it comes in, for the tests that walk
	// the kinds: every width, unit, zone and precision class kernels treat
	// apart.
	Examples []arrow.DataType
	// Numeric kinds take arithmetic with each other and Mean, Std, Var,
	// Median and Quantile.
	Numeric bool
	// Additive kinds add to their own kind: Sum (numbers and durations).
	Additive bool
	// Ordered kinds compare with <, sort, and take Min and Max.
	Ordered bool
	// Calendar kinds have calendar fields (dt.year, dt.truncate).
	Calendar bool
}

// logicals is the table, indexed by Kind.
var logicals = [...]Logical{
	KindNull: {Name: "null", IDs: []arrow.Type{arrow.NULL}, Default: arrow.Null,
		Examples: []arrow.DataType{arrow.Null}},
	KindInt: {Name: "int64", Default: Int64, Numeric: true, Additive: true, Ordered: true,
		IDs: []arrow.Type{arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64},
		Examples: []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, Int64,
			arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64}},
	KindFloat: {Name: "float64", Default: Float64, Numeric: true, Additive: true, Ordered: true,
		IDs:      []arrow.Type{arrow.FLOAT32, arrow.FLOAT64},
		Examples: []arrow.DataType{arrow.PrimitiveTypes.Float32, Float64}},
	KindString: {Name: "string", Default: String, Ordered: true,
		IDs:      []arrow.Type{arrow.STRING, arrow.DICTIONARY},
		Examples: []arrow.DataType{String, Dict}},
	KindBool: {Name: "bool", Default: Bool, Ordered: true,
		IDs: []arrow.Type{arrow.BOOL}, Examples: []arrow.DataType{Bool}},
	KindDate: {Name: "date", Default: arrow.FixedWidthTypes.Date32, Ordered: true, Calendar: true,
		IDs: []arrow.Type{arrow.DATE32}, Examples: []arrow.DataType{arrow.FixedWidthTypes.Date32}},
	KindTimestamp: {Name: "timestamp", Default: &arrow.TimestampType{Unit: arrow.Nanosecond}, Ordered: true, Calendar: true,
		IDs: []arrow.Type{arrow.TIMESTAMP},
		Examples: []arrow.DataType{&arrow.TimestampType{Unit: arrow.Second}, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Asia/Kolkata"},
			&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "America/New_York"}}},
	KindDuration: {Name: "duration", Default: arrow.FixedWidthTypes.Duration_ns, Additive: true, Ordered: true,
		IDs:      []arrow.Type{arrow.DURATION},
		Examples: []arrow.DataType{arrow.FixedWidthTypes.Duration_ms, arrow.FixedWidthTypes.Duration_ns}},
	KindDecimal: {Name: "decimal", Default: &arrow.Decimal128Type{Precision: 18, Scale: 0}, Numeric: true, Additive: true, Ordered: true,
		IDs:      []arrow.Type{arrow.DECIMAL128},
		Examples: []arrow.DataType{&arrow.Decimal128Type{Precision: 9, Scale: 2}, &arrow.Decimal128Type{Precision: 30, Scale: 4}}},
}

// kindsByID maps each Arrow type ID of the table to its kind.
var kindsByID = map[arrow.Type]Kind{}

func init() {
	for k := range logicals {
		logicals[k].Kind = Kind(k)
		for _, id := range logicals[k].IDs {
			kindsByID[id] = Kind(k)
		}
	}
}

// Logicals lists every logical type, in Kind order.
func Logicals() []Logical { return logicals[:] }

// Logical is k's entry in the table; a kind outside it (an expression's
// own, as dataframe/internal/expr's calendar months) has an empty entry of that kind.
func (k Kind) Logical() Logical {
	if int(k) < len(logicals) {
		return logicals[k]
	}
	return Logical{Kind: k, Name: fmt.Sprintf("kind %d", k)}
}

func (k Kind) String() string { return k.Logical().Name }

// KindNamed is the kind whose Name is name.
func KindNamed(name string) (Kind, bool) {
	for k, l := range logicals {
		if l.Name == name {
			return Kind(k), true
		}
	}
	return 0, false
}

// KindOf maps a column type to its kind, or fails for a type kernels do not handle.
func KindOf(t arrow.DataType) (Kind, error) {
	k, ok := kindsByID[t.ID()]
	switch {
	case !ok, t.ID() == arrow.DICTIONARY && !IsString(t):
		return 0, fmt.Errorf("unsupported column type %s", t)
	case t.ID() == arrow.DECIMAL128 && t.(*arrow.Decimal128Type).Precision > 38:
		return 0, fmt.Errorf("unsupported column type %s", t)
	}
	return k, nil
}

// Widen returns a as one of the types the computing kernels switch on:
// int64 (every integer, date32 as days, timestamps and durations in their
// unit, decimals of precision up to 18 as their unscaled value), float64
// (float32, and wider decimals as their nearest value), bool or string. The
// caller releases the result; a column already of such a type is returned
// retained, and timestamps and durations are views of a's buffers.
func Widen(a arrow.Array) arrow.Array {
	t := a.DataType()
	switch t.ID() {
	case arrow.INT64, arrow.FLOAT64, arrow.BOOL, arrow.STRING, arrow.DICTIONARY, arrow.NULL:
		a.Retain()
		return a
	case arrow.TIMESTAMP, arrow.DURATION:
		d := a.Data()
		view := array.NewData(Int64, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
		defer view.Release()
		return array.NewInt64Data(view)
	case arrow.INT8:
		return NewInt64(widenTo[int8, int64](a), AlignedValid(a))
	case arrow.INT16:
		return NewInt64(widenTo[int16, int64](a), AlignedValid(a))
	case arrow.INT32, arrow.DATE32:
		return NewInt64(widenTo[int32, int64](a), AlignedValid(a))
	case arrow.UINT8:
		return NewInt64(widenTo[uint8, int64](a), AlignedValid(a))
	case arrow.UINT16:
		return NewInt64(widenTo[uint16, int64](a), AlignedValid(a))
	case arrow.UINT32:
		return NewInt64(widenTo[uint32, int64](a), AlignedValid(a))
	case arrow.UINT64:
		return widenUnsigned(a)
	case arrow.FLOAT32:
		return NewFloat64(widenTo[float32, float64](a), AlignedValid(a))
	case arrow.DECIMAL128:
		vals := FixedValues[decimal128.Num](a)
		if t.(*arrow.Decimal128Type).Precision <= 18 {
			out := make([]int64, len(vals))
			for i, v := range vals {
				out[i] = int64(v.LowBits())
			}
			return NewInt64(out, AlignedValid(a))
		}
		scale := t.(*arrow.Decimal128Type).Scale
		out := make([]float64, len(vals))
		for i, v := range vals {
			out[i] = v.ToFloat64(scale)
		}
		return NewFloat64(out, AlignedValid(a))
	}
	panic(fmt.Sprintf("kernel: cannot widen %s", t))
}
