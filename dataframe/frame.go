package dataframe

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
)

// Frame is a lazy, partitioned dataframe. Methods return new frames and never
// change the one they are called on.
type Frame struct {
	plan node
	err  error
}

func failed(err error) *Frame { return &Frame{err: err} }

// frameOf is the frame of a plan, or of the error making it.
func frameOf(plan node, err error) *Frame {
	if err != nil {
		return failed(err)
	}
	return &Frame{plan: plan}
}

// Err returns the first error made in building the frame, or nil.
func (f *Frame) Err() error { return f.err }

// Schema is the frame's columns and their types.
func (f *Frame) Schema() *arrow.Schema {
	if f.err != nil {
		return arrow.NewSchema(nil, nil)
	}
	return f.plan.schema()
}

// Columns lists the column names.
func (f *Frame) Columns() []string { return names(f.Schema()) }

// NumPartitions is how many partitions the frame has.
func (f *Frame) NumPartitions() int {
	if f.err != nil {
		return 0
	}
	return f.plan.npartitions()
}

// Select keeps the named columns, in the order given.
func (f *Frame) Select(cols ...string) *Frame {
	if f.err != nil {
		return f
	}
	if len(cols) == 0 {
		return failed(fmt.Errorf("Select: no columns given"))
	}
	in := f.plan.schema()
	fields := make([]arrow.Field, len(cols))
	seen := map[string]bool{}
	for i, c := range cols {
		fl, err := expr.Field(in, c)
		if err != nil {
			return failed(fmt.Errorf("Select: %w", err))
		}
		if seen[c] {
			return failed(fmt.Errorf("Select: column %q is named twice", c))
		}
		seen[c] = true
		fields[i] = fl
	}
	return &Frame{plan: newProject(f.plan, cols)}
}

// Filter keeps the rows where pred is true; rows where it is false or null
// go, as in SQL's WHERE.
func (f *Frame) Filter(pred Expr) *Frame {
	if f.err != nil {
		return f
	}
	k, err := pred.n.KindOf(f.plan.schema())
	if err != nil {
		return failed(fmt.Errorf("Filter %s: %w", pred, err))
	}
	if k != kernel.KindBool {
		return failed(fmt.Errorf("Filter %s: the predicate is %s, not bool", pred, k))
	}
	return &Frame{plan: newFilter(f.plan, expr.Fold(pred.n))}
}

// WithColumn adds the column name computed by e, or replaces the column of
// that name in place.
func (f *Frame) WithColumn(name string, e Expr) *Frame {
	if f.err != nil {
		return f
	}
	if name == "" {
		return failed(fmt.Errorf("WithColumn: the column needs a name"))
	}
	in := f.plan.schema()
	t, err := e.n.TypeOf(in)
	if err == nil && t.ID() == arrow.INTERVAL_MONTHS {
		err = fmt.Errorf("months are not a column's type: add them to a date or timestamp")
	}
	if err != nil {
		return failed(fmt.Errorf("WithColumn %s = %s: %w", name, e, err))
	}
	return &Frame{plan: newAssign(f.plan, name, expr.Fold(e.n))}
}

// executor finds where to run f.
func (f *Frame) executor(ctx context.Context) (collections.Executor, error) {
	if f.err != nil {
		return nil, f.err
	}
	return collections.ExecutorFrom(ctx)
}

// Compute runs the plan and returns the whole frame in memory. The table
// holds Arrow data: Release it when done to return memory at once.
func (f *Frame) Compute(ctx context.Context) (*Table, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return nil, err
	}
	run, release, err := adapt(ctx, ex, optimize(f.plan))
	if err != nil {
		return nil, err
	}
	defer release()
	l := newLowering()
	keys := l.keys(run)
	values, err := ex.Compute(ctx, l.g, keys)
	runtime.KeepAlive(f) // a persisted frame's pin holds its keys until here
	if err != nil {
		return nil, err
	}
	return collect(f.plan.schema(), values)
}

