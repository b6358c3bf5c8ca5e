package difftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/duskdata/dusk/dataframe"
)

// step is one operation of a pipeline, for both engines: apply gives the
// frame after it, sql the query after it, wrapping the query before it.
type step struct {
	text  string
	apply func(f *dataframe.Frame, tables map[string]*dataframe.Frame) *dataframe.Frame
	sql   func(from string) string
	// ordered: the result's order is defined (a sort), and compared.
	ordered bool
}

// pipeline is a source table and steps over it.
type pipeline struct {
	source string
	steps  []step
	cols   []col  // the result's columns
	order  string // the SQL of the sort that orders the rows so far; "" if none does
}

func (p *pipeline) String() string {
	var b strings.Builder
	b.WriteString(p.source)
	for _, s := range p.steps {
		b.WriteString("\n  ." + s.text)
	}
	return b.String()
}

// query is the pipeline as SQL.
func (p *pipeline) query() string {
	q := "SELECT * FROM " + p.source
	for _, s := range p.steps {
		q = s.sql(q)
	}
	return q
}

// frame is the pipeline as a Dusk frame over tables.
func (p *pipeline) frame(tables map[string]*dataframe.Frame) *dataframe.Frame {
	f := tables[p.source]
	for _, s := range p.steps {
		f = s.apply(f, tables)
	}
	return f
}

// ordered reports whether the result's order is defined: its last step
// sorts.
func (p *pipeline) ordered() bool { return len(p.steps) > 0 && p.steps[len(p.steps)-1].ordered }

// newPipeline draws 1 to 4 steps over table t, joining u now and then.
func newPipeline(r *rand.Rand, t, u table) *pipeline {
	p := &pipeline{source: t.Name}
	for _, c := range t.Cols {
		p.cols = append(p.cols, col{name: c.Name, kind: c.Kind})
	}
	n := 1 + r.IntN(4)
	joined := false
	for range n {
		switch x := r.IntN(10); {
		case x < 3:
			p.filter(r)
		case x < 4:
			p.with(r)
		case x < 6:
			p.agg(r)
		case x < 7 && !joined:
			joined = p.join(r, t, u)
		case x < 9:
			p.sortLimit(r)
		default:
			switch r.IntN(3) {
			case 0:
				p.distinct()
			case 1:
				p.fillNulls(r)
			default:
				p.concat(r)
			}
		}
	}
	return p
}

func (p *pipeline) filter(r *rand.Rand) {
	e := predicate(r, p.cols, 2)
	p.steps = append(p.steps, step{text: "Filter(" + e.text + ")",
		apply: func(f *dataframe.Frame, _ map[string]*dataframe.Frame) *dataframe.Frame { return f.Filter(e.dusk) },
		sql:   func(from string) string { return "SELECT * FROM (" + from + ") WHERE " + e.sql }})
}

func (p *pipeline) with(r *rand.Rand) {
	e, ok := computed(r, p.cols)
	if !ok {
		return
	}
	name := fmt.Sprintf("c%d", len(p.steps))
	p.cols = append(p.cols, col{name: name, kind: e.kind, inexact: e.kind == kFloat64})
	p.steps = append(p.steps, step{text: "WithColumn(" + name + ", " + e.text + ")",
		apply: func(f *dataframe.Frame, _ map[string]*dataframe.Frame) *dataframe.Frame {
			return f.WithColumn(name, e.dusk)
		},
		sql: func(from string) string { return "SELECT *, " + e.sql + " AS " + quote(name) + " FROM (" + from + ")" }})
}

// aggregation is one aggregation of a grouping, for both engines.
type aggregation struct {
	dusk    dataframe.Agg
	sql     string
	kind    kind
	inexact bool // a float the engines may compute apart in its last digits
	// wide: a float standing for a decimal of more than 18 digits, which
	// Dusk computes as float64 and DuckDB exactly; a sum of such values
	// that cancel (1.37e12 - 1.37e12 + 0.0001) keeps float64's noise in
	// Dusk, so none is summed or averaged.
	wide bool
}

