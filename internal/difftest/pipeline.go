package difftest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/duskdata/dusk/dataframe"
)

// expr is an expression over the current columns, for both engines.
type expr struct {
	kind kind
	dusk dataframe.Expr
	sql  string
	text string
}

// col is a column of the current schema: its name and kind. inexact: its
// floats were computed (a mean, a square root) and may differ in their last
// digits between the engines, so it is no key to group, join or sort by.
type col struct {
	name    string
	kind    kind
	inexact bool
	wide    bool // a float standing for a wide decimal (aggregation.wide)
}

func colRef(c col) expr {
	return expr{kind: c.kind, dusk: dataframe.Col(c.name), sql: quote(c.name), text: c.name}
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// literal is a value of kind k drawn as the columns' values are.
func literal(r *rand.Rand, k kind) expr {
	v := r.IntN(40) - 20
	switch k {
	case kFloat64:
		f := float64(v) / 8
		s := strconv.FormatFloat(f, 'g', -1, 64)
		return expr{kind: k, dusk: dataframe.Lit(f), sql: s + "::DOUBLE", text: s}
	case kString:
		s := strs[r.IntN(len(strs))]
		return expr{kind: k, dusk: dataframe.Lit(s), sql: "'" + strings.ReplaceAll(s, "'", "''") + "'", text: strconv.Quote(s)}
	case kBool:
		b := v%2 == 0
		return expr{kind: k, dusk: dataframe.Lit(b), sql: strings.ToUpper(strconv.FormatBool(b)), text: strconv.FormatBool(b)}
	case kDate:
		d := dayString(int64(18000 + r.IntN(1000)))
		return expr{kind: k, dusk: dataframe.Date(d), sql: "DATE '" + d + "'", text: d}
	case kDuration:
		h := r.IntN(30) - 5
		return expr{kind: k, dusk: dataframe.Lit(time.Duration(h) * time.Hour), sql: fmt.Sprintf("%d", int64(h)*3_600_000_000), text: fmt.Sprintf("%dh", h)}
	case kTimestamp, kTimestampNY:
		t := tsBase.Add(time.Duration(r.IntN(400)) * 7 * time.Minute)
		text := t.Format("2006-01-02 15:04:05")
		if k == kTimestamp { // a naive timestamp compares with a wall clock
			return expr{kind: k, dusk: dataframe.Lit(t), sql: "TIMESTAMP '" + text + "'", text: text}
		}
		return expr{kind: k, dusk: dataframe.Lit(t), sql: "TIMESTAMPTZ '" + text + "+00'", text: text + "Z"}
	}
	return expr{kind: kInt64, dusk: dataframe.Lit(int64(v)), sql: strconv.Itoa(v), text: strconv.Itoa(v)}
}

// comparable reports whether kinds a and b compare with each other.
func comparable(a, b kind) bool {
	num := func(k kind) bool { return k.integer() || k == kHash || k == kFloat64 }
	dec := func(k kind) bool { return k == kDecimal || k == kDecimalWide }
	return a == b || num(a) && num(b) || dec(a) && b == kInt64 || a == kInt64 && dec(b)
}

// predicate draws a condition on cols: comparisons with literals or other
// columns, null tests, and their conjunctions and negations.
func predicate(r *rand.Rand, cols []col, depth int) expr {
	if depth > 0 && r.IntN(3) == 0 {
		a, b := predicate(r, cols, depth-1), predicate(r, cols, depth-1)
		if r.IntN(2) == 0 {
			return expr{kind: kBool, dusk: a.dusk.And(b.dusk), sql: "(" + a.sql + " AND " + b.sql + ")", text: "(" + a.text + " and " + b.text + ")"}
		}
		return expr{kind: kBool, dusk: a.dusk.Or(b.dusk), sql: "(" + a.sql + " OR " + b.sql + ")", text: "(" + a.text + " or " + b.text + ")"}
	}
	cc := cols[r.IntN(len(cols))]
	c := colRef(cc)
	isNull := expr{kind: kBool, dusk: c.dusk.IsNull(), sql: "(" + c.sql + " IS NULL)", text: c.text + " is null"}
	switch r.IntN(8) {
	case 0:
		return isNull
	case 1:
		p := predicate(r, cols, 0)
		return expr{kind: kBool, dusk: p.dusk.Not(), sql: "(NOT " + p.sql + ")", text: "not " + p.text}
	}
	if cc.inexact {
		// A computed float may sit an ulp either side of a bound the other
		// engine meets exactly (a correlation of two rows is ±1).
		return isNull
	}
	var other expr
	if r.IntN(3) == 0 {
		var same []col
		for _, o := range cols {
			if comparable(c.kind, o.kind) && o.name != c.text && !o.inexact {
				same = append(same, o)
			}
		}
		if len(same) > 0 {
			other = colRef(same[r.IntN(len(same))])
		}
	}
	if other.sql == "" {
		lk := c.kind
		if lk == kDecimal || lk == kDecimalWide || lk == kHash || lk.integer() {
			lk = kInt64
		}
		other = literal(r, lk)
	}
	ops := []struct {
		name, sql string
		f         func(dataframe.Expr, any) dataframe.Expr
	}{
		{"==", "=", dataframe.Expr.Eq}, {"!=", "<>", dataframe.Expr.Ne}, {"<", "<", dataframe.Expr.Lt},
		{"<=", "<=", dataframe.Expr.Le}, {">", ">", dataframe.Expr.Gt}, {">=", ">=", dataframe.Expr.Ge},
	}
	op := ops[r.IntN(len(ops))]
	q := "(" + c.sql + " " + op.sql + " " + other.sql + ")"
	if c.kind == kFloat64 || other.kind == kFloat64 {
		// Dusk compares floats as IEEE 754 does: NaN is unordered and
		// equals nothing. DuckDB orders NaN above every number and equal
		// to itself, so the SQL says IEEE's rule.
		// A null operand still makes the comparison null.
		nan := fmt.Sprintf("isnan(CAST(%s AS DOUBLE)) OR isnan(CAST(%s AS DOUBLE))", c.sql, other.sql)
		q = fmt.Sprintf("(CASE WHEN %s IS NULL OR %s IS NULL THEN NULL WHEN %s THEN %v ELSE %s END)",
			c.sql, other.sql, nan, strings.ToUpper(strconv.FormatBool(op.name == "!=")), q)
	}
	return expr{kind: kBool, dusk: op.f(c.dusk, other.dusk), sql: q, text: c.text + " " + op.name + " " + other.text}
}

// computed draws a column computed from another: arithmetic with a small
// integer, a null filled, a string's case, length or prefix, a
// timestamp's hour or its truncation, a text read as an integer; false
// where cols has nothing it applies to.
func computed(r *rand.Rand, cols []col) (expr, bool) {
	for range 8 {
		c := cols[r.IntN(len(cols))]
		if c.inexact {
			continue // a step function (ceil, a cast) of an ulp either side of a bound parts the engines
		}
		if e, ok := makers[r.IntN(len(makers))].make(r, c); ok {
			return e, true
		}
	}
	return expr{}, false
}

// arithmetic is a + k, a - k or a * k of an integer or decimal column.
func arithmetic(r *rand.Rand, c col) (expr, bool) {
	if !c.kind.integer() && c.kind != kDecimal {
		return expr{}, false
	}
	a := colRef(c)
	k := r.IntN(5) + 1
	ops := []struct {
		name string
		f    func(dataframe.Expr, any) dataframe.Expr
	}{{"+", dataframe.Expr.Add}, {"-", dataframe.Expr.Sub}, {"*", dataframe.Expr.Mul}}
	op := ops[r.IntN(len(ops))]
	out := kInt64
	if a.kind == kDecimal {
		out = kDecimal
	}
	// The SQL widens first: DuckDB's int8 arithmetic stays int8 and fails
	// past it, where Dusk computes in the operand's type too; values are
	// small enough for neither to overflow an int64.
	return expr{kind: out, dusk: op.f(a.dusk, int64(k)), sql: fmt.Sprintf("(CAST(%s AS %s) %s %d)", a.sql, map[kind]string{kInt64: "BIGINT", kDecimal: "DECIMAL(18,2)"}[out], op.name, k),
		text: fmt.Sprintf("%s %s %d", a.text, op.name, k)}, true
}

// fillNull fills a number column's nulls with a small integer.
func fillNull(r *rand.Rand, c col) (expr, bool) {
	if !c.kind.integer() && c.kind != kFloat64 {
		return expr{}, false
	}
	k := int64(r.IntN(7) - 3)
	out := kInt64
	if c.kind == kFloat64 {
		out = kFloat64
	}
	return expr{kind: out, dusk: dataframe.Col(c.name).FillNull(k), sql: fmt.Sprintf("coalesce(%s, %d)", quote(c.name), k),
		text: fmt.Sprintf("%s.FillNull(%d)", c.name, k)}, true
}

// stringFunc is a string column's upper or lower case, length, or whether
// it starts with or contains a piece of one of the pool's strings.
func stringFunc(r *rand.Rand, c col) (expr, bool) {
	if c.kind != kString {
		return expr{}, false
	}
	s, q := dataframe.Col(c.name).Str(), quote(c.name)
	piece := []rune(strs[r.IntN(len(strs))])
	piece = piece[:len(piece)/2] // whole characters: the query is UTF-8
	lit := "'" + strings.ReplaceAll(string(piece), "'", "''") + "'"
	switch r.IntN(5) {
	case 0:
		return expr{kind: kString, dusk: s.Upper(), sql: "upper(" + q + ")", text: c.name + ".Upper()"}, true
	case 1:
		return expr{kind: kString, dusk: s.Lower(), sql: "lower(" + q + ")", text: c.name + ".Lower()"}, true
	case 2:
		return expr{kind: kInt64, dusk: s.Len(), sql: "length(" + q + ")", text: c.name + ".Len()"}, true
	case 3:
		return expr{kind: kBool, dusk: s.StartsWith(string(piece)), sql: "starts_with(" + q + ", " + lit + ")", text: fmt.Sprintf("%s.StartsWith(%q)", c.name, string(piece))}, true
	}
	return expr{kind: kBool, dusk: s.Contains(string(piece)), sql: "contains(" + q + ", " + lit + ")", text: fmt.Sprintf("%s.Contains(%q)", c.name, string(piece))}, true
}

// timeFunc is a timestamp's hour or its start of hour or day, in its own
// zone (DuckDB's session zone is New York's), or a date's month.
func timeFunc(r *rand.Rand, c col) (expr, bool) {
	dt, q := dataframe.Col(c.name).Dt(), quote(c.name)
	switch {
	case c.kind == kDate:
		return expr{kind: kInt64, dusk: dt.Month(), sql: "month(" + q + ")", text: c.name + ".Month()"}, true
	case !c.kind.timestamp():
		return expr{}, false
	}
	switch r.IntN(3) {
	case 0:
		return expr{kind: kInt64, dusk: dt.Hour(), sql: "hour(" + q + ")", text: c.name + ".Hour()"}, true
	case 1:
		sql := "date_trunc('hour', " + q + ")"
		if c.kind == kTimestampNY {
			// DuckDB floors the wall clock, then takes the later of two
			// equal ones: 01:13 EDT floors to 01:00 EST, after it. Dusk
			// keeps the value's offset; New York's offsets are whole hours,
			// so that is the instant's own hour.
			sql = "(date_trunc('hour', " + q + " AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')"
		}
		return expr{kind: c.kind, dusk: dt.Truncate("1h"), sql: sql, text: c.name + `.Truncate("1h")`}, true
	}
	return expr{kind: c.kind, dusk: dt.Truncate("1d"), sql: "date_trunc('day', " + q + ")", text: c.name + `.Truncate("1d")`}, true
}

// tryCast reads a string column as integers, null where one does not read.
func tryCast(_ *rand.Rand, c col) (expr, bool) {
	if c.kind != kString {
		return expr{}, false
	}
	return expr{kind: kInt64, dusk: dataframe.Col(c.name).TryCast(dataframe.Int64), sql: "TRY_CAST(" + quote(c.name) + " AS BIGINT)",
		text: c.name + ".TryCast(Int64)"}, true
}
