package difftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// sqlQuery is a random query over the tables t and u written once, in
// the SQL both engines speak: DuckDB and Dusk's SQL front end
// (dataframe/sql) run the same text. ordered: its ORDER BY decides the
// order of every row it returns, which is then compared.
type sqlQuery struct {
	text    string
	ordered bool
}

// sqlCol is a column a query can name: its SQL reference and kind.
type sqlCol struct {
	ref  string
	kind kind
}

// family groups the kinds that compare with each other in SQL.
func family(k kind) string {
	switch {
	case k.integer() || k == kDecimal:
		return "number"
	case k == kString, k == kBool, k == kDate, k == kTimestamp:
		return k.String()
	}
	return ""
}

// sqlCols are the columns of tb the SQL queries use, qualified by alias:
// their values mean the same in both engines without a caveat (no floats
// with NaN, no decimals past 18 digits, no hashes, no zoned timestamps;
// doc.go says why those differ).
func sqlCols(tb table, alias string) []sqlCol {
	var out []sqlCol
	for _, c := range tb.kept() {
		if family(c.Kind) != "" && c.Kind != kUint64 {
			out = append(out, sqlCol{ref: alias + "." + quote(c.Name), kind: c.Kind})
		}
	}
	return out
}

// sameFamily are the columns of cols, c aside, that compare with c.
func sameFamily(cols []sqlCol, c sqlCol) []sqlCol {
	var out []sqlCol
	for _, o := range cols {
		if family(o.kind) == family(c.kind) && o.ref != c.ref {
			out = append(out, o)
		}
	}
	return out
}

// sqlGen draws one query's pieces.
type sqlGen struct {
	r *rand.Rand
}

// literalFor is a constant of c's family, drawn as the columns' values are.
func (g sqlGen) literalFor(k kind) string {
	switch family(k) {
	case "number":
		return fmt.Sprint(g.r.IntN(40) - 20)
	case "string":
		s := strs[g.r.IntN(len(strs))]
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	case "bool":
		return []string{"TRUE", "FALSE"}[g.r.IntN(2)]
	case "date":
		return "DATE '" + dayString(int64(18000+g.r.IntN(1000))) + "'"
	}
	return "TIMESTAMP '" + tsBase.Add(time.Duration(g.r.IntN(400*7*60))*time.Second).Format("2006-01-02 15:04:05") + "'"
}

// scalar is a value computed from cols: a column, arithmetic, a CASE, a
// COALESCE, a string or date function; its kind is what it gives.
func (g sqlGen) scalar(cols []sqlCol) (string, kind) {
	c := cols[g.r.IntN(len(cols))]
	k := g.r.IntN(6)
	switch f := family(c.kind); {
	case f == "number" && k == 0:
		return fmt.Sprintf("(CAST(%s AS BIGINT) %s %d)", c.ref, []string{"+", "-", "*"}[g.r.IntN(3)], 1+g.r.IntN(4)), kInt64
	case f == "number" && c.kind == kDecimal && k == 1:
		return fmt.Sprintf("(%s * 2 + 1)", c.ref), kDecimal
	case f == "number" && k == 2:
		return fmt.Sprintf("coalesce(CAST(%s AS BIGINT), %d)", c.ref, g.r.IntN(7)-3), kInt64
	case k == 3:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.predicate(cols, 0), c.ref, g.literalFor(c.kind)), c.kind
	case f == "string" && k == 1:
		return fmt.Sprintf("%s(%s)", []string{"upper", "lower"}[g.r.IntN(2)], c.ref), kString
	case f == "string" && k == 2:
		return fmt.Sprintf("length(%s)", c.ref), kInt64
	case f == "string" && k == 4:
		return fmt.Sprintf("substring(%s, %d, %d)", c.ref, 1+g.r.IntN(3), g.r.IntN(4)), kString
	case f == "date" && k == 1:
		return fmt.Sprintf("EXTRACT(%s FROM %s)", []string{"year", "month", "day"}[g.r.IntN(3)], c.ref), kInt64
	case f == "number" && k == 4:
		return fmt.Sprintf("abs(%s)", c.ref), c.kind
	case f == "number" && k == 5:
		return fmt.Sprintf("nullif(%s, %s)", c.ref, g.literalFor(c.kind)), c.kind
	case f == "string" && k == 5:
		return fmt.Sprintf("(%s || '-' || %s)", c.ref, g.literalFor(c.kind)), kString
	case f == "date" && k == 4:
		return fmt.Sprintf("CAST(%s + INTERVAL '%d' DAY AS DATE)", c.ref, g.r.IntN(60)-30), kDate
	}
	return c.ref, c.kind
}

