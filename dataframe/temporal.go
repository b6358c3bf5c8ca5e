package dataframe

import (
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
