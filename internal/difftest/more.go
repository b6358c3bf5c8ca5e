package difftest

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/duskdata/dusk/dataframe"
)

// maker draws an expression over column c, or says it does not apply. Each
// names the operations of Dusk's expression table it can produce, so that
// a test can tell which of them no maker reaches.
type maker struct {
	ops  []string
	make func(r *rand.Rand, c col) (expr, bool)
}

// unary is an expression of one column of the kinds ok accepts, the same
// in both engines, of kind out (out < 0: c's own).
func unary(op string, ok func(kind) bool, out kind, dusk func(dataframe.Expr) dataframe.Expr, sql string) maker {
	return maker{ops: []string{op}, make: func(_ *rand.Rand, c col) (expr, bool) {
		if !ok(c.kind) {
			return expr{}, false
		}
		k := out
		if k < 0 {
			k = c.kind
		}
		return expr{kind: k, dusk: dusk(dataframe.Col(c.name)), sql: fmt.Sprintf(sql, quote(c.name)), text: op + "(" + c.name + ")"}, true
	}}
}

func isFloat(k kind) bool    { return k == kFloat64 }
func isInteger(k kind) bool  { return k.integer() }
func isExact(k kind) bool    { return k.integer() || k == kDecimal }
func isTime(k kind) bool     { return k == kDate || k.timestamp() }
func isDateOnly(k kind) bool { return k == kDate }
func isString(k kind) bool   { return k == kString }

// makers are the expressions drawn beyond arithmetic, fills and casts.
var makers = []maker{
	{ops: []string{"+", "-", "*"}, make: arithmetic},
	{ops: []string{"coalesce"}, make: fillNull},
	{ops: []string{"str.upper", "str.lower", "str.len", "str.starts_with", "str.contains"}, make: stringFunc},
	{ops: []string{"dt.hour", "dt.truncate", "dt.month"}, make: timeFunc},
	{ops: []string{"try_cast"}, make: tryCast},
	unary("abs", isExact, -1, dataframe.Expr.Abs, "abs(%s)"),
	unary("neg", isInteger, kInt64, dataframe.Expr.Neg, "(-CAST(%s AS BIGINT))"), // an unsigned one becomes signed
	unary("neg", func(k kind) bool { return k == kDecimal }, -1, dataframe.Expr.Neg, "(-%s)"),
	unary("floor", func(k kind) bool { return k == kDecimal || k == kFloat64 }, -1, dataframe.Expr.Floor, "floor(%s)"),
	unary("ceil", func(k kind) bool { return k == kDecimal || k == kFloat64 }, -1, dataframe.Expr.Ceil, "ceil(%s)"),
	unary("sqrt", isFloat, kFloat64, func(e dataframe.Expr) dataframe.Expr { return e.Abs().Sqrt() }, "sqrt(abs(%s))"),
	unary("exp", isInteger, kFloat64, func(e dataframe.Expr) dataframe.Expr { return e.Mod(5).Exp() }, "exp(((%s %% 5) + 5) %% 5)"),
	unary("mod", isInteger, kInt64, func(e dataframe.Expr) dataframe.Expr { return e.Mod(3) }, "(((%s %% 3) + 3) %% 3)"), // Python's sign
	unary("pow", isInteger, kFloat64, func(e dataframe.Expr) dataframe.Expr { return e.Pow(2) }, "pow(%s, 2)"),
	unary("/", isInteger, kFloat64, func(e dataframe.Expr) dataframe.Expr { return e.Div(4) }, "(%s / 4)"),
	unary("dt.year", isTime, kInt64, func(e dataframe.Expr) dataframe.Expr { return e.Dt().Year() }, "year(%s)"),
	unary("dt.quarter", isTime, kInt64, func(e dataframe.Expr) dataframe.Expr { return e.Dt().Quarter() }, "quarter(%s)"),
	unary("dt.day", isTime, kInt64, func(e dataframe.Expr) dataframe.Expr { return e.Dt().Day() }, "day(%s)"),
	unary("dt.day_of_year", isTime, kInt64, func(e dataframe.Expr) dataframe.Expr { return e.Dt().DayOfYear() }, "dayofyear(%s)"),
	unary("dt.weekday", isTime, kInt64, func(e dataframe.Expr) dataframe.Expr { return e.Dt().Weekday() }, "isodow(%s)"),
	unary("dt.minute", func(k kind) bool { return k.timestamp() }, kInt64, func(e dataframe.Expr) dataframe.Expr { return e.Dt().Minute() }, "minute(%s)"),
	unary("dt.second", func(k kind) bool { return k.timestamp() }, kInt64, func(e dataframe.Expr) dataframe.Expr { return e.Dt().Second() }, "second(%s)"),
	unary("str.ends_with", isString, kBool, func(e dataframe.Expr) dataframe.Expr { return e.Str().EndsWith("e") }, "ends_with(%s, 'e')"),
	unary("str.strip", isString, kString, func(e dataframe.Expr) dataframe.Expr { return e.Str().Strip() }, "trim(%s)"),
	unary("str.replace", isString, kString, func(e dataframe.Expr) dataframe.Expr { return e.Str().Replace("p", "P") }, "replace(%s, 'p', 'P')"),
	unary("str.like", isString, kBool, func(e dataframe.Expr) dataframe.Expr { return e.Str().Like("a%") }, "(%s LIKE 'a%%')"),
	unary("str.matches", isString, kBool, func(e dataframe.Expr) dataframe.Expr { return e.Str().Matches("^[a-z]+$") }, "regexp_full_match(%s, '[a-z]+')"),
	unary("concat_str", isString, kString, func(e dataframe.Expr) dataframe.Expr { return dataframe.ConcatStr(e, "-", e) }, "(%[1]s || '-' || %[1]s)"),
	unary("cast", isInteger, kFloat64, func(e dataframe.Expr) dataframe.Expr { return e.Cast(dataframe.Float64) }, "CAST(%s AS DOUBLE)"),
	unary("isnan", isFloat, kBool, dataframe.Expr.IsNaN, "isnan(%s)"),
	unary("isin", isInteger, kBool, func(e dataframe.Expr) dataframe.Expr { return e.IsIn(int64(0), int64(1), int64(-3)) }, "(%s IN (0, 1, -3))"),
	unary("when", isExact, -1, func(e dataframe.Expr) dataframe.Expr { return dataframe.When(e.Gt(0)).Then(e).Otherwise(nil) },
		"CASE WHEN %[1]s > 0 THEN %[1]s END"),
	unary("round", func(k kind) bool { return k == kDecimal }, -1, func(e dataframe.Expr) dataframe.Expr { return e.Round(1) }, "round(%s, 1)"),
	unary("log", isInteger, kFloat64, func(e dataframe.Expr) dataframe.Expr { return e.Abs().Add(1).Log() }, "ln(abs(CAST(%s AS BIGINT)) + 1)"),
	{ops: []string{"str.split_get"}, make: splitGet},
	{ops: []string{"-"}, make: sinceMidnight},
	// Durations are compared as their microseconds.
	unary("cast", func(k kind) bool { return k == kDuration }, kInt64, func(e dataframe.Expr) dataframe.Expr { return e.Cast(dataframe.Int64) }, "%s"),
	unary("/", func(k kind) bool { return k == kDuration }, kFloat64, func(e dataframe.Expr) dataframe.Expr { return e.Div(time.Minute) }, "(%s / 60000000)"),
	unary("str.slice", isString, kString, func(e dataframe.Expr) dataframe.Expr { return e.Str().Slice(1, 3) }, "substring(%s, 2, 3)"),
	// Text and back, through the cast to a string: the same value in both.
	unary("str.to_date", isDateOnly, kDate, func(e dataframe.Expr) dataframe.Expr { return e.Cast(dataframe.String).Str().ToDate("") },
		"CAST(CAST(%s AS VARCHAR) AS DATE)"),
	unary("str.to_datetime", func(k kind) bool { return k == kTimestamp }, kTimestamp,
		func(e dataframe.Expr) dataframe.Expr { return e.Cast(dataframe.String).Str().ToDatetime("") }, "CAST(CAST(%s AS VARCHAR) AS TIMESTAMP)"),
}

