package sql

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/duskdata/dusk/dataframe"
)

// typeName is a type's name, without pg_catalog.
func typeName(t *pg.TypeName) string {
	names := strs(t.Names)
	if len(names) == 0 {
		return ""
	}
	return strings.ToLower(names[len(names)-1])
}

// castTypes are SQL's type names as Arrow's.
var castTypes = map[string]arrow.DataType{
	"int2": arrow.PrimitiveTypes.Int16, "int4": arrow.PrimitiveTypes.Int32, "int8": arrow.PrimitiveTypes.Int64,
	"integer": arrow.PrimitiveTypes.Int32, "bigint": arrow.PrimitiveTypes.Int64, "smallint": arrow.PrimitiveTypes.Int16,
	"float4": arrow.PrimitiveTypes.Float32, "float8": arrow.PrimitiveTypes.Float64, "real": arrow.PrimitiveTypes.Float32,
	"double": arrow.PrimitiveTypes.Float64, "text": arrow.BinaryTypes.String, "varchar": arrow.BinaryTypes.String,
	"bpchar": arrow.BinaryTypes.String, "bool": arrow.FixedWidthTypes.Boolean, "date": arrow.FixedWidthTypes.Date32,
	"timestamp": arrow.FixedWidthTypes.Timestamp_us,
}

func (b *binder) cast(n *pg.Node, tc *pg.TypeCast, sc scope) (dataframe.Expr, error) {
	name := typeName(tc.TypeName)
	if name == "date" {
		if s, ok := b.stringConst(tc.Arg); ok {
			if _, err := time.Parse("2006-01-02", s); err != nil {
				return dataframe.Expr{}, b.errorf(n, "date %q is not a date written 2006-01-02", s)
			}
			return dataframe.Date(s), nil
		}
	}
	if name == "interval" {
		return dataframe.Expr{}, b.errorf(n, "an interval may only be added to or taken from a date or timestamp yet")
	}
	arg, err := b.expr(tc.Arg, sc)
	if err != nil {
		return arg, err
	}
	if name == "numeric" || name == "decimal" {
		mods := tc.TypeName.Typmods
		if len(mods) == 0 {
			return arg.Cast(arrow.PrimitiveTypes.Float64), nil // numeric without precision: a float here
		}
		p, _ := b.literalValue(mods[0])
		s := any(int64(0))
		if len(mods) > 1 {
			s, _ = b.literalValue(mods[1])
		}
		pi, ok1 := p.(int64)
		si, ok2 := s.(int64)
		if !ok1 || !ok2 {
			return dataframe.Expr{}, b.errorf(n, "numeric's precision and scale must be integers")
		}
		return arg.Cast(dataframe.Decimal(int32(pi), int32(si))), nil
	}
	t, ok := castTypes[name]
	if !ok {
		return dataframe.Expr{}, b.errorf(n, "type %s is not supported yet", name)
	}
	if arrow.IsInteger(t.ID()) {
		// SQL rounds a fraction to the nearest integer, halves away from
		// zero (the dataframe's Cast truncates, as pandas' astype).
		if from, err := sc.frame().TypeOf(arg); err == nil && (arrow.IsFloating(from.ID()) || arrow.IsDecimal(from.ID())) {
			arg = arg.Round(0)
		}
	}
	return arg.Cast(t), nil
}

// interval is a span of calendar months and days.
type interval struct{ months, days int }

// intervalOf reads an interval literal: interval '3' month, interval '90'
// day, interval '1 year'.
func (b *binder) intervalOf(n *pg.Node) (interval, bool, error) {
	tc := n.GetTypeCast()
	if tc == nil || typeName(tc.TypeName) != "interval" {
		return interval{}, false, nil
	}
	s, ok := b.stringConst(tc.Arg)
	if !ok {
		return interval{}, true, b.errorf(n, "an interval takes a constant string")
	}
	fields := strings.Fields(strings.ToLower(s))
	unit := ""
	if len(tc.TypeName.Typmods) > 0 { // interval '3' month: the unit as a typmod mask
		m, _ := b.literalValue(tc.TypeName.Typmods[0])
		unit = map[int64]string{1 << 1: "month", 1 << 2: "year", 1 << 3: "day"}[asInt(m)]
		if unit == "" {
			return interval{}, true, b.errorf(n, "interval units other than year, month and day are not supported yet")
		}
	} else if len(fields) == 2 {
		unit = strings.TrimSuffix(fields[1], "s")
		fields = fields[:1]
	}
	if len(fields) != 1 {
		return interval{}, true, b.errorf(n, "interval %q: write it as interval '3' month or interval '3 months'", s)
	}
	k, err := strconv.Atoi(fields[0])
	if err != nil {
		return interval{}, true, b.errorf(n, "interval %q: %v", s, err)
	}
	switch unit {
	case "year":
		return interval{months: 12 * k}, true, nil
	case "month", "mon":
		return interval{months: k}, true, nil
	case "day":
		return interval{days: k}, true, nil
	case "week":
		return interval{days: 7 * k}, true, nil
	}
	return interval{}, true, b.errorf(n, "interval unit %q is not supported yet", unit)
}

func asInt(v any) int64 {
	i, _ := v.(int64)
	return i
}