// aggsFor draws the aggregations a column of kind k takes.
func aggsFor(r *rand.Rand, c col) []aggregation {
	q := quote(c.name)
	out := []aggregation{{dataframe.Count(c.name), "count(" + q + ")", kInt64, false, false}}
	median, notNaN := "quantile_cont("+q+", 0.5)", ""
	if c.kind == kDecimal {
		// Dusk's median is a float64, as pandas'; DuckDB's of decimals is
		// a decimal of their scale, its halves rounded.
		median = "quantile_cont(CAST(" + q + " AS DOUBLE), 0.5)"
	}
	if c.kind == kFloat64 {
		// Dusk's median of values holding a NaN is NaN, as its mean; its
		// minimum and maximum leave NaNs out, as pandas'. DuckDB orders NaN
		// above every number.
		median = "CASE WHEN bool_or(isnan(" + q + ")) THEN 'NaN'::DOUBLE ELSE " + median + " END"
		notNaN = " FILTER (WHERE NOT isnan(" + q + "))"
	}
	if c.kind.numeric() && !c.wide {
		out = append(out,
			aggregation{dataframe.Sum(c.name), "coalesce(sum(" + q + "), 0)", sumKind(c.kind), c.kind == kFloat64 || c.inexact, false},
			aggregation{dataframe.Mean(c.name), "avg(" + q + ")", kFloat64, true, false},
			aggregation{dataframe.Median(c.name), median, kFloat64, true, false})
	}
	if c.kind.integer() || c.kind == kDecimal { // floats of 1e15 beside eighths: the engines' roundings part
		out = append(out,
			aggregation{dataframe.Var(c.name), "var_samp(" + q + ")", kFloat64, true, false},
			aggregation{dataframe.Std(c.name), "stddev_samp(" + q + ")", kFloat64, true, false})
	}
	if c.kind.numeric() {
		f := []float64{0.1, 0.25, 0.9}[r.IntN(3)]
		quantile := strings.Replace(median, "0.5)", fmt.Sprint(f)+")", 1)
		out = append(out, aggregation{dataframe.Quantile(c.name, f), quantile, kFloat64, true, false})
	}
	if c.kind != kFloat64 { // distinct floats: -0 and 0, NaNs
		out = append(out, aggregation{dataframe.Nunique(c.name), "count(DISTINCT " + q + ")", kInt64, false, false})
	}
	if c.kind == kDuration { // as their microseconds in the SQL
		out = append(out,
			aggregation{dataframe.Sum(c.name), "coalesce(sum(" + q + "), 0)", kDuration, false, false},
			aggregation{dataframe.Min(c.name), "min(" + q + ")", kDuration, false, false},
			aggregation{dataframe.Max(c.name), "max(" + q + ")", kDuration, false, false})
	}
	if c.kind == kDecimalWide {
		// Dusk computes decimals past 18 digits as float64: their
		// extremes are floats, near the exact ones.
		out = append(out,
			aggregation{dataframe.Min(c.name), "CAST(min(" + q + ") AS DOUBLE)", kFloat64, true, true},
			aggregation{dataframe.Max(c.name), "CAST(max(" + q + ") AS DOUBLE)", kFloat64, true, true})
	}
	if c.kind.numeric() || c.kind == kDate || c.kind.timestamp() {
		extreme := func(f string) string {
			if notNaN == "" {
				return f + "(" + q + ")"
			}
			// Of NaNs alone, NaN.
			return "coalesce(" + f + "(" + q + ")" + notNaN + ", CASE WHEN bool_or(isnan(" + q + ")) THEN 'NaN'::DOUBLE END)"
		}
		out = append(out, // as exact as the column
			aggregation{dataframe.Min(c.name), extreme("min"), c.kind, c.inexact, false},
			aggregation{dataframe.Max(c.name), extreme("max"), c.kind, c.inexact, false})
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:1+r.IntN(len(out))]
}

func sumKind(k kind) kind {
	if k == kFloat64 || k == kDecimal {
		return k
	}
	return kInt64
}