// predicate is a condition on cols: comparisons with constants or columns
// of the same family, null tests, BETWEEN, IN lists, LIKE, and their
// conjunctions, disjunctions and negations.
func (g sqlGen) predicate(cols []sqlCol, depth int) string {
	if depth > 0 && g.r.IntN(3) == 0 {
		a, b := g.predicate(cols, depth-1), g.predicate(cols, depth-1)
		return "(" + a + []string{" AND ", " OR "}[g.r.IntN(2)] + b + ")"
	}
	c := cols[g.r.IntN(len(cols))]
	switch g.r.IntN(10) {
	case 0:
		return c.ref + []string{" IS NULL", " IS NOT NULL"}[g.r.IntN(2)]
	case 1:
		return "NOT " + g.predicate(cols, 0)
	case 2:
		if family(c.kind) != "bool" {
			lo, hi := g.literalFor(c.kind), g.literalFor(c.kind)
			return fmt.Sprintf("%s BETWEEN %s AND %s", c.ref, lo, hi)
		}
	case 3:
		list := []string{g.literalFor(c.kind), g.literalFor(c.kind), g.literalFor(c.kind)}
		return fmt.Sprintf("%s %sIN (%s)", c.ref, []string{"", "NOT "}[g.r.IntN(2)], strings.Join(list, ", "))
	case 4:
		if family(c.kind) == "string" {
			return fmt.Sprintf("%s %s '%s'", c.ref, []string{"LIKE", "NOT LIKE", "ILIKE"}[g.r.IntN(3)], []string{"a%", "%e", "%p%", "_"}[g.r.IntN(4)])
		}
	}
	other := g.literalFor(c.kind)
	if g.r.IntN(3) == 0 {
		if same := sameFamily(cols, c); len(same) > 0 {
			other = same[g.r.IntN(len(same))].ref
		}
	}
	return fmt.Sprintf("%s %s %s", c.ref, []string{"=", "<>", "<", "<=", ">", ">="}[g.r.IntN(6)], other)
}

// aggregate is an aggregate of cols and its kind: count(*), count, count
// DISTINCT, sum, avg, min, max.
func (g sqlGen) aggregate(cols []sqlCol) (string, bool) {
	c := cols[g.r.IntN(len(cols))]
	num := family(c.kind) == "number"
	switch k := g.r.IntN(7); {
	case k == 0:
		return "count(*)", true
	case k == 1:
		return "count(" + c.ref + ")", true
	case k == 2:
		return "count(DISTINCT " + c.ref + ")", true
	case k == 3 && num && g.r.IntN(2) == 0:
		return "sum(" + c.ref + ")", true
	case k == 3 && num:
		return fmt.Sprintf("sum(CAST(%s AS BIGINT) * %d + 1)", c.ref, 1+g.r.IntN(3)), true
	case k == 4 && num && g.r.IntN(3) == 0:
		return "sum(DISTINCT " + c.ref + ")", true
	case k == 4 && num:
		return "avg(" + []string{"", "DISTINCT "}[g.r.IntN(2)] + c.ref + ")", false // a float: no key to sort by
	case k == 5 && family(c.kind) != "bool":
		return "min(" + c.ref + ")", true
	case k == 6 && family(c.kind) != "bool":
		return "max(" + c.ref + ")", true
	}
	return "count(*)", true
}

// orderAll orders by every output column (1..n), each way and with its
// nulls either end, so that the order is the rows' own; then a LIMIT and
// an OFFSET now and then.
func (g sqlGen) orderAll(n int) string {
	var by []string
	for i := 1; i <= n; i++ {
		by = append(by, fmt.Sprintf("%d %s NULLS %s", i, []string{"ASC", "DESC"}[g.r.IntN(2)], []string{"FIRST", "LAST"}[g.r.IntN(2)]))
	}
	q := " ORDER BY " + strings.Join(by, ", ")
	if g.r.IntN(2) == 0 {
		q += fmt.Sprintf(" LIMIT %d", []int{0, 1, 7, 100}[g.r.IntN(4)])
	}
	if g.r.IntN(3) == 0 {
		q += fmt.Sprintf(" OFFSET %d", []int{1, 3, 50}[g.r.IntN(3)])
	}
	return q
}

