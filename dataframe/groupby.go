package dataframe

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// Agg is an aggregation of a column within each group; its result column is
// named like "sum(v1)" unless renamed with As.
type Agg struct {
	expr *exprNode // what is aggregated, where not a column: computed first
	fn   kernel.AggFunc
	hol  string // a holistic aggregation ("median", "quantile", ...); "" for fn
	col  string
	col2 string  // Corr's second column
	q    float64 // Quantile's fraction
	as   string
}

// Sum adds the column's non-null values; a group without any sums to 0.
func Sum(col string) Agg { return Agg{fn: kernel.Sum, col: col} }

// Mean averages the non-null values.
func Mean(col string) Agg { return Agg{fn: kernel.Mean, col: col} }

// Count counts the non-null values.
func Count(col string) Agg { return Agg{fn: kernel.Count, col: col} }

// Size counts the rows, nulls included.
func Size() Agg { return Agg{fn: kernel.Size} }

// Min is the least non-null value.
func Min(col string) Agg { return Agg{fn: kernel.Min, col: col} }

// Max is the greatest non-null value.
func Max(col string) Agg { return Agg{fn: kernel.Max, col: col} }

// Std is the sample standard deviation (ddof=1, as pandas); null with fewer
// than two values.
func Std(col string) Agg { return Agg{fn: kernel.Std, col: col} }

// Var is the sample variance (ddof=1).
func Var(col string) Agg { return Agg{fn: kernel.Var, col: col} }

// Corr is the Pearson correlation of two numeric columns over the rows
// where both have values.
func Corr(x, y string) Agg { return Agg{fn: kernel.Corr, col: x, col2: y} }

// holisticAgg describes an aggregation that needs all of a group's rows
// together (the rows are shuffled by the keys first), once: whether it
// takes numbers only, its answer's type from its column's, and its kernel.
type holisticAgg struct {
	numeric bool
	result  func(col arrow.DataType) arrow.DataType
	compute func(col arrow.Array, ids []int32, n int, q float64) (arrow.Array, error)
}

// holistics are the holistic aggregations, by name.
var holistics = map[string]holisticAgg{
	"median": {numeric: true, result: func(arrow.DataType) arrow.DataType { return kernel.Float64 },
		compute: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return kernel.GroupMedian(c, ids, n)
		}},
	"quantile": {numeric: true, result: func(arrow.DataType) arrow.DataType { return kernel.Float64 },
		compute: kernel.GroupQuantile},
	"first": {result: func(t arrow.DataType) arrow.DataType { return t },
		compute: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return kernel.GroupFirst(c, ids, n), nil
		}},
	"last": {result: func(t arrow.DataType) arrow.DataType { return t },
		compute: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return kernel.GroupLast(c, ids, n), nil
		}},
	"nunique": {result: func(arrow.DataType) arrow.DataType { return kernel.Int64 },
		compute: func(c arrow.Array, ids []int32, n int, _ float64) (arrow.Array, error) {
			return kernel.GroupNunique(c, ids, n), nil
		}},
}

// Median is the median of the non-null values (holistic: the groups'
// rows are shuffled together first).
func Median(col string) Agg { return Agg{hol: "median", col: col} }

// Quantile is the q-quantile of the non-null values, interpolated linearly
// as pandas does (holistic).
func Quantile(col string, q float64) Agg { return Agg{hol: "quantile", col: col, q: q} }

// First is the group's first non-null value in the frame's order, as
// pandas' first (holistic).
func First(col string) Agg { return Agg{hol: "first", col: col} }

// Last is the group's last non-null value in the frame's order (holistic).
func Last(col string) Agg { return Agg{hol: "last", col: col} }

// Nunique counts the distinct non-null values (holistic).
func Nunique(col string) Agg { return Agg{hol: "nunique", col: col} }

// As names the result column.
func (a Agg) As(name string) Agg { a.as = name; return a }

// The aggregations of an expression's values within each group, as Polars
// writes pl.col("x").sum(): Col("price").Mul(Lit(1).Sub(Col("discount"))).Sum()
// is TPC-H's sum(l_extendedprice * (1 - l_discount)), computed in the same
// step as the grouping. The result is named like "sum((price * ...))".
func (e Expr) Sum() Agg { return exprAgg(e, Sum) }

// Mean averages the expression's non-null values in each group.
func (e Expr) Mean() Agg { return exprAgg(e, Mean) }

// Min is the least non-null value in each group.
func (e Expr) Min() Agg { return exprAgg(e, Min) }

// Max is the greatest non-null value in each group.
func (e Expr) Max() Agg { return exprAgg(e, Max) }

// Count counts the non-null values in each group.
func (e Expr) Count() Agg { return exprAgg(e, Count) }

// Std is the sample standard deviation in each group.
func (e Expr) Std() Agg { return exprAgg(e, Std) }

// Var is the sample variance in each group.
func (e Expr) Var() Agg { return exprAgg(e, Var) }

// Median is the median in each group (holistic).
func (e Expr) Median() Agg { return exprAgg(e, Median) }

// Quantile is the q-quantile in each group (holistic).
func (e Expr) Quantile(q float64) Agg {
	return exprAgg(e, func(c string) Agg { return Quantile(c, q) })
}

// First is the first non-null value in each group (holistic).
func (e Expr) First() Agg { return exprAgg(e, First) }

// Last is the last non-null value in each group (holistic).
func (e Expr) Last() Agg { return exprAgg(e, Last) }

// Nunique counts the distinct non-null values in each group (holistic).
func (e Expr) Nunique() Agg { return exprAgg(e, Nunique) }

// exprAgg is the aggregation of e made by the column form of, named by e.
func exprAgg(e Expr, of func(col string) Agg) Agg {
	if e.n.Op == "col" {
		return of(e.n.Name)
	}
	a := of(e.String())
	a.expr = e.n
	return a
}