// joins are the kinds of join, for both engines; a semi or anti join keeps
// the left's columns alone.
var joins = []struct {
	how      dataframe.How
	sql      string
	leftOnly bool
}{
	{dataframe.Inner, "JOIN", false}, {dataframe.Left, "LEFT JOIN", false}, {dataframe.Right, "RIGHT JOIN", false},
	{dataframe.Outer, "FULL JOIN", false}, {dataframe.Semi, "SEMI JOIN", true}, {dataframe.Anti, "ANTI JOIN", true},
}

// groupKey is a grouping key: a column, or an expression (computed set)
// named by its alias, col.name.
type groupKey struct {
	text     string
	dusk     dataframe.Expr
	sql      string
	col      col
	computed bool
}

func (p *pipeline) agg(r *rand.Rand) {
	cols := slices.Clone(p.cols)
	r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	slices.SortStableFunc(cols, func(a, b col) int { return cmpBool(a.inexact, b.inexact) }) // keys exact
	exact := slices.IndexFunc(cols, func(c col) bool { return c.inexact })
	if exact < 0 {
		exact = len(cols)
	}
	nkeys := min(r.IntN(min(3, len(cols))), exact)
	var keys []groupKey
	for _, c := range cols[:nkeys] {
		keys = append(keys, groupKey{c.name, dataframe.Col(c.name), quote(c.name), c, false})
	}
	if r.IntN(4) == 0 {
		// A computed key, as GroupByExpr(Col(...).Dt().Truncate("1h").Alias("g")).
		if e, ok := computed(r, p.cols); ok && e.kind != kFloat64 {
			name := fmt.Sprintf("g%d", len(p.steps))
			keys = append(keys, groupKey{e.text + " as " + name, e.dusk.Alias(name), "(" + e.sql + ")", col{name: name, kind: e.kind}, true})
		}
	}
	var aggs []aggregation
	aggs = append(aggs, aggregation{dataframe.Size(), "count(*)", kInt64, false, false})
	var rest []col
	for _, c := range cols[nkeys:] {
		if r.IntN(2) == 0 {
			aggs = append(aggs, aggsFor(r, c)...)
		}
		if p.order != "" && r.IntN(3) == 0 {
			aggs = append(aggs, p.firstLast(r, c))
		}
		if (c.kind.integer() || c.kind == kDecimal) && !c.inexact {
			rest = append(rest, c)
		}
	}
	if len(rest) >= 2 && r.IntN(3) == 0 {
		x, y := rest[0], rest[1]
		// Dusk's correlation of fewer than two pairs, or of a column
		// without variance, is null, as Spark's; DuckDB's is NaN (0/0).
		corr := "corr(" + quote(x.name) + ", " + quote(y.name) + ")"
		aggs = append(aggs, aggregation{dataframe.Corr(x.name, y.name), "CASE WHEN NOT isnan(" + corr + ") THEN " + corr + " END", kFloat64, true, false})
	}
	keepNulls := len(keys) > 0 && r.IntN(2) == 0
	split := 0
	if len(keys) > 0 && r.IntN(3) == 0 {
		split = 1 + r.IntN(4)
	}
	var names, keyNames, keyTexts, sqlKeys, sqlSelect, notNull []string
	var duskKeys []dataframe.Expr
	computedKey := false
	var out []col
	var duskAggs []dataframe.Agg
	var sqlAggs []string
	seen := map[string]bool{}
	for _, k := range keys {
		keyNames, keyTexts = append(keyNames, k.col.name), append(keyTexts, k.text)
		duskKeys = append(duskKeys, k.dusk)
		computedKey = computedKey || k.computed
		sqlKeys = append(sqlKeys, k.sql)
		sqlSelect = append(sqlSelect, k.sql+" AS "+quote(k.col.name))
		notNull = append(notNull, k.sql+" IS NOT NULL")
		out = append(out, k.col)
		seen[k.col.name] = true // an aggregation named as a key would clash with it
	}
	for _, a := range aggs {
		name := a.dusk.Name()
		if seen[name] {
			continue
		}
		seen[name] = true
		names = append(names, name)
		duskAggs = append(duskAggs, a.dusk)
		sqlAggs = append(sqlAggs, a.sql+" AS "+quote(name))
		out = append(out, col{name: name, kind: a.kind, inexact: a.inexact, wide: a.wide})
	}
	p.cols, p.order = out, ""
	text := fmt.Sprintf("GroupBy(%v)", keyNames)
	if computedKey {
		text = "GroupByExpr(" + strings.Join(keyTexts, ", ") + ")"
	}
	if keepNulls {
		text += ".KeepNullKeys()"
	}
	if split > 0 {
		text += fmt.Sprintf(".SplitOut(%d)", split)
	}
	text += fmt.Sprintf(".Agg(%v)", names)
	p.steps = append(p.steps, step{text: text,
		apply: func(f *dataframe.Frame, _ map[string]*dataframe.Frame) *dataframe.Frame {
			if len(keys) == 0 {
				return f.Agg(duskAggs...)
			}
			g := f.GroupBy(keyNames...)
			if computedKey {
				g = f.GroupByExpr(duskKeys...)
			}
			if keepNulls {
				g = g.KeepNullKeys()
			}
			if split > 0 {
				g = g.SplitOut(split)
			}
			return g.Agg(duskAggs...)
		},
		sql: func(from string) string {
			q := "SELECT " + strings.Join(append(sqlSelect, sqlAggs...), ", ") + " FROM (" + from + ")"
			if len(keys) > 0 && !keepNulls {
				q += " WHERE " + strings.Join(notNull, " AND ")
			}
			if len(keys) > 0 {
				q += " GROUP BY " + strings.Join(sqlKeys, ", ")
			}
			return q
		}})
}

