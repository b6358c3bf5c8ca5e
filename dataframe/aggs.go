package dataframe

import (
	"fmt"
	"slices"

	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

// Agg is an aggregation of a column within each group; its result column is
// named like "sum(v1)" unless renamed with As.
type Agg struct {
	expr *expr.Node     // what is aggregated, where not a column: computed first
	fn   kernel.AggFunc // tree-reduced or holistic, as the kernel's table says
	col  string
	col2 string  // Corr's second column
	q    float64 // Quantile's fraction
	as   string
	// orNull: null where the group has no value (OrNull).
	orNull bool
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

// Median is the median of the non-null values (holistic: the groups'
// rows are shuffled together first).
func Median(col string) Agg { return Agg{fn: kernel.Median, col: col} }

// Quantile is the q-quantile of the non-null values, interpolated linearly
// as pandas does (holistic).
func Quantile(col string, q float64) Agg { return Agg{fn: kernel.Quantile, col: col, q: q} }

// First is the group's first non-null value in the frame's order, as
// pandas' first (holistic).
func First(col string) Agg { return Agg{fn: kernel.First, col: col} }

// Last is the group's last non-null value in the frame's order (holistic).
func Last(col string) Agg { return Agg{fn: kernel.Last, col: col} }

// Nunique counts the distinct non-null values (holistic).
func Nunique(col string) Agg { return Agg{fn: kernel.Nunique, col: col} }

// As names the result column.
func (a Agg) As(name string) Agg { a.as = name; return a }

// OrNull makes a sum's answer for a group without a value null rather
// than 0: Sum(c).OrNull() is SQL's sum (pandas' min_count=1), where Sum is
// pandas'. The other aggregations answer there as they do without it.
func (a Agg) OrNull() Agg { a.orNull = a.fn == kernel.Sum; return a }

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
// Aggregate is the aggregation of e's values that the table of
// aggregations names name ("sum", "mean", "median", "nunique"...; see
// Aggregations), as a query language reaches them by name. Those that read
// more than one value (corr) or take a parameter (quantile) are built by
// their own functions.
func (e Expr) Aggregate(name string) (Agg, error) {
	fn, err := kernel.ParseAggFunc(name)
	switch {
	case err != nil:
		return Agg{}, err
	case fn == kernel.Size:
		return Size(), nil
	case fn.Inputs() != 1 || fn == kernel.Quantile:
		return Agg{}, fmt.Errorf("%s takes more than a column; use its own function", name)
	}
	return exprAgg(e, func(col string) Agg { return Agg{fn: fn, col: col} }), nil
}

// Aggregations lists the names of the table of aggregations that
// Aggregate takes, in the table's order.
func Aggregations() []string {
	var out []string
	for _, fn := range kernel.AggFuncs() {
		if fn.Inputs() == 1 && fn != kernel.Quantile || fn == kernel.Size {
			out = append(out, fn.String())
		}
	}
	return out
}

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
		key := string(ops.MustJSON(a.expr))
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
func reuseHidden(e *expr.Node, hidden map[string]string) *expr.Node {
	if len(e.Args) == 0 || len(hidden) == 0 {
		return e
	}
	c := *e
	c.Args = make([]*expr.Node, len(e.Args))
	for i, a := range e.Args {
		if col, ok := hidden[string(ops.MustJSON(a))]; ok {
			c.Args[i] = Col(col).n
			continue
		}
		c.Args[i] = reuseHidden(a, hidden)
	}
	return &c
}

// Name is the result column's name.
func (a Agg) Name() string {
	switch {
	case a.as != "":
		return a.as
	case a.fn == kernel.Quantile:
		return fmt.Sprintf("quantile(%s,%g)", a.col, a.q)
	case a.fn == kernel.Size:
		return "size"
	case a.fn == kernel.Corr:
		return fmt.Sprintf("corr(%s,%s)", a.col, a.col2)
	}
	return fmt.Sprintf("%s(%s)", a.fn, a.col)
}
