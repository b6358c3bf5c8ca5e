package dataframe

import (
	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

// The types an expression can be cast to, besides arrow types given
// directly.
var (
	Int64   arrow.DataType = kernel.Int64
	Float64 arrow.DataType = kernel.Float64
	String  arrow.DataType = kernel.String
	Bool    arrow.DataType = kernel.Bool
	Date32  arrow.DataType = arrow.FixedWidthTypes.Date32
)

// Timestamp is the type of timestamps in unit (arrow.Second ...
// arrow.Nanosecond), in the time zone tz ("" for naive wall-clock times).
func Timestamp(unit arrow.TimeUnit, tz string) arrow.DataType {
	return &arrow.TimestampType{Unit: unit, TimeZone: tz}
}

// Decimal is the type of decimals of precision digits, scale of them after
// the point.
func Decimal(precision, scale int32) arrow.DataType {
	return &arrow.Decimal128Type{Precision: precision, Scale: scale}
}

// Operations lists the name of every operation of the expression table,
// sorted: what every expression is built of, for tools that must reach
// them all (the differential fuzzer, the reference checks).
func Operations() []string { return expr.Operations() }