// pendingOps are operations no maker reaches yet, each with why: the
// coverage test fails for any other that none reaches.
var pendingOps = map[string]string{}

// baseOps are the operations every pipeline's filters and columns use, and
// those steps draw themselves (alias: a grouping's computed key).
var baseOps = []string{"col", "lit", "==", "!=", "<", "<=", ">", ">=", "and", "or", "not", "isnull", "alias"}

// splitGet is a piece of a string split at a space or an "a", counted from
// either end. Past the last piece Dusk answers null, as DuckDB's list
// index does (its split_part answers an empty string).
func splitGet(r *rand.Rand, c col) (expr, bool) {
	if c.kind != kString {
		return expr{}, false
	}
	sep := []string{" ", "a"}[r.IntN(2)]
	i := []int{0, 1, 2, -1}[r.IntN(4)]
	at := i + 1
	if i < 0 {
		at = i
	}
	return expr{kind: kString, dusk: dataframe.Col(c.name).Str().Split(sep).Get(i),
		sql:  fmt.Sprintf("string_split(%s, '%s')[%d]", quote(c.name), sep, at),
		text: fmt.Sprintf("%s.Split(%q).Get(%d)", c.name, sep, i)}, true
}

// sinceMidnight is a timestamp less its day's start: a duration (the time
// elapsed, across a clock change too), as DuckDB's microseconds.
func sinceMidnight(_ *rand.Rand, c col) (expr, bool) {
	if !c.kind.timestamp() {
		return expr{}, false
	}
	q := quote(c.name)
	return expr{kind: kDuration, dusk: dataframe.Col(c.name).Sub(dataframe.Col(c.name).Dt().Truncate("1d")),
		sql:  "(epoch_us(" + q + ") - epoch_us(date_trunc('day', " + q + ")))",
		text: c.name + ` - ` + c.name + `.Truncate("1d")`}, true
}