// collect concatenates computed partitions into a table, releasing them.
func collect(schema *arrow.Schema, values []any) (*Table, error) {
	recs := make([]arrow.Record, len(values))
	for i, v := range values {
		recs[i] = v.(arrow.Record)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	rec, err := kernel.ConcatRecords(schema, recs)
	if err != nil {
		return nil, fmt.Errorf("collect partitions: %w", err)
	}
	return &Table{rec: rec}, nil
}

// Persist runs the plan and keeps its partitions in the workers' memory; the
// frame it returns reads them from there. They are released when Release is
// called on that frame, or when it is no longer reachable.
func (f *Frame) Persist(ctx context.Context) (*Frame, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return nil, err
	}
	if p, ok := f.plan.(*persisted); ok {
		return &Frame{plan: p}, nil
	}
	run, release, err := adapt(ctx, ex, optimize(f.plan))
	if err != nil {
		return nil, err
	}
	defer release()
	p, err := persist(ctx, ex, run, f.plan.schema(), f.plan.name())
	runtime.KeepAlive(f)
	if err != nil {
		return nil, err
	}
	if !mayShrink(run) { // the rows read are the rows held
		p.rows = estimate(run).rows
	}
	return &Frame{plan: p}, nil
}

// Release lets the cluster drop the partitions a persisted frame stands on;
// it does nothing for a frame that was not persisted. The frame must not be
// used afterwards.
func (f *Frame) Release() {
	if p, ok := f.plan.(*persisted); ok {
		p.pin.Release()
	}
}

// persisted is a frame whose partitions are held by the workers.
type persisted struct {
	out   *arrow.Schema
	keys  []graph.Key
	tok   string
	parts partitioning
	pin   *collections.Pin
	bytes int64 // the partitions' memory; -1: unknown
	rows  int64 // -1: unknown
}

func (n *persisted) schema() *arrow.Schema       { return n.out }
func (n *persisted) npartitions() int            { return len(n.keys) }
func (n *persisted) name() string                { return n.tok }
func (n *persisted) children() []node            { return nil }
func (n *persisted) with([]node) node            { return n }
func (n *persisted) partitioning() partitioning  { return n.parts }
func (n *persisted) explain() string             { return "persisted " + strings.Join(names(n.out), ", ") }
func (n *persisted) lower(*lowering) []graph.Key { return n.keys }

// Len counts the rows.
func (f *Frame) Len(ctx context.Context) (int64, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return 0, err
	}
	run, release, err := adapt(ctx, ex, optimize(pruneTo(f.plan, nil)))
	if err != nil {
		return 0, err
	}
	defer release()
	n, err := countRows(ctx, ex, run)
	runtime.KeepAlive(f)
	return n, err
}

// countRows computes a plan's rows.
func countRows(ctx context.Context, ex collections.Executor, plan node) (int64, error) {
	l := newLowering()
	counts := l.mapParts(graph.Name("len", opLen, nil, plan.name()), opLen, nil, l.keys(plan))
	total := treeReduce(l.g, "len-sum", opSumInts, nil, counts)
	values, err := ex.Compute(ctx, l.g, []graph.Key{total})
	if err != nil {
		return 0, err
	}
	return values[0].(int64), nil
}

// splitEvery is how many results one reduction task combines (Dask's split_every).
const splitEvery = 8

// treeReduce adds tasks that combine keys splitEvery at a time, level by
// level, down to one, and returns that one's key.
func treeReduce(g *graph.Graph, prefix, op string, args []byte, keys []graph.Key) graph.Key {
	level := keys
	for depth := 0; len(level) > 1 || depth == 0; depth++ {
		names := make([]string, len(level))
		for i, k := range level {
			names[i] = string(k)
		}
		name := graph.Name(prefix, op, args, names...)
		var next []graph.Key
		for i := 0; i < len(level); i += splitEvery {
			k := graph.Part(name, len(next))
			g.Add(&graph.Task{Key: k, Op: op, Args: args, Inputs: level[i:min(i+splitEvery, len(level))], Combine: true})
			next = append(next, k)
		}
		level = next
	}
	return level[0]
}

// Head returns the first n rows, computing only as many leading partitions
// as it needs: first one, then twice as many at each round. (Dask's head
// looks at the first partition only.)
func (f *Frame) Head(ctx context.Context, n int) (*Table, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("Head(%d): the number of rows cannot be negative", n)
	}
	run, release, err := adapt(ctx, ex, optimize(f.plan))
	if err != nil {
		return nil, err
	}
	defer release()
	l := newLowering()
	parts := l.keys(run)
	args, _ := json.Marshal(headArgs{N: n})
	name := graph.Name("head", opHead, args, run.name())
	var got []any
	rows := 0
	for next, batch := 0, 1; next < len(parts) && rows < n; batch *= 2 {
		var keys []graph.Key
		for i := next; i < min(next+batch, len(parts)); i++ {
			k := graph.Part(name, i)
			l.g.Add(&graph.Task{Key: k, Op: opHead, Args: args, Inputs: []graph.Key{parts[i]}})
			keys = append(keys, k)
		}
		next += len(keys)
		values, err := ex.Compute(ctx, l.g, keys)
		runtime.KeepAlive(f)
		if err != nil {
			releaseValues(got)
			return nil, err
		}
		for _, v := range values {
			rows += int(v.(arrow.Record).NumRows())
		}
		got = append(got, values...)
	}
	t, err := collect(f.plan.schema(), got)
	if err != nil {
		return nil, err
	}
	if t.NumRows() > n {
		short := t.rec.NewSlice(0, int64(n))
		t.rec.Release()
		t.rec = short
	}
	return t, nil
}