// firstLast is c's first or last non-null value in each group, over rows
// whose order a sort defined (p.order, the sort's SQL).
func (p *pipeline) firstLast(r *rand.Rand, c col) aggregation {
	q := quote(c.name)
	if r.IntN(2) == 0 {
		return aggregation{dataframe.First(c.name), "first(" + q + " ORDER BY " + p.order + ") FILTER (WHERE " + q + " IS NOT NULL)", c.kind, c.inexact, false}
	}
	return aggregation{dataframe.Last(c.name), "last(" + q + " ORDER BY " + p.order + ") FILTER (WHERE " + q + " IS NOT NULL)", c.kind, c.inexact, false}
}

// maxJoinRows bounds the pairs of rows a join's tables make, so that its
// answer stays small whatever its keys hold.
const maxJoinRows = 4_000_000

// join joins u on a key of each side of kinds that compare, inner or left;
// u's columns keep their names (they differ from t's). It reports whether
// it could.
func (p *pipeline) join(r *rand.Rand, t, u table) bool {
	if t.Rows*u.Rows > maxJoinRows {
		return false // keys of few values, or nulls, match most pairs
	}
	type pair struct{ l, r col }
	var pairs []pair
	for _, lc := range p.cols {
		if lc.inexact {
			continue
		}
		for _, rc := range u.Cols {
			k := rc.Kind
			num := func(k kind) bool { return k.integer() || k == kFloat64 }
			if lc.kind == k || num(lc.kind) && num(k) {
				pairs = append(pairs, pair{lc, col{name: rc.Name, kind: k}})
			}
		}
	}
	if len(pairs) == 0 {
		return false
	}
	kp := pairs[r.IntN(len(pairs))]
	p.order = ""
	j := joins[r.IntN(len(joins))]
	how, sqlHow := j.how, j.sql
	broadcast := []int64{0, -1}[r.IntN(2)]
	cols := "l.*, r.*"
	if j.leftOnly {
		cols = "l.*"
	} else {
		for _, c := range u.Cols {
			p.cols = append(p.cols, col{name: c.Name, kind: c.Kind})
		}
	}
	p.steps = append(p.steps, step{text: fmt.Sprintf("Merge(%s, %s, %s = %s, broadcast %d)", u.Name, how, kp.l.name, kp.r.name, broadcast),
		apply: func(f *dataframe.Frame, tables map[string]*dataframe.Frame) *dataframe.Frame {
			return f.Merge(tables[u.Name], dataframe.MergeOptions{How: how, LeftOn: []string{kp.l.name}, RightOn: []string{kp.r.name}, BroadcastBytes: broadcast})
		},
		sql: func(from string) string {
			return fmt.Sprintf("SELECT %s FROM (%s) AS l %s %s AS r ON l.%s IS NOT DISTINCT FROM r.%s",
				cols, from, sqlHow, u.Name, quote(kp.l.name), quote(kp.r.name))
		}})
	return true
}