// computeAggInputs adds a hidden column for each aggregation of an
// expression, and points the aggregation at it, so that the grouping reads
// it as it reads any column. An expression computed for an earlier
// aggregation is not computed again, whole or as a part of a later one,
// as Polars eliminates common subexpressions: TPC-H q1 sums
// l_extendedprice * (1 - l_discount), and the same times (1 + l_tax).
func computeAggInputs(f *Frame, aggs []Agg) (*Frame, []Agg) {
	out := slices.Clone(aggs)
	hidden := map[string]string{} // an expression, as JSON, to the column that holds it
	for i, a := range out {
		if a.expr == nil {
			continue
		}
		out[i].as = a.Name()
		out[i].expr = nil
		key := string(mustJSON(a.expr))
		if col, ok := hidden[key]; ok {
			out[i].col = col
			continue
		}
		out[i].col = fmt.Sprintf("__agg%d %s", i, a.col)
		f = f.WithColumn(out[i].col, Expr{reuseHidden(a.expr, hidden)})
		hidden[key] = out[i].col
	}
	return f, out
}

// reuseHidden is e reading each of its parts that a hidden column holds
// from that column.
func reuseHidden(e *exprNode, hidden map[string]string) *exprNode {
	if len(e.Args) == 0 || len(hidden) == 0 {
		return e
	}
	c := *e
	c.Args = make([]*exprNode, len(e.Args))
	for i, a := range e.Args {
		if col, ok := hidden[string(mustJSON(a))]; ok {
			c.Args[i] = Col(col).n
			continue
		}
		c.Args[i] = reuseHidden(a, hidden)
	}
	return &c
}

// GroupByExpr groups rows by the values of expressions, as Polars'
// group_by(pl.col("ts").dt.truncate("1h")) and pandas' Grouper(freq=...):
// each key is computed first, named by its alias (Alias) or as it prints.
func (f *Frame) GroupByExpr(keys ...Expr) *Grouped {
	names := make([]string, len(keys))
	for i, k := range keys {
		switch k.n.Op {
		case "col":
			names[i] = k.n.Name
			continue
		case "alias":
			names[i] = k.n.Name
		default:
			names[i] = k.String()
		}
		f = f.WithColumn(names[i], k)
	}
	return f.GroupBy(names...)
}

// Name is the result column's name.
func (a Agg) Name() string {
	switch {
	case a.as != "":
		return a.as
	case a.hol == "quantile":
		return fmt.Sprintf("quantile(%s,%g)", a.col, a.q)
	case a.hol != "":
		return fmt.Sprintf("%s(%s)", a.hol, a.col)
	case a.fn == kernel.Size:
		return "size"
	case a.fn == kernel.Corr:
		return fmt.Sprintf("corr(%s,%s)", a.col, a.col2)
	}
	return fmt.Sprintf("%s(%s)", a.fn, a.col)
}

type aggSpec struct {
	Fn   string  `json:"fn,omitempty"`
	Hol  string  `json:"hol,omitempty"`
	Col  string  `json:"col,omitempty"`
	Col2 string  `json:"col2,omitempty"`
	Q    float64 `json:"q,omitempty"`
	As   string  `json:"as"`
}

// The ways a grouped step treats its groups once they are together.
const (
	modeAgg       = "agg"       // a row per group of aggregates
	modeTransform = "transform" // each row with its group's aggregates
	modeTopN      = "topn"      // each group's best k rows
	modeApply     = "apply"     // a registered function of each group's rows
)

type groupArgs struct {
	Keys []string  `json:"keys"`
	Aggs []aggSpec `json:"aggs,omitempty"`
	Mode string    `json:"mode,omitempty"`
	// topn: the column ranked, how many rows and which end.
	Col     string `json:"col,omitempty"`
	K       int    `json:"k,omitempty"`
	Largest bool   `json:"largest,omitempty"`
	// apply: the registered function.
	Func string `json:"func,omitempty"`
	// Out is the step's output, for partitions that get no rows.
	Out []colSpec `json:"out"`
	// Sort orders an aggregation's groups by their keys.
	Sort bool `json:"sort,omitempty"`
}

// holistic reports whether a's groups need all their rows together, which
// takes a shuffle rather than a tree reduction.
func (a *groupArgs) holistic() bool {
	if a.Mode != "" && a.Mode != modeAgg {
		return true
	}
	for _, s := range a.Aggs {
		if s.Hol != "" {
			return true
		}
	}
	return false
}

// Grouped is a frame grouped by key columns, waiting for its aggregations.
type Grouped struct {
	f         *Frame
	keys      []string
	splitOut  int
	keepNulls bool
}

// GroupBy groups rows by the values of the key columns. Rows with a null key
// belong to no group (pandas' dropna=True) unless KeepNullKeys says so.
func (f *Frame) GroupBy(keys ...string) *Grouped { return &Grouped{f: f, keys: keys} }

// KeepNullKeys makes rows with null keys groups of their own, a null key
// grouping with the other nulls of its column, as Polars, DuckDB and Spark
// group and pandas' dropna=False; in a result sorted by the keys, null
// keys come last.
func (g *Grouped) KeepNullKeys() *Grouped {
	c := *g
	c.keepNulls = true
	return &c
}

