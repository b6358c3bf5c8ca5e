package dataframe

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

// Rename renames columns, old name to new; the others keep theirs.
func (f *Frame) Rename(names map[string]string) *Frame {
	if f.err != nil {
		return f
	}
	in := f.plan.Schema()
	fields := slices.Clone(in.Fields())
	for old, new := range names {
		i, err := expr.ColumnIndex(in, old)
		if err != nil {
			return failed(fmt.Errorf("Rename: %w", err))
		}
		fields[i].Name = new
	}
	seen := ops.SetOf{}
	for _, fl := range fields {
		if seen[fl.Name] {
			return failed(fmt.Errorf("Rename: two columns would be named %q", fl.Name))
		}
		seen[fl.Name] = true
	}
	return &Frame{plan: plan.NewRename(f.plan, names)}
}

// Drop removes columns.
func (f *Frame) Drop(cols ...string) *Frame {
	if f.err != nil {
		return f
	}
	gone := ops.SetOf{}
	for _, c := range cols {
		if _, err := expr.Field(f.plan.Schema(), c); err != nil {
			return failed(fmt.Errorf("Drop: %w", err))
		}
		gone[c] = true
	}
	var keep []string
	for _, c := range f.Columns() {
		if !gone[c] {
			keep = append(keep, c)
		}
	}
	return f.Select(keep...)
}

