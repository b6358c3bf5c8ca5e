package dataframe

import (
	"fmt"
	"slices"

	"github.com/duskdata/dusk/dataframe/internal/agg"
	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

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

// SplitOut spreads the result over n partitions by a hash of the keys, as
// Dask's split_out: for many groups, which one partition would not hold
// well. The partial aggregates are shuffled peer to peer.
func (g *Grouped) SplitOut(n int) *Grouped {
	c := *g
	c.splitOut = n
	return &c
}

// Agg aggregates the whole frame into one row, as Polars'
// df.select(pl.col("v").sum()) or SQL's aggregate without GROUP BY, such as
// f.Agg(Col("price").Mul(Col("qty")).Sum().As("revenue")). A frame of no
// rows gives no row.
func (f *Frame) Agg(aggs ...Agg) *Frame {
	if f.err != nil {
		return f
	}
	if slices.Contains(f.Columns(), agg.AllRows) {
		return failed(fmt.Errorf("Agg: the frame has a column named %s, which Agg uses itself", agg.AllRows))
	}
	out := f.WithColumn(agg.AllRows, Lit(int64(0))).GroupBy(agg.AllRows).Agg(aggs...)
	if out.err != nil {
		return failed(fmt.Errorf("Agg: %w", out.err))
	}
	out = out.Drop(agg.AllRows)
	// Of no rows, the answer is one row, as SQL's and pandas': the row of
	// an empty input follows the answer, and the first row is kept.
	empty, err := emptyAnswer(out.plan.Schema(), aggs)
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
		switch zero := a.fn.ZeroOverNothing() && !a.orNull; {
		case zero && expr.PhysicalKind(t) == kernel.KindFloat:
			cols[i] = expr.Retype(kernel.NewFloat64([]float64{0}, nil), t)
		case zero:
			cols[i] = expr.Retype(kernel.NewInt64([]int64{0}, nil), t)
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
func (g *Grouped) check(what string) ([]arrow.Field, ops.SetOf, error) {
	in := g.f.plan.Schema()
	if len(g.keys) == 0 {
		return nil, nil, fmt.Errorf("GroupBy: no key columns given")
	}
	var fields []arrow.Field
	names := ops.SetOf{}
	for _, k := range g.keys {
		fl, err := expr.Field(in, k)
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
func (g *Grouped) aggFields(what string, aggs []Agg, names ops.SetOf) ([]arrow.Field, []agg.Spec, error) {
	in := g.f.plan.Schema()
	if len(aggs) == 0 && what != "Agg" { // Agg() alone gives the distinct keys, as Polars' agg()
		return nil, nil, fmt.Errorf("GroupBy(%v).%s: no aggregations given", g.keys, what)
	}
	var fields []arrow.Field
	var specs []agg.Spec
	for _, a := range aggs {
		typ := arrow.DataType(kernel.Int64)
		if a.fn != kernel.Size {
			_, err := g.numericOr(in, a, a.col)
			if err != nil {
				return nil, nil, fmt.Errorf("GroupBy(%v).%s %s: %w", g.keys, what, a.Name(), err)
			}
			if a.col2 != "" {
				if _, err := g.numericOr(in, a, a.col2); err != nil {
					return nil, nil, fmt.Errorf("GroupBy(%v).%s %s: %w", g.keys, what, a.Name(), err)
				}
			}
			colType := kernel.PlainType(in.Field(in.FieldIndices(a.col)[0]).Type)
			if a.fn == kernel.Quantile && !(a.q >= 0 && a.q <= 1) {
				return nil, nil, fmt.Errorf("GroupBy(%v).%s %s: the fraction %g is not in [0, 1]", g.keys, what, a.Name(), a.q)
			}
			typ = a.fn.LogicalResultType(colType)
		}
		if names[a.Name()] {
			return nil, nil, fmt.Errorf("GroupBy(%v).%s: two result columns are named %q; rename one with As", g.keys, what, a.Name())
		}
		names[a.Name()] = true
		fields = append(fields, arrow.Field{Name: a.Name(), Type: typ, Nullable: true})
		specs = append(specs, agg.Spec{Fn: a.fn.String(), Col: a.col, Col2: a.col2, Q: a.q, As: a.Name(), OrNull: a.orNull})
	}
	return fields, specs, nil
}

// numericOr checks that col exists and suits a, and returns its kind.
func (g *Grouped) numericOr(in *arrow.Schema, a Agg, col string) (kernel.Kind, error) {
	fl, err := expr.Field(in, col)
	if err != nil {
		return 0, err
	}
	kind, err := kernel.KindOf(fl.Type)
	if err != nil {
		return 0, err
	}
	if err := a.fn.CheckInput(kind); err != nil {
		return 0, fmt.Errorf("column %s: %w", col, err)
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
	return &Frame{plan: plan.NewGroupAgg(g.f.plan, agg.GroupArgs{Keys: g.keys, Aggs: specs, Mode: agg.ModeAgg, NullKeys: g.keepNulls},
		arrow.NewSchema(append(keyFields, fields...), nil), g.splitOut)}
}

// Transform adds to every row its group's aggregates, as pandas'
// groupby().transform: the rows come out grouped, each partition's by key.
func (g *Grouped) Transform(aggs ...Agg) *Frame {
	if g.f.err != nil {
		return g.f
	}
	_, names, err := g.check("Transform")
	if err != nil {
		return failed(err)
	}
	names.Add(g.f.Columns()...)
	fields, specs, err := g.aggFields("Transform", aggs, names)
	if err != nil {
		return failed(err)
	}
	out := arrow.NewSchema(append(slices.Clone(g.f.plan.Schema().Fields()), fields...), nil)
	return &Frame{plan: plan.NewGroupAgg(g.f.plan, agg.GroupArgs{Keys: g.keys, Aggs: specs, Mode: agg.ModeTransform, NullKeys: g.keepNulls}, out, g.splitOut)}
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
	if _, _, err := g.check(what); err != nil {
		return failed(err)
	}
	if n < 0 {
		return failed(fmt.Errorf("GroupBy(%v).%s(%d): the number of rows cannot be negative", g.keys, what, n))
	}
	if err := numericColumn(g.f.plan.Schema(), col); err != nil {
		return failed(fmt.Errorf("GroupBy(%v).%s: %w", g.keys, what, err))
	}
	return &Frame{plan: plan.NewGroupAgg(g.f.plan, agg.GroupArgs{Keys: g.keys, Mode: agg.ModeTopN, Col: col, K: n, Largest: largest, NullKeys: g.keepNulls},
		g.f.plan.Schema(), g.splitOut)}
}

// Apply runs the function registered under name (RegisterFunc) on each
// group's rows, which come sorted in the frame's order, and concatenates
// what it returns, which must have the columns of out.
func (g *Grouped) Apply(name string, out *arrow.Schema) *Frame {
	if g.f.err != nil {
		return g.f
	}
	if _, _, err := g.check("Apply"); err != nil {
		return failed(err)
	}
	if err := checkFunc(name, out); err != nil {
		return failed(fmt.Errorf("GroupBy(%v).Apply: %w", g.keys, err))
	}
	return &Frame{plan: plan.NewGroupAgg(g.f.plan, agg.GroupArgs{Keys: g.keys, Mode: agg.ModeApply, Func: name, Out: ops.SpecOf(out), NullKeys: g.keepNulls},
		kernel.PlainSchema(out), g.splitOut)}
}

func numericColumn(s *arrow.Schema, col string) error {
	fl, err := expr.Field(s, col)
	if err != nil {
		return err
	}
	if k, _ := kernel.KindOf(fl.Type); k != kernel.KindInt && k != kernel.KindFloat {
		return fmt.Errorf("column %s is %s, not numeric", col, kernel.TypeName(fl.Type))
	}
	return nil
}