// nullGroups runs op on a grouping in which null keys form groups: each
// key k is grouped as two hidden columns, whether k is null and k with its
// nulls filled by a value of its type (the kernels leave rows with a null
// key out of every group), and op's result loses the hidden columns; where
// it has the keys (keys), they are rebuilt from them, null again.
func (g *Grouped) nullGroups(what string, keys bool, op func(*Grouped) *Frame) *Frame {
	f := g.f
	schema := f.plan.schema()
	hidden := make([]string, 0, 2*len(g.keys))
	for _, k := range g.keys {
		fl, err := field(schema, k)
		if err != nil {
			return failed(fmt.Errorf("GroupBy(%v).%s: %w", g.keys, what, err))
		}
		zero, err := zeroOf(fl.Type)
		if err != nil {
			return failed(fmt.Errorf("GroupBy(%v).KeepNullKeys: key %s: %w", g.keys, k, err))
		}
		isNull, filled := "__dusk_null_"+k, "__dusk_key_"+k
		f = f.WithColumn(isNull, When(Col(k).IsNull()).Then(1).Otherwise(0)).
			WithColumn(filled, Col(k).FillNull(Lit(zero).Cast(fl.Type))) // in the key's own type
		hidden = append(hidden, isNull, filled)
	}
	out := op(&Grouped{f: f, keys: hidden, splitOut: g.splitOut})
	if out.err != nil {
		return out
	}
	var cols []string
	if keys {
		for i, k := range g.keys {
			out = out.WithColumn(k, When(Col(hidden[2*i]).Eq(1)).Then(nil).Otherwise(Col(hidden[2*i+1])))
			cols = append(cols, k)
		}
	}
	for _, c := range out.Columns() {
		if !slices.Contains(hidden, c) && !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	return out.Select(cols...)
}

// zeroOf is a value of type t to fill a key's nulls with: any will do, as
// a hidden column tells the rows that were null apart.
func zeroOf(t arrow.DataType) (any, error) {
	switch kindOfType(t) {
	case kernel.KindInt, kernel.KindDecimal:
		return int64(0), nil
	case kernel.KindFloat:
		return 0.0, nil
	case kernel.KindString:
		return "", nil
	case kernel.KindBool:
		return false, nil
	case kernel.KindDate:
		return Date("1970-01-01"), nil
	case kernel.KindTimestamp:
		return time.Unix(0, 0).UTC(), nil
	case kernel.KindDuration:
		return time.Duration(0), nil
	}
	return nil, fmt.Errorf("null keys of type %s cannot group", typeName(t))
}

// SplitOut spreads the result over n partitions by a hash of the keys, as
// Dask's split_out: for many groups, which one partition would not hold
// well. The partial aggregates are shuffled peer to peer.
func (g *Grouped) SplitOut(n int) *Grouped {
	c := *g
	c.splitOut = n
	return &c
}

// allRows is the hidden key Frame.Agg groups every row under.
const allRows = "__all_rows"

// Agg aggregates the whole frame into one row, as Polars'
// df.select(pl.col("v").sum()) or SQL's aggregate without GROUP BY, such as
// f.Agg(Col("price").Mul(Col("qty")).Sum().As("revenue")). A frame of no
// rows gives no row.
func (f *Frame) Agg(aggs ...Agg) *Frame {
	if f.err != nil {
		return f
	}
	if slices.Contains(f.Columns(), allRows) {
		return failed(fmt.Errorf("Agg: the frame has a column named %s, which Agg uses itself", allRows))
	}
	out := f.WithColumn(allRows, Lit(int64(0))).GroupBy(allRows).Agg(aggs...)
	if out.err != nil {
		return failed(fmt.Errorf("Agg: %w", out.err))
	}
	out = out.Drop(allRows)
	// Of no rows, the answer is one row, as SQL's and pandas': the row of
	// an empty input follows the answer, and the first row is kept.
	empty, err := emptyAnswer(out.plan.schema(), aggs)
	if err != nil {
		return failed(fmt.Errorf("Agg: %w", err))
	}
	defer empty.Release()
	return Concat(out, FromArrow(empty)).Limit(1)
}

// emptyAnswer is the aggregations' answer over no rows, a record of one
// row with the columns of schema: sizes, counts, sums and distinct counts
// 0, the rest null.
func emptyAnswer(schema *arrow.Schema, aggs []Agg) (arrow.Record, error) {
	cols := make([]arrow.Array, len(aggs))
	for i, a := range aggs {
		t := schema.Field(i).Type
		zero := a.hol == "nunique" || a.hol == "" && (a.fn == kernel.Sum || a.fn == kernel.Count || a.fn == kernel.Size)
		switch {
		case zero && physicalKind(t) == kernel.KindFloat:
			cols[i] = retype(kernel.NewFloat64([]float64{0}, nil), t)
		case zero:
			cols[i] = retype(kernel.NewInt64([]int64{0}, nil), t)
		default:
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, t, 1)
		}
	}
	rec := array.NewRecord(schema, cols, 1)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// check validates the keys and returns their fields.
func (g *Grouped) check(what string) ([]arrow.Field, setOf, error) {
	in := g.f.plan.schema()
	if len(g.keys) == 0 {
		return nil, nil, fmt.Errorf("GroupBy: no key columns given")
	}
	var fields []arrow.Field
	names := setOf{}
	for _, k := range g.keys {
		fl, err := field(in, k)
		if err != nil {
			return nil, nil, fmt.Errorf("GroupBy: %w", err)
		}
		if names[k] {
			return nil, nil, fmt.Errorf("GroupBy: key %q is given twice", k)
		}
		names[k] = true
		fields = append(fields, fl)
	}
	if g.splitOut < 0 {
		return nil, nil, fmt.Errorf("GroupBy(%v).%s: SplitOut(%d) is not a partition count", g.keys, what, g.splitOut)
	}
	return fields, names, nil
}

// aggFields checks aggs against the frame and returns their result fields.
func (g *Grouped) aggFields(what string, aggs []Agg, names setOf) ([]arrow.Field, []aggSpec, error) {
	in := g.f.plan.schema()
	if len(aggs) == 0 && what != "Agg" { // Agg() alone gives the distinct keys, as Polars' agg()
		return nil, nil, fmt.Errorf("GroupBy(%v).%s: no aggregations given", g.keys, what)
	}
	var fields []arrow.Field
	var specs []aggSpec
	for _, a := range aggs {
		typ := arrow.DataType(kernel.Int64)
		if a.fn != kernel.Size || a.hol != "" {
			_, err := g.numericOr(in, a, a.col)
			if err != nil {
				return nil, nil, fmt.Errorf("GroupBy(%v).%s %s: %w", g.keys, what, a.Name(), err)
			}
			if a.col2 != "" {
				if _, err := g.numericOr(in, a, a.col2); err != nil {
					return nil, nil, fmt.Errorf("GroupBy(%v).%s %s: %w", g.keys, what, a.Name(), err)
				}
			}
			colType := plainOf(in.Field(in.FieldIndices(a.col)[0]).Type)
			switch {
			case a.hol == "":
				typ = aggResultType(a.fn, colType)
			case a.hol == "quantile" && !(a.q >= 0 && a.q <= 1):
				return nil, nil, fmt.Errorf("GroupBy(%v).%s %s: the fraction %g is not in [0, 1]", g.keys, what, a.Name(), a.q)
			default:
				typ = holistics[a.hol].result(colType)
			}
		}
		if names[a.Name()] {
			return nil, nil, fmt.Errorf("GroupBy(%v).%s: two result columns are named %q; rename one with As", g.keys, what, a.Name())
		}
		names[a.Name()] = true
		fields = append(fields, arrow.Field{Name: a.Name(), Type: typ, Nullable: true})
		spec := aggSpec{Hol: a.hol, Col: a.col, Col2: a.col2, Q: a.q, As: a.Name()}
		if a.hol == "" {
			spec.Fn = a.fn.String()
		}
		specs = append(specs, spec)
	}
	return fields, specs, nil
}

// aggResultType is the logical type of fn over a column of type t: the
// kernel's, but a minimum or maximum keeps a date's, timestamp's,
// duration's or decimal's type, and a sum of decimals or durations is one
// (a decimal of precision 18).
func aggResultType(fn kernel.AggFunc, t arrow.DataType) arrow.DataType {
	out := fn.ResultType(t)
	if out.ID() != arrow.INT64 || fn != kernel.Sum && fn != kernel.Min && fn != kernel.Max {
		return out
	}
	switch t := t.(type) {
	case *arrow.Decimal128Type:
		if fn == kernel.Sum {
			return &arrow.Decimal128Type{Precision: decimalMaxPrecision, Scale: t.Scale}
		}
		return t
	case *arrow.Date32Type, *arrow.TimestampType, *arrow.DurationType:
		return t
	}
	return out
}

// numericOr checks that col exists and suits a, and returns its kind.
func (g *Grouped) numericOr(in *arrow.Schema, a Agg, col string) (kernel.Kind, error) {
	fl, err := field(in, col)
	if err != nil {
		return 0, err
	}
	kind, err := kernel.KindOf(fl.Type)
	if err != nil {
		return 0, err
	}
	switch {
	case a.hol == "":
		if err := a.fn.CheckInput(kind); err != nil {
			return 0, fmt.Errorf("column %s: %w", col, err)
		}
	case holistics[a.hol].numeric && kind != kernel.KindInt && kind != kernel.KindFloat && kind != kernel.KindDecimal:
		return 0, fmt.Errorf("column %s: %s needs a numeric column, not %s", col, a.hol, kind)
	}
	return kind, nil
}

// Agg computes aggregations per group. Those that merge partial results
// (Sum, Mean, Count, Size, Min, Max, Std, Var, Corr) run as a tree
// reduction into one partition, or with SplitOut as partial results
// shuffled into that many; any holistic one (Median, Quantile, First, Last,
// Nunique) shuffles the rows themselves, into SplitOut partitions or as
// many as the frame has. A result of one partition is sorted by the keys,
// as pandas'; one split over several is not, as Dask's split_out.
func (g *Grouped) Agg(aggs ...Agg) *Frame {
	if g.f.err != nil {
		return g.f
	}
	if g.keepNulls {
		return g.nullGroups("Agg", true, func(h *Grouped) *Frame { return h.Agg(aggs...) })
	}
	if f, computed := computeAggInputs(g.f, aggs); f != g.f {
		if f.err != nil {
			return failed(fmt.Errorf("GroupBy(%v).Agg: %w", g.keys, f.err))
		}
		return (&Grouped{f: f, keys: g.keys, splitOut: g.splitOut, keepNulls: g.keepNulls}).Agg(computed...)
	}
	keyFields, names, err := g.check("Agg")
	if err != nil {
		return failed(err)
	}
	fields, specs, err := g.aggFields("Agg", aggs, names)
	if err != nil {
		return failed(err)
	}
	return &Frame{plan: newGroupAgg(g.f.plan, groupArgs{Keys: g.keys, Aggs: specs, Mode: modeAgg},
		arrow.NewSchema(append(keyFields, fields...), nil), g.splitOut)}
}

// Transform adds to every row its group's aggregates, as pandas'
// groupby().transform: the rows come out grouped, each partition's by key.
func (g *Grouped) Transform(aggs ...Agg) *Frame {
	if g.f.err != nil {
		return g.f
	}
	if g.keepNulls {
		return g.nullGroups("Transform", false, func(h *Grouped) *Frame { return h.Transform(aggs...) })
	}
	_, names, err := g.check("Transform")
	if err != nil {
		return failed(err)
	}
	names.add(g.f.Columns()...)
	fields, specs, err := g.aggFields("Transform", aggs, names)
	if err != nil {
		return failed(err)
	}
	out := arrow.NewSchema(append(slices.Clone(g.f.plan.schema().Fields()), fields...), nil)
	return &Frame{plan: newGroupAgg(g.f.plan, groupArgs{Keys: g.keys, Aggs: specs, Mode: modeTransform}, out, g.splitOut)}
}

// NLargest keeps each group's n rows with the largest values of col, best
// first (pandas' groupby().nlargest); nulls and NaNs are skipped.
func (g *Grouped) NLargest(n int, col string) *Frame { return g.topN(n, col, true) }

// NSmallest keeps each group's n rows with the smallest values of col.
func (g *Grouped) NSmallest(n int, col string) *Frame { return g.topN(n, col, false) }

func (g *Grouped) topN(n int, col string, largest bool) *Frame {
	if g.f.err != nil {
		return g.f
	}
	what := map[bool]string{true: "NLargest", false: "NSmallest"}[largest]
	if g.keepNulls {
		return g.nullGroups(what, false, func(h *Grouped) *Frame { return h.topN(n, col, largest) })
	}
	if _, _, err := g.check(what); err != nil {
		return failed(err)
	}
	if n < 0 {
		return failed(fmt.Errorf("GroupBy(%v).%s(%d): the number of rows cannot be negative", g.keys, what, n))
	}
	if err := numericColumn(g.f.plan.schema(), col); err != nil {
		return failed(fmt.Errorf("GroupBy(%v).%s: %w", g.keys, what, err))
	}
	return &Frame{plan: newGroupAgg(g.f.plan, groupArgs{Keys: g.keys, Mode: modeTopN, Col: col, K: n, Largest: largest},
		g.f.plan.schema(), g.splitOut)}
}

// Apply runs the function registered under name (RegisterFunc) on each
// group's rows, which come sorted in the frame's order, and concatenates
// what it returns, which must have the columns of out.
func (g *Grouped) Apply(name string, out *arrow.Schema) *Frame {
	if g.f.err != nil {
		return g.f
	}
	if g.keepNulls {
		return failed(fmt.Errorf("GroupBy(%v).Apply: KeepNullKeys is not supported here: fill the keys' nulls first", g.keys))
	}
	if _, _, err := g.check("Apply"); err != nil {
		return failed(err)
	}
	if err := checkFunc(name, out); err != nil {
		return failed(fmt.Errorf("GroupBy(%v).Apply: %w", g.keys, err))
	}
	return &Frame{plan: newGroupAgg(g.f.plan, groupArgs{Keys: g.keys, Mode: modeApply, Func: name, Out: specOf(out)},
		kernel.PlainSchema(out), g.splitOut)}
}

func numericColumn(s *arrow.Schema, col string) error {
	fl, err := field(s, col)
	if err != nil {
		return err
	}
	if k, _ := kernel.KindOf(fl.Type); k != kernel.KindInt && k != kernel.KindFloat {
		return fmt.Errorf("column %s is %s, not numeric", col, kernel.TypeName(fl.Type))
	}
	return nil
}

// groupAgg is a grouped step: aggregation, transform, top rows or apply.
type groupAgg struct {
	child    node
	args     groupArgs
	out      *arrow.Schema
	splitOut int
	tok      string
}

func newGroupAgg(child node, args groupArgs, out *arrow.Schema, splitOut int) *groupAgg {
	args.Out = specOf(out)
	args.Sort = args.Mode == modeAgg && (splitOut <= 1 && !args.holistic() || child.npartitions() == 1 && splitOut <= 1)
	return &groupAgg{child: child, args: args, out: out, splitOut: splitOut,
		tok: token("groupby-"+args.Mode, struct {
			A groupArgs
			S int
		}{args, splitOut}, child)}
}

// outputs is how many partitions the step makes.
func (n *groupAgg) outputs() int {
	switch {
	case n.splitOut > 1:
		return n.splitOut
	case n.args.holistic() || n.inPlace():
		return n.child.npartitions()
	}
	return 1
}

// inPlace reports whether a mergeable aggregation runs whole in each
// partition, as its input's rows are hashed by some of its keys (after a
// shuffle join on them): every group lies in one partition, so no partial
// results need combining.
func (n *groupAgg) inPlace() bool {
	return !n.args.holistic() && n.splitOut <= 1 && n.child.npartitions() > 1 && n.child.partitioning().hashedWithin(n.args.Keys)
}

func (n *groupAgg) schema() *arrow.Schema { return n.out }
func (n *groupAgg) npartitions() int      { return n.outputs() }
func (n *groupAgg) name() string          { return n.tok }
func (n *groupAgg) children() []node      { return []node{n.child} }
func (n *groupAgg) with(c []node) node    { return newGroupAgg(c[0], n.args, n.out, n.splitOut) }
func (n *groupAgg) partitioning() partitioning {
	if n.inPlace() {
		return n.child.partitioning().keptBy(n.out)
	}
	return partitioning{hash: n.args.Keys, n: n.outputs()}
}

func (n *groupAgg) explain() string {
	s := fmt.Sprintf("groupby %s %s", strings.Join(n.args.Keys, ", "), n.args.Mode)
	switch n.args.Mode {
	case modeTopN:
		s += fmt.Sprintf(" %d of %s", n.args.K, n.args.Col)
	case modeApply:
		s += " " + n.args.Func
	default:
		s += " " + strings.Join(aggNames(n.args), ", ")
	}
	switch {
	case n.args.holistic() && n.child.partitioning().hashedWithin(n.args.Keys):
		return s + " (already partitioned by the keys: no shuffle)"
	case n.inPlace():
		return s + " (already partitioned by the keys: in each partition)"
	case n.args.holistic():
		return s + " (shuffle rows by the keys)"
	case n.splitOut > 1:
		return s + " (partial, shuffle by the keys, combine)"
	}
	return s + " (tree reduction)"
}

// needs lists the input columns the step reads.
func (n *groupAgg) needs() setOf {
	need := setOf{}.add(n.args.Keys...)
	switch n.args.Mode {
	case modeTransform, modeApply, modeTopN:
		return need.add(names(n.child.schema())...)
	}
	for _, a := range n.args.Aggs {
		if a.Col != "" {
			need.add(a.Col)
		}
		if a.Col2 != "" {
			need.add(a.Col2)
		}
	}
	return need
}

func (n *groupAgg) lower(l *lowering) []graph.Key {
	args := mustJSON(n.args)
	parts := l.keys(n.child)
	out := n.outputs()
	if n.args.holistic() {
		if n.child.partitioning().hashedWithin(n.args.Keys) {
			return l.mapParts(n.tok, opGroupRows, args, parts)
		}
		return l.shuffle(n.tok, out, []shuffleSide{copiedHashSide(parts, n.args.Keys, out)}, opGroupRows, args)
	}
	partials := l.keys(newPartials(n.child, n.args))
	if n.inPlace() {
		// A partial of nearly distinct keys is left ungrouped (each row its
		// own group): the combine of each partition alone groups it.
		combined := l.mapParts(graph.Name("groupby-combine", opAggCombine, args, n.child.name()), opAggCombine, args, partials)
		return l.mapParts(n.tok, opAggFinal, args, combined)
	}
	if out > 1 {
		return shuffleCombine(l, n.tok, out, n.args.Keys, args, partials)
	}
	return treeCombine(l, n.tok, args, partials)
}

// treeCombine combines partial results in a tree into one partition, tok's.
func treeCombine(l *lowering, tok string, args []byte, partials []graph.Key) []graph.Key {
	root := treeReduce(l.g, "groupby-combine", opAggCombine, args, partials)
	final := graph.Part(tok, 0)
	l.g.Add(&graph.Task{Key: final, Op: opAggFinal, Args: args, Inputs: []graph.Key{root}})
	return []graph.Key{final}
}

// shuffleCombine shuffles partial results by a hash of keys into n
// outputs, each combined as its pieces arrive and finished: with many
// groups an output holds its groups' states once, not once a partition
// (db-benchmark's q3 at 1e8 rows held 2.3 GB of pieces before).
func shuffleCombine(l *lowering, name string, n int, keys []string, args []byte, partials []graph.Key) []graph.Key {
	side := copiedHashSide(partials, keys, n)
	side.merge, side.mergeArgs = opAggCombine, args
	return l.shuffle(name, n, []shuffleSide{side}, opAggUnpack, args)
}

// A partial or combined state record holds the key columns, then each
// aggregation's state columns, named "<result>#<i>".

func (a *groupArgs) funcs() ([]kernel.AggFunc, error) {
	fns := make([]kernel.AggFunc, len(a.Aggs))
	for i, s := range a.Aggs {
		fn, err := kernel.ParseAggFunc(s.Fn)
		if err != nil {
			return nil, err
		}
		fns[i] = fn
	}
	return fns, nil
}

func numStates(fn kernel.AggFunc) int { return len(fn.StateTypes(kernel.Float64)) }

func keyColumns(rec arrow.Record, keys []string) ([]arrow.Array, []arrow.DataType, error) {
	cols := make([]arrow.Array, len(keys))
	types := make([]arrow.DataType, len(keys))
	for i, k := range keys {
		j, err := columnIndex(rec.Schema(), k)
		if err != nil {
			return nil, nil, err
		}
		cols[i], types[i] = rec.Column(j), rec.Column(j).DataType()
	}
	return cols, types, nil
}

// stateRecord assembles keys and state columns, releasing them.
func stateRecord(a *groupArgs, fns []kernel.AggFunc, keys []arrow.Array, states [][]arrow.Array) arrow.Record {
	var fields []arrow.Field
	var cols []arrow.Array
	for i, k := range keys {
		fields = append(fields, arrow.Field{Name: a.Keys[i], Type: k.DataType(), Nullable: true})
		cols = append(cols, k)
	}
	for i, st := range states {
		for j, c := range st {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("%s#%d", a.Aggs[i].As, j), Type: c.DataType(), Nullable: true})
			cols = append(cols, c)
		}
	}
	n := int64(0)
	if len(cols) > 0 {
		n = int64(cols[0].Len())
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, n)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// idBuffers recycles buffers of one int32 a row that a task drops as it
// ends: the group ids of partial aggregations, garbage once the partial
// states are made, and the outputs of a split's rows, once scattered.
var idBuffers = sync.Pool{New: func() any { return new([]int32) }}