func releaseValues(vs []any) {
	for _, v := range vs {
		if r, ok := v.(arrow.Record); ok {
			r.Release()
		}
	}
}

// project keeps some columns, in the order given.
type project struct {
	child node
	cols  []string
	out   *arrow.Schema
	tok   string
}

func newProject(child node, cols []string) *project {
	in := child.schema()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = in.Field(in.FieldIndices(c)[0])
	}
	return &project{child: child, cols: cols, out: arrow.NewSchema(fields, nil),
		tok: token("select", selectArgs{Columns: cols}, child)}
}

func (n *project) schema() *arrow.Schema      { return n.out }
func (n *project) npartitions() int           { return n.child.npartitions() }
func (n *project) name() string               { return n.tok }
func (n *project) children() []node           { return []node{n.child} }
func (n *project) with(c []node) node         { return newProject(c[0], n.cols) }
func (n *project) partitioning() partitioning { return n.child.partitioning().keptBy(n.out) }
func (n *project) explain() string            { return "select " + strings.Join(n.cols, ", ") }
func (n *project) lower(l *lowering) []graph.Key {
	return l.mapParts(n.tok, opSelect, mustJSON(selectArgs{Columns: n.cols}), l.keys(n.child))
}

// filter keeps the rows where a predicate holds.
type filter struct {
	child node
	pred  *expr.Node
	tok   string
}

func newFilter(child node, pred *expr.Node) *filter {
	return &filter{child: child, pred: pred, tok: token("filter", exprArgs{Expr: pred}, child)}
}

func (n *filter) schema() *arrow.Schema      { return n.child.schema() }
func (n *filter) npartitions() int           { return n.child.npartitions() }
func (n *filter) name() string               { return n.tok }
func (n *filter) children() []node           { return []node{n.child} }
func (n *filter) with(c []node) node         { return newFilter(c[0], n.pred) }
func (n *filter) partitioning() partitioning { return n.child.partitioning() }
func (n *filter) explain() string            { return "filter " + n.pred.String() }
func (n *filter) lower(l *lowering) []graph.Key {
	return l.mapParts(n.tok, opFilter, mustJSON(exprArgs{Expr: n.pred}), l.keys(n.child))
}

// assign adds or replaces a computed column.
type assign struct {
	child node
	col   string
	expr  *expr.Node
	out   *arrow.Schema
	tok   string
}

func newAssign(child node, name string, e *expr.Node) *assign {
	in := child.schema()
	t, _ := e.TypeOf(in)
	if t == nil || t.ID() == arrow.NULL {
		t = kernel.Float64 // a column of nulls is float, as in pandas
	}
	fields := append([]arrow.Field(nil), in.Fields()...)
	nf := arrow.Field{Name: name, Type: t, Nullable: true}
	if i := in.FieldIndices(name); len(i) > 0 {
		fields[i[0]] = nf
	} else {
		fields = append(fields, nf)
	}
	return &assign{child: child, col: name, expr: e, out: arrow.NewSchema(fields, nil),
		tok: token("assign", exprArgs{Name: name, Expr: e}, child)}
}

func (n *assign) schema() *arrow.Schema { return n.out }
func (n *assign) npartitions() int      { return n.child.npartitions() }
func (n *assign) name() string          { return n.tok }
func (n *assign) children() []node      { return []node{n.child} }
func (n *assign) with(c []node) node    { return newAssign(c[0], n.col, n.expr) }
func (n *assign) partitioning() partitioning {
	p := n.child.partitioning()
	if slices.Contains(p.hash, n.col) || slices.Contains(p.same, n.col) || p.sorted == n.col {
		return partitioning{}
	}
	return p.without(n.col)
}
func (n *assign) explain() string { return fmt.Sprintf("assign %s = %s", n.col, n.expr) }
func (n *assign) lower(l *lowering) []graph.Key {
	return l.mapParts(n.tok, opWithColumn, mustJSON(exprArgs{Name: n.col, Expr: n.expr}), l.keys(n.child))
}