// dateArith binds date ± interval: folded to a date where the date is a
// literal, else calendar months and days added to the column.
func (b *binder) dateArith(n *pg.Node, ae *pg.A_Expr, op string, sc scope) (dataframe.Expr, bool, error) {
	iv, ok, err := b.intervalOf(ae.Rexpr)
	if !ok || err != nil {
		return dataframe.Expr{}, ok, err
	}
	if op == "-" {
		iv = interval{-iv.months, -iv.days}
	}
	if tc := ae.Lexpr.GetTypeCast(); tc != nil && typeName(tc.TypeName) == "date" {
		if s, ok := b.stringConst(tc.Arg); ok {
			d, err := time.Parse("2006-01-02", s)
			if err != nil {
				return dataframe.Expr{}, true, b.errorf(ae.Lexpr, "date %q is not a date written 2006-01-02", s)
			}
			return dataframe.Date(addInterval(d, iv).Format("2006-01-02")), true, nil
		}
	}
	l, err := b.expr(ae.Lexpr, sc)
	if err != nil {
		return l, true, err
	}
	if iv.months != 0 {
		l = l.Add(dataframe.Months(iv.months))
	}
	if iv.days != 0 {
		l = l.Add(dataframe.Days(iv.days))
	}
	return l, true, nil
}

// addInterval adds months (clamped to the month's last day, as the
// dataframe's Months and PostgreSQL do) and days to d.
func addInterval(d time.Time, iv interval) time.Time {
	if iv.months != 0 {
		y, m, day := d.Date()
		first := time.Date(y, m+time.Month(iv.months), 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1).Day()
		d = time.Date(first.Year(), first.Month(), min(day, last), 0, 0, 0, 0, time.UTC)
	}
	return d.AddDate(0, 0, iv.days)
}

// function binds a call of a scalar function.
func (b *binder) function(n *pg.Node, fc *pg.FuncCall, sc scope) (dataframe.Expr, error) {
	name := funcName(fc)
	if fc.Over != nil {
		return dataframe.Expr{}, b.errorf(n, "window functions are not supported yet")
	}
	switch name {
	case "extract", "date_part":
		if len(fc.Args) != 2 {
			return dataframe.Expr{}, b.errorf(n, "%s takes a field and a value", name)
		}
		field, ok := b.stringConst(fc.Args[0])
		if !ok {
			return dataframe.Expr{}, b.errorf(fc.Args[0], "%s's field must be a constant", name)
		}
		v, err := b.expr(fc.Args[1], sc)
		if err != nil {
			return v, err
		}
		get, ok := dateFields[strings.ToLower(field)]
		if !ok {
			return dataframe.Expr{}, b.errorf(fc.Args[0], "field %q is not supported yet", field)
		}
		return get(v.Dt()), nil
	case "substring", "substr":
		if len(fc.Args) < 2 || len(fc.Args) > 3 {
			return dataframe.Expr{}, b.errorf(n, "%s takes a string, a start and a length", name)
		}
		v, err := b.expr(fc.Args[0], sc)
		if err != nil {
			return v, err
		}
		start, ok := b.literalValue(fc.Args[1])
		length := any(int64(-1))
		if len(fc.Args) == 3 {
			length, _ = b.literalValue(fc.Args[2])
		}
		s, ok1 := start.(int64)
		l, ok2 := length.(int64)
		if !ok || !ok1 || !ok2 {
			return dataframe.Expr{}, b.errorf(n, "%s takes constant integers for its start and length yet", name)
		}
		return v.Str().Slice(int(s-1), int(l)), nil
	}
	unary, ok := scalarFuncs[name]
	if !ok {
		return dataframe.Expr{}, b.errorf(n, "no function %s%s", name, closeNames(name, funcNames()))
	}
	if len(fc.Args) != 1 {
		return dataframe.Expr{}, b.errorf(n, "%s takes one argument, not %d", name, len(fc.Args))
	}
	v, err := b.expr(fc.Args[0], sc)
	if err != nil {
		return v, err
	}
	return unary(v), nil
}

// dateFields are EXTRACT's fields.
var dateFields = map[string]func(dataframe.DtExpr) dataframe.Expr{
	"year": dataframe.DtExpr.Year, "quarter": dataframe.DtExpr.Quarter, "month": dataframe.DtExpr.Month,
	"day": dataframe.DtExpr.Day, "hour": dataframe.DtExpr.Hour, "minute": dataframe.DtExpr.Minute,
	"second": dataframe.DtExpr.Second, "dow": dataframe.DtExpr.Weekday, "doy": dataframe.DtExpr.DayOfYear,
}

// scalarFuncs are the functions of one argument, by SQL's names.
var scalarFuncs = map[string]func(dataframe.Expr) dataframe.Expr{
	"abs": dataframe.Expr.Abs, "sqrt": dataframe.Expr.Sqrt, "ln": dataframe.Expr.Log, "exp": dataframe.Expr.Exp,
	"floor": dataframe.Expr.Floor, "ceil": dataframe.Expr.Ceil, "ceiling": dataframe.Expr.Ceil,
	"lower":  func(e dataframe.Expr) dataframe.Expr { return e.Str().Lower() },
	"upper":  func(e dataframe.Expr) dataframe.Expr { return e.Str().Upper() },
	"length": func(e dataframe.Expr) dataframe.Expr { return e.Str().Len() },
	"trim":   func(e dataframe.Expr) dataframe.Expr { return e.Str().Strip() },
	"round":  func(e dataframe.Expr) dataframe.Expr { return e.Round(0) },
}

func funcNames() []string {
	var out []string
	for n := range scalarFuncs {
		out = append(out, n)
	}
	for n := range aggregateSynonyms {
		out = append(out, n)
	}
	out = append(out, dataframe.Aggregations()...)
	return append(out, "extract", "substring", "coalesce", "nullif")
}