func aggPartialOp(tc *registry.Context, a *groupArgs, rec arrow.Record) (arrow.Record, error) {
	fns, err := a.funcs()
	if err != nil {
		return nil, err
	}
	keys, _, err := keyColumns(rec, a.Keys)
	if err != nil {
		return nil, err
	}
	if k := accelerator(tc); k != nil {
		if out, ok, err := gpuPartial(k, a, fns, rec, keys); ok || err != nil {
			return out, err
		}
	}
	buf := idBuffers.Get().(*[]int32)
	defer idBuffers.Put(buf)
	if mostlyDistinct(keys) {
		// Pre-aggregating would not shrink the partition: each row is its
		// own group, and the combine step does the grouping once (as Spark
		// and DuckDB skip partial aggregation of near-unique keys).
		states, err := rowStates(a, fns, rec, buf)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			k.Retain()
		}
		return stateRecord(a, fns, keys, states), nil
	}
	ids, gkeys := kernel.GroupKeys(keys, *buf)
	*buf = ids
	states, err := partialStates(a, fns, rec, ids, groupCount(gkeys))
	if err != nil {
		releaseStates([][]arrow.Array{gkeys})
		return nil, err
	}
	return stateRecord(a, fns, gkeys, states), nil
}

// releaseStates releases state columns made before an error.
func releaseStates(states [][]arrow.Array) {
	for _, st := range states {
		for _, c := range st {
			c.Release()
		}
	}
}