// newSQLQuery draws a query over t (aliased a) and u (aliased b): a
// filter and projection, a grouping, a join, a subquery, a set operation.
func newSQLQuery(r *rand.Rand, t, u table) sqlQuery {
	g := sqlGen{r: r}
	tc, uc := sqlCols(t, "a"), sqlCols(u, "b")
	if len(tc) == 0 || len(uc) == 0 {
		return sqlQuery{text: "SELECT count(*) FROM t AS a"}
	}
	switch r.IntN(6) {
	case 0:
		return g.project(tc, "t AS a")
	case 1:
		return g.group(tc, "t AS a")
	case 2:
		from, cols := g.join(tc, uc)
		if r.IntN(2) == 0 {
			return g.group(cols, from)
		}
		return g.project(cols, from)
	case 3:
		return g.subquery(tc, uc)
	case 4:
		return g.setOp(tc, uc)
	}
	// A CTE and a derived table.
	inner := g.project(tc, "t AS a")
	if strings.Contains(inner.text, "LIMIT") || strings.Contains(inner.text, "OFFSET") {
		inner = sqlQuery{text: "SELECT * FROM t AS a WHERE " + g.predicate(tc, 1)}
	}
	var cols []sqlCol
	for _, c := range tc {
		cols = append(cols, sqlCol{ref: "w." + strings.TrimPrefix(c.ref, "a."), kind: c.kind})
	}
	q := g.group(cols, "x AS w")
	q.text = "WITH x AS (SELECT * FROM t AS a WHERE " + g.predicate(tc, 1) + ") " + q.text
	return q
}

// project is SELECT [DISTINCT] scalars FROM from [WHERE ...] [ORDER BY ...].
func (g sqlGen) project(cols []sqlCol, from string) sqlQuery {
	n := 1 + g.r.IntN(4)
	var list []string
	for range n {
		e, _ := g.scalar(cols)
		list = append(list, e)
	}
	q := "SELECT "
	if g.r.IntN(4) == 0 {
		q += "DISTINCT "
	}
	q += strings.Join(list, ", ") + " FROM " + from
	if g.r.IntN(3) > 0 {
		q += " WHERE " + g.predicate(cols, 2)
	}
	if g.r.IntN(2) == 0 {
		return sqlQuery{text: q + g.orderAll(n), ordered: true}
	}
	return sqlQuery{text: q}
}

// group is SELECT keys, aggregates FROM from [WHERE] GROUP BY keys [HAVING]
// [ORDER BY the keys], or an aggregate of the whole table.
func (g sqlGen) group(cols []sqlCol, from string) sqlQuery {
	nkeys := g.r.IntN(3)
	var keys, list []string
	for range nkeys {
		e, _ := g.scalar(cols)
		if !slices.Contains(keys, e) {
			keys = append(keys, e)
		}
	}
	list = append(list, keys...)
	exact := true
	for range 1 + g.r.IntN(3) {
		a, ok := g.aggregate(cols)
		list = append(list, a)
		exact = exact && ok
	}
	q := "SELECT " + strings.Join(list, ", ") + " FROM " + from
	if g.r.IntN(2) == 0 {
		q += " WHERE " + g.predicate(cols, 1)
	}
	if len(keys) == 0 {
		return sqlQuery{text: q}
	}
	q += " GROUP BY " + strings.Join(keys, ", ")
	switch g.r.IntN(4) {
	case 0:
		q += fmt.Sprintf(" HAVING count(*) > %d", g.r.IntN(3))
	case 1:
		a, _ := g.aggregate(cols)
		q += fmt.Sprintf(" HAVING %s IS NOT NULL", a)
	}
	if exact && g.r.IntN(2) == 0 {
		return sqlQuery{text: q + g.orderAll(len(list)), ordered: true}
	}
	return sqlQuery{text: q}
}

// join is t joined with u on columns of one family, and the columns the
// result shows.
func (g sqlGen) join(tc, uc []sqlCol) (string, []sqlCol) {
	cols := append(slices.Clone(tc), uc...)
	var pairs [][2]sqlCol
	for _, a := range tc {
		for _, b := range uc {
			if family(a.kind) == family(b.kind) {
				pairs = append(pairs, [2]sqlCol{a, b})
			}
		}
	}
	how := []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}[g.r.IntN(4)]
	if len(pairs) == 0 {
		return "t AS a CROSS JOIN u AS b", cols
	}
	p := pairs[g.r.IntN(len(pairs))]
	on := p[0].ref + " = " + p[1].ref
	if g.r.IntN(4) == 0 {
		on += " AND " + g.predicate(uc, 0)
	}
	return "t AS a " + how + " u AS b ON " + on, cols
}