// sortLimit sorts by every column, so that the order is defined, nulls
// last, and keeps the first rows.
func (p *pipeline) sortLimit(r *rand.Rand) {
	if slices.ContainsFunc(p.cols, func(c col) bool { return c.inexact }) {
		return // near-equal floats could sort either way, and the limit cut either
	}
	var names, sqlCols []string
	for _, c := range p.cols {
		names = append(names, c.name)
		sqlCols = append(sqlCols, quote(c.name)+" ASC NULLS LAST")
	}
	n := []int{0, 1, 5, 100}[r.IntN(4)]
	p.order = strings.Join(sqlCols, ", ")
	p.steps = append(p.steps, step{text: fmt.Sprintf("SortValues(%v).Limit(%d)", names, n), ordered: true,
		apply: func(f *dataframe.Frame, _ map[string]*dataframe.Frame) *dataframe.Frame {
			return f.SortValues(names).Limit(n)
		},
		sql: func(from string) string {
			return fmt.Sprintf("SELECT * FROM (%s) ORDER BY %s LIMIT %d", from, strings.Join(sqlCols, ", "), n)
		}})
}

func (p *pipeline) distinct() {
	p.order = ""
	p.steps = append(p.steps, step{text: "DropDuplicates()",
		apply: func(f *dataframe.Frame, _ map[string]*dataframe.Frame) *dataframe.Frame { return f.DropDuplicates() },
		sql:   func(from string) string { return "SELECT DISTINCT * FROM (" + from + ")" }})
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// fillNulls fills the nulls of one column with a value of its kind, as
// pandas' fillna with a dict.
func (p *pipeline) fillNulls(r *rand.Rand) {
	c := p.cols[r.IntN(len(p.cols))]
	var v any
	var sql string
	switch {
	case c.kind.integer():
		k := r.IntN(7) - 3
		v, sql = int64(k), strconv.Itoa(k)
	case c.kind == kFloat64:
		v, sql = 0.5, "0.5"
	case c.kind == kString:
		v, sql = "filled", "'filled'"
	case c.kind == kBool:
		v, sql = true, "TRUE"
	default:
		return
	}
	p.steps = append(p.steps, step{text: fmt.Sprintf("FillNull(%s: %v)", c.name, v),
		apply: func(f *dataframe.Frame, _ map[string]*dataframe.Frame) *dataframe.Frame {
			return f.FillNull(map[string]any{c.name: v})
		},
		sql: func(from string) string {
			return fmt.Sprintf("SELECT * REPLACE (coalesce(%s, %s) AS %s) FROM (%s)", quote(c.name), sql, quote(c.name), from)
		}})
}

// concat stacks the rows so far on those of them a predicate keeps.
func (p *pipeline) concat(r *rand.Rand) {
	e := predicate(r, p.cols, 1)
	p.order = ""
	p.steps = append(p.steps, step{text: "Concat(self, self.Filter(" + e.text + "))",
		apply: func(f *dataframe.Frame, _ map[string]*dataframe.Frame) *dataframe.Frame {
			return dataframe.Concat(f, f.Filter(e.dusk))
		},
		sql: func(from string) string {
			return "SELECT * FROM ((" + from + ") UNION ALL (SELECT * FROM (" + from + ") WHERE " + e.sql + "))"
		}})
}
