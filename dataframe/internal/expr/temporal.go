package expr

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

func isTemporal(t arrow.DataType) bool { return KindOfType(t).Logical().Calendar }

func temporalFunctions() []*function {
	var out []*function
	for f := kernel.Year; f <= kernel.DayOfYear; f++ {
		out = append(out, &function{name: "dt." + f.String(), arity: 1, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				if err := needs(c, in, "a date or timestamp", isTemporal); err != nil {
					return nil, err
				}
				if f.OfTime() && KindOfType(in[0]) == kernel.KindDate {
					return nil, fmt.Errorf("%s needs a timestamp: %s has no time of day", c.n.Op, Describe(c.n.Args[0], in[0]))
				}
				return arrow.PrimitiveTypes.Int32, nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				col := Retype(c.array(in[0]), in[0].typ)
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
				col := Retype(c.array(in[0]), in[0].typ)
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
	return value{}, fmt.Errorf("a %s column where a date or timestamp was typed", TypeName(col.DataType()))
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