// FillNull replaces the nulls of each named column with its value (a
// literal or an Expr), as pandas' fillna with a dict.
func (f *Frame) FillNull(values map[string]any) *Frame {
	cols := make([]string, 0, len(values))
	for c := range values {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, c := range cols {
		if f.err == nil {
			if _, err := expr.Field(f.plan.Schema(), c); err != nil {
				return failed(fmt.Errorf("FillNull: %w", err))
			}
		}
		f = f.WithColumn(c, Col(c).FillNull(values[c]))
	}
	return f
}

// DropNulls drops the rows with a null in any of subset (every column if
// none is given), as pandas' dropna.
func (f *Frame) DropNulls(subset ...string) *Frame {
	if f.err != nil {
		return f
	}
	if len(subset) == 0 {
		subset = f.Columns()
	}
	var keep Expr
	for i, c := range subset {
		if _, err := expr.Field(f.plan.Schema(), c); err != nil {
			return failed(fmt.Errorf("DropNulls: %w", err))
		}
		if i == 0 {
			keep = Col(c).NotNull()
		} else {
			keep = keep.And(Col(c).NotNull())
		}
	}
	return f.Filter(keep)
}

// Limit keeps the first n rows, in one partition. After a sort it runs as
// a top-n: each partition keeps its best n rows and those are merged, with
// no full sort.
func (f *Frame) Limit(n int) *Frame { return f.limit("Limit", n, false) }

// Tail keeps the last n rows, in one partition.
func (f *Frame) Tail(n int) *Frame { return f.limit("Tail", n, true) }

// Slice keeps length rows from the offset-th on (length < 0: all the rest),
// as Polars' slice and SQL's LIMIT/OFFSET. With a length it runs as Limit
// (a top-n after a sort) of offset+length rows; without one the partitions
// stay where they are, each told how many rows precede it.
func (f *Frame) Slice(offset, length int) *Frame {
	if f.err != nil {
		return f
	}
	if offset < 0 {
		return failed(fmt.Errorf("Slice(%d, %d): the offset cannot be negative", offset, length))
	}
	g := f
	if length >= 0 {
		g = f.limit("Slice", offset+length, false)
	}
	if offset == 0 {
		return g
	}
	return &Frame{plan: plan.NewSkip(g.plan, int64(offset))}
}

func (f *Frame) limit(what string, n int, last bool) *Frame {
	if f.err != nil {
		return f
	}
	if n < 0 {
		return failed(fmt.Errorf("%s(%d): the number of rows cannot be negative", what, n))
	}
	if s, ok := f.plan.(*plan.Sorted); ok && !last {
		return &Frame{plan: plan.NewTop(s.Child, exchange.TopArgs{By: s.Args.By, Asc: s.Args.Asc, K: n})}
	}
	return &Frame{plan: plan.NewLimit(f.plan, n, last)}
}

// Sample keeps each row with probability fraction, as pandas' sample(frac=,
// random_state=): the same seed keeps the same rows of the same data.
func (f *Frame) Sample(fraction float64, seed uint64) *Frame {
	if f.err != nil {
		return f
	}
	if !(fraction >= 0 && fraction <= 1) {
		return failed(fmt.Errorf("Sample(%g): the fraction is not in [0, 1]", fraction))
	}
	a := ops.SampleArgs{Fraction: fraction, Seed: seed}
	return &Frame{plan: plan.NewMapNode(f.plan, "sample", ops.OpSampleN, a, f.plan.Schema(), fmt.Sprintf("sample %g (seed %d)", fraction, seed))}
}

// Concat stacks frames' rows, the first frame's partitions first. Columns
// line up by name, in the order they first appear; a frame without a column
// gives nulls there; a column's types meet as expressions' do (int32 and
// int64 as int64, ints and floats as float64), or Concat fails naming the
// column and the types.
func Concat(frames ...*Frame) *Frame {
	if len(frames) == 0 {
		return failed(fmt.Errorf("Concat: no frames"))
	}
	var fields []arrow.Field
	at := map[string]int{}
	children := make([]plan.Node, len(frames))
	for i, f := range frames {
		if f.err != nil {
			return f
		}
		children[i] = f.plan
		for _, fl := range f.plan.Schema().Fields() {
			j, ok := at[fl.Name]
			if !ok {
				at[fl.Name] = len(fields)
				fields = append(fields, arrow.Field{Name: fl.Name, Type: kernel.PlainType(fl.Type), Nullable: true})
				continue
			}
			t, ok := expr.CommonType(fields[j].Type, fl.Type)
			if !ok {
				return failed(fmt.Errorf("Concat: column %s is %s in frame 0 and %s in frame %d, which do not meet",
					fl.Name, expr.TypeName(fields[j].Type), expr.TypeName(fl.Type), i))
			}
			fields[j].Type = t
		}
	}
	return &Frame{plan: plan.NewConcat(children, arrow.NewSchema(fields, nil))}
}

// Describe summarizes the numeric columns as pandas' describe: a row each
// for count, mean, std, min, 25%, 50%, 75% and max, a column per numeric
// column, after a first column "statistic".
func (f *Frame) Describe(ctx context.Context) (*Table, error) {
	if f.err != nil {
		return nil, f.err
	}
	var cols []string
	for _, fl := range f.plan.Schema().Fields() {
		if k, _ := kernel.KindOf(fl.Type); k == kernel.KindInt || k == kernel.KindFloat || k == kernel.KindDecimal {
			cols = append(cols, fl.Name)
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("Describe: no numeric columns")
	}
	stats := []string{"count", "mean", "std", "min", "25%", "50%", "75%", "max"}
	var aggs []Agg
	for i, c := range cols {
		x := Col(c).Cast(Float64)
		for _, a := range []Agg{x.Count(), x.Mean(), x.Std(), x.Min(), x.Quantile(0.25), x.Median(), x.Quantile(0.75), x.Max()} {
			aggs = append(aggs, a.As(fmt.Sprintf("%d %s", i, a.Name())))
		}
	}
	const key = "__describe"
	tb, err := f.WithColumn(key, Lit(0)).GroupBy(key).Agg(aggs...).Compute(ctx)
	if err != nil {
		return nil, fmt.Errorf("Describe: %w", err)
	}
	defer tb.Release()
	rec := tb.Record()
	out := make([]arrow.Array, 0, len(cols)+1)
	names := kernel.NewString(stringOffsets(stats), []byte(strings.Join(stats, "")), nil)
	out = append(out, names)
	fields := []arrow.Field{{Name: "statistic", Type: kernel.String}}
	for i, c := range cols {
		vals := make([]float64, len(stats))
		valid := make([]byte, 1)
		for s := range stats {
			col := rec.Column(1 + i*len(stats) + s)
			if rec.NumRows() == 0 || col.IsNull(0) {
				continue
			}
			valid[0] |= 1 << s
			switch a := col.(type) {
			case *array.Int64:
				vals[s] = float64(a.Value(0))
			case *array.Float64:
				vals[s] = a.Value(0)
			}
		}
		out = append(out, kernel.NewFloat64(vals, valid))
		fields = append(fields, arrow.Field{Name: c, Type: kernel.Float64, Nullable: true})
	}
	res := array.NewRecord(arrow.NewSchema(fields, nil), out, int64(len(stats)))
	for _, a := range out {
		a.Release()
	}
	return &Table{rec: res}, nil
}

// stringOffsets are the offsets of strs laid end to end.
func stringOffsets(strs []string) []int32 {
	offs := make([]int32, len(strs)+1)
	for i, s := range strs {
		offs[i+1] = offs[i] + int32(len(s))
	}
	return offs
}
