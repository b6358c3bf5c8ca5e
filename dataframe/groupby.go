package dataframe

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe/kernel"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

// Agg is an aggregation of a column within each group; its result column is
// named like "sum(v1)" unless renamed with As.
type Agg struct {
	fn  kernel.AggFunc
	col string
	as  string
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

// As names the result column.
func (a Agg) As(name string) Agg { a.as = name; return a }

// Name is the result column's name.
func (a Agg) Name() string {
	switch {
	case a.as != "":
		return a.as
	case a.fn == kernel.Size:
		return "size"
	}
	return fmt.Sprintf("%s(%s)", a.fn, a.col)
}

type aggSpec struct {
	Fn  string `json:"fn"`
	Col string `json:"col,omitempty"`
	As  string `json:"as"`
}

type groupArgs struct {
	Keys []string  `json:"keys"`
	Aggs []aggSpec `json:"aggs"`
}

// Grouped is a frame grouped by key columns, waiting for its aggregations.
type Grouped struct {
	f    *Frame
	keys []string
}

// GroupBy groups rows by the values of the key columns. Rows with a null key
// belong to no group (pandas' dropna=True).
func (f *Frame) GroupBy(keys ...string) *Grouped { return &Grouped{f: f, keys: keys} }

// Agg computes aggregations per group, as a tree reduction: a partial result
// per partition, combined splitEvery at a time, then finished. The result is
// one partition with a row per group, sorted by the keys.
func (g *Grouped) Agg(aggs ...Agg) *Frame {
	f := g.f
	if f.err != nil {
		return f
	}
	in := f.plan.schema()
	if len(g.keys) == 0 {
		return failed(fmt.Errorf("GroupBy: no key columns given"))
	}
	if len(aggs) == 0 {
		return failed(fmt.Errorf("GroupBy(%v).Agg: no aggregations given", g.keys))
	}
	var fields []arrow.Field
	names := map[string]bool{}
	for _, k := range g.keys {
		fl, err := field(in, k)
		if err != nil {
			return failed(fmt.Errorf("GroupBy: %w", err))
		}
		if names[k] {
			return failed(fmt.Errorf("GroupBy: key %q is given twice", k))
		}
		names[k] = true
		fields = append(fields, fl)
	}
	args := groupArgs{Keys: g.keys}
	for _, a := range aggs {
		kind := kernel.KindInt
		if a.fn != kernel.Size {
			fl, err := field(in, a.col)
			if err != nil {
				return failed(fmt.Errorf("GroupBy(%v).Agg %s: %w", g.keys, a.Name(), err))
			}
			if kind, err = kernel.KindOf(fl.Type); err != nil {
				return failed(fmt.Errorf("GroupBy(%v).Agg %s: %w", g.keys, a.Name(), err))
			}
			if err := a.fn.CheckInput(kind); err != nil {
				return failed(fmt.Errorf("GroupBy(%v).Agg %s: column %s: %w", g.keys, a.Name(), a.col, err))
			}
		}
		if names[a.Name()] {
			return failed(fmt.Errorf("GroupBy(%v).Agg: two result columns are named %q; rename one with As", g.keys, a.Name()))
		}
		names[a.Name()] = true
		fields = append(fields, arrow.Field{Name: a.Name(), Type: a.fn.ResultType(kind), Nullable: true})
		args.Aggs = append(args.Aggs, aggSpec{Fn: a.fn.String(), Col: a.col, As: a.Name()})
	}
	enc, err := json.Marshal(args)
	if err != nil {
		return failed(err)
	}
	return &Frame{plan: &groupAgg{parent: f.plan, args: enc, out: arrow.NewSchema(fields, nil),
		tok: graph.Name("groupby-agg", opAggFinal, enc, f.plan.name())}}
}

// groupAgg is a grouped aggregation step.
type groupAgg struct {
	parent node
	args   []byte
	out    *arrow.Schema
	tok    string
}

func (n *groupAgg) schema() *arrow.Schema { return n.out }
func (n *groupAgg) npartitions() int      { return 1 }
func (n *groupAgg) name() string          { return n.tok }

func (n *groupAgg) lower(l *lowering) []graph.Key {
	parts := l.keys(n.parent)
	name := graph.Name("groupby-partial", opAggPartial, n.args, n.parent.name())
	partials := make([]graph.Key, len(parts))
	for i, k := range parts {
		partials[i] = graph.Part(name, i)
		l.g.Add(&graph.Task{Key: partials[i], Op: opAggPartial, Args: n.args, Inputs: []graph.Key{k}})
	}
	combined := treeReduce(l.g, "groupby-combine", opAggCombine, n.args, partials)
	final := graph.Part(n.tok, 0)
	l.g.Add(&graph.Task{Key: final, Op: opAggFinal, Args: n.args, Inputs: []graph.Key{combined}})
	return []graph.Key{final}
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

func numStates(fn kernel.AggFunc) int { return len(fn.StateTypes(kernel.KindFloat)) }

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

// idBuffers recycles the group-id buffers of partial aggregations: one int32
// a row, garbage as soon as the partial states are made.
var idBuffers = sync.Pool{New: func() any { return new([]int32) }}

func aggPartialOp(a *groupArgs, rec arrow.Record) (arrow.Record, error) {
	fns, err := a.funcs()
	if err != nil {
		return nil, err
	}
	keys, types, err := keyColumns(rec, a.Keys)
	if err != nil {
		return nil, err
	}
	grouper, err := kernel.NewGrouper(types)
	if err != nil {
		return nil, err
	}
	buf := idBuffers.Get().(*[]int32)
	defer idBuffers.Put(buf)
	ids := grouper.Add(keys, *buf)
	*buf = ids
	n := grouper.NumGroups()
	states := make([][]arrow.Array, len(fns))
	for i, fn := range fns {
		var col arrow.Array
		if fn != kernel.Size {
			j, err := columnIndex(rec.Schema(), a.Aggs[i].Col)
			if err != nil {
				return nil, err
			}
			col = rec.Column(j)
		}
		states[i] = kernel.Partial(fn, col, ids, n)
	}
	return stateRecord(a, fns, grouper.Keys(), states), nil
}

func aggCombineOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a groupArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opAggCombine, err)
	}
	fns, err := a.funcs()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opAggCombine, err)
	}
	var grouper *kernel.Grouper
	ids := make([][]int32, len(inputs))
	perAgg := make([][][]arrow.Array, len(fns)) // agg -> input -> state columns
	for r, in := range inputs {
		rec, ok := in.(arrow.Record)
		if !ok {
			return nil, fmt.Errorf("%s: input is a %T, not a partial aggregate", opAggCombine, in)
		}
		keys, types, err := keyColumns(rec, a.Keys)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opAggCombine, err)
		}
		if grouper == nil {
			if grouper, err = kernel.NewGrouper(types); err != nil {
				return nil, fmt.Errorf("%s: %w", opAggCombine, err)
			}
		}
		ids[r] = grouper.Add(keys, nil)
		col := len(a.Keys)
		for i, fn := range fns {
			k := numStates(fn)
			perAgg[i] = append(perAgg[i], rec.Columns()[col:col+k])
			col += k
		}
	}
	n := grouper.NumGroups()
	states := make([][]arrow.Array, len(fns))
	for i, fn := range fns {
		states[i] = kernel.Merge(fn, perAgg[i], ids, n)
	}
	return stateRecord(&a, fns, grouper.Keys(), states), nil
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
		fields = append(fields, arrow.Field{Name: a.Aggs[i].As, Type: res.DataType(), Nullable: true})
		cols = append(cols, res)
		col += k
	}
	asc := make([]bool, len(a.Keys))
	for i := range asc {
		asc[i] = true
	}
	out := array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	defer out.Release()
	return kernel.TakeRecord(out, kernel.SortIndices(cols[:len(a.Keys)], asc)), nil
}