// rowStates are the partial states of rows that are each their own group.
// A sum, minimum or maximum of a column without nulls is the column itself
// and a count is one a row (kernel.OneEach, no buffer to fill, move or
// read), with nothing computed; the other aggregations take partialStates
// with every row its own group (ids in buf).
func rowStates(a *groupArgs, fns []kernel.AggFunc, rec arrow.Record, buf *[]int32) ([][]arrow.Array, error) {
	n := int(rec.NumRows())
	states := make([][]arrow.Array, len(fns))
	count := func() arrow.Array { return kernel.OneEach(n) }
	for i, fn := range fns {
		if fn == kernel.Size {
			states[i] = []arrow.Array{count()}
			continue
		}
		j, err := columnIndex(rec.Schema(), a.Aggs[i].Col)
		if err != nil {
			return nil, err
		}
		col := rec.Column(j)
		_, isInt := col.(*array.Int64)
		_, isFloat := col.(*array.Float64)
		if col.NullN() > 0 || !isInt && !isFloat {
			continue
		}
		switch {
		case fn == kernel.Count:
			states[i] = []arrow.Array{count()}
		case fn == kernel.Sum || fn == kernel.Min || fn == kernel.Max:
			col.Retain()
			states[i] = []arrow.Array{col}
		case fn == kernel.Mean && isFloat:
			col.Retain()
			states[i] = []arrow.Array{col, count()}
		}
	}
	for i, st := range states {
		if st != nil {
			continue
		}
		*buf = identity(*buf, n)
		rest, err := partialStates(&groupArgs{Aggs: a.Aggs[i : i+1]}, fns[i:i+1], rec, *buf, n)
		if err != nil {
			return nil, err
		}
		states[i] = rest[0]
	}
	return states, nil
}

