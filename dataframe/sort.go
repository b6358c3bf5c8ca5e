package dataframe

import (
	"context"
	"fmt"

	"github.com/duskdata/dusk/dataframe/internal/agg"
	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

// SortValues sorts the rows by cols, the first deciding first, each
// ascending unless ascending says otherwise (one flag for all, or one per
// column); nulls come last. Rows are range-partitioned on the first column
// by boundaries from a sample of every partition, then each partition is
// sorted: the partitions, in order, hold the sorted frame.
func (f *Frame) SortValues(cols []string, ascending ...bool) *Frame {
	if f.err != nil {
		return f
	}
	if len(cols) == 0 {
		return failed(fmt.Errorf("SortValues: no columns given"))
	}
	asc := make([]bool, len(cols))
	switch len(ascending) {
	case 0:
		asc = agg.Trues(len(cols))
	case 1:
		for i := range asc {
			asc[i] = ascending[0]
		}
	case len(cols):
		copy(asc, ascending)
	default:
		return failed(fmt.Errorf("SortValues: %d columns but %d directions", len(cols), len(ascending)))
	}
	for _, c := range cols {
		if _, err := expr.Field(f.plan.Schema(), c); err != nil {
			return failed(fmt.Errorf("SortValues: %w", err))
		}
	}
	return &Frame{plan: plan.NewSort(f.plan, exchange.SortArgs{By: cols, Asc: asc})}
}

// SetIndex sorts the frame by col, ascending, so that Loc can select
// ranges of it; the partitions' boundaries come from sampled quantiles.
func (f *Frame) SetIndex(col string) *Frame { return f.SortValues([]string{col}) }

// Loc keeps the rows whose sorted index column (SetIndex) lies within
// [lo, hi], bounds included; a nil bound is open. Each partition is
// searched, not scanned, and the rows are not copied.
func (f *Frame) Loc(lo, hi any) *Frame {
	if f.err != nil {
		return f
	}
	idx := f.plan.Partitioning().Sorted
	if idx == "" {
		return failed(fmt.Errorf("Loc: the frame has no sorted index: call SetIndex first"))
	}
	fl, _ := expr.Field(f.plan.Schema(), idx)
	kind, _ := kernel.KindOf(fl.Type)
	bounds := make([]*expr.Literal, 2)
	for i, v := range []any{lo, hi} {
		if v == nil {
			continue
		}
		var l expr.Literal
		if e, ok := v.(Expr); ok && e.n.Op == "lit" && e.n.Lit != nil { // Date("1994-01-01")
			l = *e.n.Lit
		} else {
			var err error
			if l, err = expr.MakeLiteral(v); err != nil {
				return failed(fmt.Errorf("Loc: %w", err))
			}
		}
		numeric := func(k kernel.Kind) bool { return k == kernel.KindInt || k == kernel.KindFloat }
		if lk := l.LogicalKind(); kind == kernel.KindBool || numeric(lk) != numeric(kind) || !numeric(kind) && lk != kind {
			return failed(fmt.Errorf("Loc: bound %v is %s, the index %s is %s", v, l.LogicalKind(), idx, kind))
		}
		if ts, ok := fl.Type.(*arrow.TimestampType); ok {
			// The bound in the index's unit: the first value at or after lo,
			// the last at or before hi.
			div := int64(1e9) / kernel.UnitsPerSecond(ts.Unit)
			l.I = expr.FloorDiv(l.I+int64(1-i)*(div-1), div)
		}
		bounds[i] = &l
	}
	return &Frame{plan: plan.NewLoc(f.plan, exchange.LocArgs{Col: idx, Lo: bounds[0], Hi: bounds[1]})}
}

// NLargest keeps the n rows with the largest values of cols (the first
// deciding first), largest first, as pandas' nlargest: each partition's
// best n, then those combined a few at a time.
func (f *Frame) NLargest(n int, cols ...string) *Frame { return f.topN("NLargest", n, cols, false) }

// NSmallest keeps the n rows with the smallest values of cols.
func (f *Frame) NSmallest(n int, cols ...string) *Frame { return f.topN("NSmallest", n, cols, true) }

func (f *Frame) topN(what string, n int, cols []string, asc bool) *Frame {
	if f.err != nil {
		return f
	}
	if n < 0 {
		return failed(fmt.Errorf("%s(%d): the number of rows cannot be negative", what, n))
	}
	if len(cols) == 0 {
		return failed(fmt.Errorf("%s: no columns given", what))
	}
	for _, c := range cols {
		if _, err := expr.Field(f.plan.Schema(), c); err != nil {
			return failed(fmt.Errorf("%s: %w", what, err))
		}
	}
	a := exchange.TopArgs{By: cols, K: n}
	for range cols {
		a.Asc = append(a.Asc, asc)
	}
	return &Frame{plan: plan.NewTop(f.plan, a)}
}

// ValueCounts counts the rows of each non-null value of col, as a frame of
// col and "count", most frequent first (ties by value).
func (f *Frame) ValueCounts(col string) *Frame {
	return f.GroupBy(col).Agg(Size().As("count")).SortValues([]string{"count", col}, false, true)
}

// Nunique counts the distinct non-null values of col.
func (f *Frame) Nunique(ctx context.Context, col string) (int64, error) {
	return f.Select(col).Filter(Col(col).NotNull()).DropDuplicates().Len(ctx)
}