// subquery filters t by u: EXISTS and NOT EXISTS correlated by equality,
// IN and NOT IN, a comparison with a scalar subquery.
func (g sqlGen) subquery(tc, uc []sqlCol) sqlQuery {
	a := tc[g.r.IntN(len(tc))]
	same := sameFamily(uc, a)
	var cond string
	switch {
	case len(same) == 0:
		cond = "EXISTS (SELECT 1 FROM u AS b WHERE " + g.predicate(uc, 1) + ")"
	default:
		b := same[g.r.IntN(len(same))]
		inner := ""
		if g.r.IntN(2) == 0 {
			inner = " AND " + g.predicate(uc, 0)
		}
		switch g.r.IntN(6) {
		case 5:
			// Tied by an equality and an inequality, as TPC-H q21's
			// "another supplier of the same order".
			other := tc[g.r.IntN(len(tc))]
			also := slices.DeleteFunc(sameFamily(uc, other), func(o sqlCol) bool { return o.ref == b.ref || family(o.kind) == "bool" })
			if len(also) == 0 {
				cond = fmt.Sprintf("EXISTS (SELECT 1 FROM u AS b WHERE %s = %s)", b.ref, a.ref)
				break
			}
			cond = fmt.Sprintf("%sEXISTS (SELECT 1 FROM u AS b WHERE %s = %s AND %s %s %s%s)", []string{"", "NOT "}[g.r.IntN(2)],
				b.ref, a.ref, also[g.r.IntN(len(also))].ref, []string{"<>", "<", ">="}[g.r.IntN(3)], other.ref, inner)
		case 0:
			cond = fmt.Sprintf("EXISTS (SELECT 1 FROM u AS b WHERE %s = %s%s)", b.ref, a.ref, inner)
		case 1:
			cond = fmt.Sprintf("NOT EXISTS (SELECT 1 FROM u AS b WHERE %s = %s%s)", b.ref, a.ref, inner)
		case 2:
			cond = fmt.Sprintf("%s IN (SELECT %s FROM u AS b WHERE TRUE%s)", a.ref, b.ref, inner)
		case 3:
			cond = fmt.Sprintf("%s NOT IN (SELECT %s FROM u AS b WHERE TRUE%s)", a.ref, b.ref, inner)
		default:
			if family(a.kind) == "bool" {
				cond = fmt.Sprintf("%s = (SELECT max(%s) FROM u AS b)", a.ref, b.ref)
			} else {
				cond = fmt.Sprintf("%s %s (SELECT %s(%s) FROM u AS b WHERE TRUE%s)", a.ref, []string{"<", ">=", "="}[g.r.IntN(3)], []string{"min", "max"}[g.r.IntN(2)], b.ref, inner)
			}
		}
	}
	if g.r.IntN(2) == 0 {
		cond += " AND " + g.predicate(tc, 0)
	}
	var list []string
	for _, c := range tc {
		list = append(list, c.ref)
	}
	q := "SELECT " + strings.Join(list, ", ") + " FROM t AS a WHERE " + cond
	if g.r.IntN(2) == 0 {
		return sqlQuery{text: q + g.orderAll(len(list)), ordered: true}
	}
	return sqlQuery{text: q}
}

// setOp is UNION [ALL], INTERSECT or EXCEPT of a column of t and one of u
// of the same family, each side filtered.
func (g sqlGen) setOp(tc, uc []sqlCol) sqlQuery {
	a := tc[g.r.IntN(len(tc))]
	same := sameFamily(uc, a)
	if len(same) == 0 {
		return g.project(tc, "t AS a")
	}
	b := same[g.r.IntN(len(same))]
	op := []string{"UNION", "UNION ALL", "INTERSECT", "EXCEPT"}[g.r.IntN(4)]
	q := fmt.Sprintf("SELECT %s FROM t AS a WHERE %s %s SELECT %s FROM u AS b WHERE %s", a.ref, g.predicate(tc, 1), op, b.ref, g.predicate(uc, 1))
	if g.r.IntN(2) == 0 {
		return sqlQuery{text: q + g.orderAll(1), ordered: true}
	}
	return sqlQuery{text: q}
}