func groupCount(gkeys []arrow.Array) int { return gkeys[0].Len() }

// probeRows is how many leading rows mostlyDistinct groups.
const probeRows = 4096

// mostlyDistinct reports whether the leading rows of a partition several
// times their number have more than 90% distinct keys. Keys that group by
// direct indexing over fewer codes than half the partition's rows are
// never skipped: a sample of them looks distinct where the partition
// repeats each code, and their table is small. Over more codes (at 1e8
// rows, db-benchmark's q5 groups 1.25M rows by a million), pre-aggregating
// shrinks the partition by less than half, at a cache miss a row. (Checked
// last: it reads the whole key column.)
func mostlyDistinct(keys []arrow.Array) bool {
	if len(keys) == 0 || keys[0].Len() < 4*probeRows {
		return false
	}
	head := make([]arrow.Array, len(keys))
	for i, k := range keys {
		head[i] = array.NewSlice(k, 0, probeRows)
		defer head[i].Release()
	}
	_, firsts := kernel.GroupRows(head, nil)
	if len(firsts) <= probeRows*9/10 {
		return false
	}
	size := kernel.DenseSize(keys)
	return size == 0 || size > keys[0].Len()/2
}

// identity numbers n rows as n groups, into buf if it is large enough.
func identity(buf []int32, n int) []int32 {
	if cap(buf) < n {
		buf = make([]int32, n)
	}
	buf = buf[:n]
	for i := range buf {
		buf[i] = int32(i)
	}
	return buf
}

