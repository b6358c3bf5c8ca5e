package dataframe

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// Dt gives e's date and time operations (Polars' .dt namespace): e is a
// date32 or timestamp column. The parts of a timestamp with a time zone
// are those of its wall clock there.
func (e Expr) Dt() DtExpr { return DtExpr{e} }

// DtExpr holds the date and time operations of an expression.
type DtExpr struct{ e Expr }

func (d DtExpr) field(f kernel.DateField) Expr { return d.e.call("dt." + f.String()) }

// Year is the year, as int32.
func (d DtExpr) Year() Expr { return d.field(kernel.Year) }

// Quarter is the quarter, 1 to 4.
func (d DtExpr) Quarter() Expr { return d.field(kernel.Quarter) }

// Month is the month, 1 to 12.
func (d DtExpr) Month() Expr { return d.field(kernel.Month) }

// Day is the day of the month, 1 to 31.
func (d DtExpr) Day() Expr { return d.field(kernel.Day) }

// Hour is the hour, 0 to 23 (timestamps only).
func (d DtExpr) Hour() Expr { return d.field(kernel.Hour) }

// Minute is the minute, 0 to 59 (timestamps only).
func (d DtExpr) Minute() Expr { return d.field(kernel.Minute) }

// Second is the second, 0 to 59 (timestamps only).
func (d DtExpr) Second() Expr { return d.field(kernel.Second) }

// Weekday is the ISO day of the week: Monday 1 to Sunday 7, as Polars.
func (d DtExpr) Weekday() Expr { return d.field(kernel.Weekday) }

// DayOfYear is the day of the year, 1 to 366.
func (d DtExpr) DayOfYear() Expr { return d.field(kernel.DayOfYear) }

// Truncate floors each value to the start of its step of length every, as
// Polars writes it: "15m", "1h", "1d", "1w" (weeks start on Monday), "1mo",
// "1q", "1y".
func (d DtExpr) Truncate(every string) Expr {
	x := d.e.call("dt.truncate")
	x.n.Str = []string{every}
	return x
}

// ToDatetime parses strings into timestamps (µs, naive) with a Go layout,
// such as "02/01/2006 15:04", or ISO 8601 where layout is "" (pandas'
// to_datetime); a value that does not parse fails the computation, naming
// it and its row.
func (s StrExpr) ToDatetime(layout string) Expr {
	return s.with("str.to_datetime", []string{layout}, nil)
}

// ToDate parses strings into dates with a Go layout ("" for 2006-01-02).
func (s StrExpr) ToDate(layout string) Expr { return s.with("str.to_date", []string{layout}, nil) }

func isTemporal(t arrow.DataType) bool { return kindOfType(t).Logical().Calendar }

func temporalFunctions() []*function {
	var out []*function
	for f := kernel.Year; f <= kernel.DayOfYear; f++ {
		out = append(out, &function{name: "dt." + f.String(), arity: 1, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				if err := needs(c, in, "a date or timestamp", isTemporal); err != nil {
					return nil, err
				}
				if f.OfTime() && kindOfType(in[0]) == kernel.KindDate {
					return nil, fmt.Errorf("%s needs a timestamp: %s has no time of day", c.n.Op, describe(c.n.Args[0], in[0]))
				}
				return arrow.PrimitiveTypes.Int32, nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				col := retype(c.array(in[0]), in[0].typ)
				var vals []int32
				switch t := col.DataType().(type) {
				case *arrow.Date32Type:
					vals = kernel.DateFields(kernel.FixedValues[int32](col), f)
				case *arrow.TimestampType:
					loc, err := kernel.Location(t.TimeZone)
					if err != nil {
						return value{}, err
					}
					vals = kernel.TimeFields(kernel.FixedValues[int64](col), t.Unit, loc, f)
				default:
					return notTemporal(col)
				}
				return c.column(kernel.NewFixed(c.out, vals, kernel.AlignedValid(col))), nil
			}})
	}
	return append(out,
		&function{name: "dt.truncate", arity: 1, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				if err := needs(c, in, "a date or timestamp", isTemporal); err != nil {
					return nil, err
				}
				if _, err := kernel.ParseEvery(c.n.Str[0]); err != nil {
					return nil, fmt.Errorf("%s: %w", c.n.Op, err)
				}
				return plainOf(in[0]), nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				every, err := kernel.ParseEvery(c.n.Str[0])
				if err != nil {
					return value{}, err
				}
				col := retype(c.array(in[0]), in[0].typ)
				switch t := col.DataType().(type) {
				case *arrow.Date32Type:
					return c.column(kernel.NewFixed(t, kernel.TruncateDays(kernel.FixedValues[int32](col), every), kernel.AlignedValid(col))), nil
				case *arrow.TimestampType:
					loc, err := kernel.Location(t.TimeZone)
					if err != nil {
						return value{}, err
					}
					return c.column(kernel.NewFixed(t, kernel.TruncateTimes(kernel.FixedValues[int64](col), t.Unit, loc, every), kernel.AlignedValid(col))), nil
				}
				return notTemporal(col)
			}},
		parseFunction("str.to_datetime", &arrow.TimestampType{Unit: arrow.Microsecond}),
		parseFunction("str.to_date", arrow.FixedWidthTypes.Date32),
	)
}

// notTemporal is the error for a column a temporal function cannot have been given.
func notTemporal(col arrow.Array) (value, error) {
	return value{}, fmt.Errorf("a %s column where a date or timestamp was typed", typeName(col.DataType()))
}

// parseFunction parses strings into the type to with the call's layout.
func parseFunction(name string, to arrow.DataType) *function {
	return &function{name: name, arity: 1, format: callFormat,
		typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
			return to, needs(c, in, "a string", isString)
		},
		eval: func(c *evalCall, in []value) (value, error) {
			col, err := kernel.ParseText(c.array(in[0]), to, c.n.Str[0], true)
			if err != nil {
				return value{}, fmt.Errorf("%s: %w", c.n, err)
			}
			return c.column(col), nil
		}}
}