// partialStates computes each aggregation's state columns over rec's rows
// grouped by ids into n groups.
func partialStates(a *groupArgs, fns []kernel.AggFunc, rec arrow.Record, ids []int32, n int) ([][]arrow.Array, error) {
	states := make([][]arrow.Array, len(fns))
	for i, fn := range fns {
		cols := make([]arrow.Array, fn.Inputs())
		for c, name := range []string{a.Aggs[i].Col, a.Aggs[i].Col2}[:fn.Inputs()] {
			j, err := columnIndex(rec.Schema(), name)
			if err != nil {
				return nil, err
			}
			cols[c] = rec.Column(j)
		}
		st, err := kernel.Partial(fn, cols, ids, n)
		if err != nil {
			releaseStates(states[:i])
			return nil, fmt.Errorf("%s of column %s: %w", fn, a.Aggs[i].Col, err)
		}
		states[i] = st
	}
	return states, nil
}

func aggCombineOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a groupArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opAggCombine, err)
	}
	return combineStates(&a, inputs)
}

// combineStates merges partial state records into one.
func combineStates(a *groupArgs, inputs []any) (arrow.Record, error) {
	fns, err := a.funcs()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opAggCombine, err)
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%s: no partial aggregates", opAggCombine)
	}
	// The inputs' keys are grouped as one (kernel.GroupPieces), each
	// input's states merged by its rows' groups.
	keyParts := make([][]arrow.Array, len(inputs))
	perAgg := make([][][]arrow.Array, len(fns)) // agg -> input -> state columns
	for r, in := range inputs {
		rec, ok := in.(arrow.Record)
		if !ok {
			return nil, fmt.Errorf("%s: input is a %T, not a partial aggregate", opAggCombine, in)
		}
		keys, _, err := keyColumns(rec, a.Keys)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opAggCombine, err)
		}
		keyParts[r] = keys
		col := len(a.Keys)
		for i, fn := range fns {
			k := numStates(fn)
			perAgg[i] = append(perAgg[i], rec.Columns()[col:col+k])
			col += k
		}
	}
	ids, gkeys, err := kernel.GroupPieces(keyParts)
	if err != nil {
		return nil, fmt.Errorf("%s: keys %v: %w", opAggCombine, a.Keys, err)
	}
	n := groupCount(gkeys)
	states := make([][]arrow.Array, len(fns))
	for i, fn := range fns {
		st, err := kernel.Merge(fn, perAgg[i], ids, n)
		if err != nil {
			releaseStates(append(states[:i], gkeys))
			return nil, fmt.Errorf("%s: %s of column %s: %w", opAggCombine, fn, a.Aggs[i].Col, err)
		}
		states[i] = st
	}
	return stateRecord(a, fns, gkeys, states), nil
}

func aggFinalOp(a *groupArgs, rec arrow.Record) (arrow.Record, error) {
	fns, err := a.funcs()
	if err != nil {
		return nil, err
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for i, k := range a.Keys {
		fields = append(fields, arrow.Field{Name: k, Type: rec.Column(i).DataType(), Nullable: true})
		cols = append(cols, rec.Column(i))
	}
	col := len(a.Keys)
	for i, fn := range fns {
		k := numStates(fn)
		res := kernel.Final(fn, rec.Columns()[col:col+k])
		defer res.Release()
		if j := len(a.Keys) + i; j < len(a.Out) {
			res = retype(res, typeNamed(a.Out[j].Type))
		}
		fields = append(fields, arrow.Field{Name: a.Aggs[i].As, Type: res.DataType(), Nullable: true})
		cols = append(cols, res)
		col += k
	}
	out := array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	return sortedByKeys(a, out), nil
}

// sortedByKeys sorts a result by its keys when it is the whole result (one
// partition), as pandas; a split result is not, as Dask's split_out. It
// takes over rec.
func sortedByKeys(a *groupArgs, rec arrow.Record) arrow.Record {
	if !a.Sort {
		return rec
	}
	defer rec.Release()
	return kernel.TakeRecord(rec, kernel.SortIndices(rec.Columns()[:len(a.Keys)], trues(len(a.Keys))))
}

// aggUnpackOp combines the partial aggregates shuffled to one output of a
// SplitOut aggregation and finishes them.
func aggUnpackOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a groupArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opAggUnpack, err)
	}
	if tc != nil && tc.Pieces != nil && len(tc.Pieces[0]) == 0 {
		return emptyRecord(a.Out), nil
	}
	// The pieces are combined as they are: the states need no
	// concatenating first, only the keys do.
	states, release, err := pieceRecords(opAggUnpack, tc, inputs)
	if err != nil {
		return nil, err
	}
	defer release()
	combined, err := combineStates(&a, states)
	if err != nil {
		return nil, err
	}
	defer combined.Release()
	out, err := aggFinalOp(&a, combined)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opAggUnpack, err)
	}
	return out, nil
}

// groupRowsOp runs a grouped step on rows that a shuffle has brought
// together by their keys.
func groupRowsOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a groupArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opGroupRows, err)
	}
	rec, err := gathered(opGroupRows, tc, inputs, 0, nil)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	out, err := groupRows(tc, &a, rec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opGroupRows, err)
	}
	return out, nil
}

func groupRows(tc *registry.Context, a *groupArgs, rec arrow.Record) (arrow.Record, error) {
	if rec.NumRows() == 0 {
		return emptyRecord(a.Out), nil
	}
	keys, _, err := keyColumns(rec, a.Keys)
	if err != nil {
		return nil, err
	}
	ids, gkeys := kernel.GroupKeys(keys, nil)
	defer func() {
		for _, k := range gkeys {
			k.Release()
		}
	}()
	n := groupCount(gkeys)
	switch a.Mode {
	case modeTopN:
		col, err := columnIndex(rec.Schema(), a.Col)
		if err != nil {
			return nil, err
		}
		rows := kernel.GroupTopN(rec.Column(col), ids, n, a.K, a.Largest)
		return kernel.TakeRecord(rec, rows), nil
	case modeApply:
		return applyGroups(tc, a, rec, ids, n)
	}
	results, err := holisticAggs(a, rec, ids, n)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, r := range results {
			r.Release()
		}
	}()
	if a.Mode == modeTransform {
		fields := slices.Clone(rec.Schema().Fields())
		cols := slices.Clone(rec.Columns())
		var owned []arrow.Array
		for i, r := range results {
			c := kernel.Take(r, ids)
			owned = append(owned, c)
			fields = append(fields, arrow.Field{Name: a.Aggs[i].As, Type: c.DataType(), Nullable: true})
			cols = append(cols, c)
		}
		defer func() {
			for _, c := range owned {
				c.Release()
			}
		}()
		return array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
	}
	fields := make([]arrow.Field, 0, len(gkeys)+len(results))
	cols := append(slices.Clone(gkeys), results...)
	for i, k := range gkeys {
		fields = append(fields, arrow.Field{Name: a.Keys[i], Type: k.DataType(), Nullable: true})
	}
	for i, r := range results {
		if j := len(a.Keys) + i; j < len(a.Out) {
			if t := retype(r, typeNamed(a.Out[j].Type)); t != r {
				r.Release()
				r, results[i], cols[len(a.Keys)+i] = t, t, t
			}
		}
		fields = append(fields, arrow.Field{Name: a.Aggs[i].As, Type: r.DataType(), Nullable: true})
	}
	return sortedByKeys(a, array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n))), nil
}

func trues(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

// holisticAggs computes each aggregation of a over all its groups' rows.
func holisticAggs(a *groupArgs, rec arrow.Record, ids []int32, n int) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(a.Aggs))
	fail := func(err error) ([]arrow.Array, error) {
		for _, r := range out {
			r.Release()
		}
		return nil, err
	}
	for _, s := range a.Aggs {
		var col arrow.Array
		if s.Col != "" {
			j, err := columnIndex(rec.Schema(), s.Col)
			if err != nil {
				return fail(err)
			}
			col = rec.Column(j)
		}
		var r arrow.Array
		var err error
		if h, ok := holistics[s.Hol]; ok {
			if h.numeric {
				// Integers of every width, and decimals at their value.
				col = kernel.WidenFloat(col)
				defer col.Release()
			}
			r, err = h.compute(col, ids, n, s.Q)
		} else {
			one := groupArgs{Aggs: []aggSpec{s}}
			fns, ferr := one.funcs()
			if ferr != nil {
				return fail(ferr)
			}
			states, serr := partialStates(&one, fns, rec, ids, n)
			if serr != nil {
				return fail(serr)
			}
			r = kernel.Final(fns[0], states[0])
			for _, c := range states[0] {
				c.Release()
			}
		}
		if err != nil {
			return fail(fmt.Errorf("%s: %w", s.As, err))
		}
		out = append(out, r)
	}
	return out, nil
}
