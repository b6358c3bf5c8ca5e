package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
)

// Persisted is a frame whose partitions are held by the workers.
type Persisted struct {
	Out   *arrow.Schema
	Keys  []graph.Key
	Tok   string
	parts partitioning
	Pin   *collections.Pin
	Bytes int64 // the partitions' memory; -1: unknown
	Rows  int64 // -1: unknown
}

func (n *Persisted) Schema() *arrow.Schema       { return n.Out }
func (n *Persisted) Npartitions() int            { return len(n.Keys) }
func (n *Persisted) Name() string                { return n.Tok }
func (n *Persisted) children() []Node            { return nil }
func (n *Persisted) with([]Node) Node            { return n }
func (n *Persisted) Partitioning() partitioning  { return n.parts }
func (n *Persisted) explain() string             { return "persisted " + strings.Join(Names(n.Out), ", ") }
func (n *Persisted) lower(*Lowering) []graph.Key { return n.Keys }

// CountRows computes a plan's rows.
func CountRows(ctx context.Context, ex collections.Executor, plan Node) (int64, error) {
	l := NewLowering()
	counts := l.MapParts(graph.Name("len", ops.OpLen, nil, plan.Name()), ops.OpLen, nil, l.Keys(plan))
	total := treeReduce(l.G, "len-sum", ops.OpSumInts, nil, counts)
	values, err := ex.Compute(ctx, l.G, []graph.Key{total})
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

// project keeps some columns, in the order given.
type project struct {
	child Node
	cols  []string
	out   *arrow.Schema
	tok   string
}

func NewProject(child Node, cols []string) *project {
	in := child.Schema()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = in.Field(in.FieldIndices(c)[0])
	}
	return &project{child: child, cols: cols, out: arrow.NewSchema(fields, nil),
		tok: token("select", ops.SelectArgs{Columns: cols}, child)}
}

func (n *project) Schema() *arrow.Schema      { return n.out }
func (n *project) Npartitions() int           { return n.child.Npartitions() }
func (n *project) Name() string               { return n.tok }
func (n *project) children() []Node           { return []Node{n.child} }
func (n *project) with(c []Node) Node         { return NewProject(c[0], n.cols) }
func (n *project) Partitioning() partitioning { return n.child.Partitioning().keptBy(n.out) }
func (n *project) explain() string            { return "select " + strings.Join(n.cols, ", ") }
func (n *project) lower(l *Lowering) []graph.Key {
	return l.MapParts(n.tok, ops.OpSelect, ops.MustJSON(ops.SelectArgs{Columns: n.cols}), l.Keys(n.child))
}

// filter keeps the rows where a predicate holds, of the columns keep
// names (nil: all): a column the predicate alone reads is not carried
// past it (TPC-H q13's 15M loaded order comments, read by a LIKE, were
// copied for the rows kept and then dropped by the join above).
type filter struct {
	child Node
	pred  *expr.Node
	keep  []string
	out   *arrow.Schema
	tok   string
}

func NewFilter(child Node, pred *expr.Node) *filter { return newFilterKeep(child, pred, nil) }

func newFilterKeep(child Node, pred *expr.Node, keep []string) *filter {
	out := child.Schema()
	if keep != nil {
		out = NewProject(child, keep).out
	}
	return &filter{child: child, pred: pred, keep: keep, out: out,
		tok: token("filter", ops.FilterArgs{Expr: pred, Keep: keep}, child)}
}

func (n *filter) Schema() *arrow.Schema      { return n.out }
func (n *filter) Npartitions() int           { return n.child.Npartitions() }
func (n *filter) Name() string               { return n.tok }
func (n *filter) children() []Node           { return []Node{n.child} }
func (n *filter) with(c []Node) Node         { return newFilterKeep(c[0], n.pred, n.keep) }
func (n *filter) Partitioning() partitioning { return n.child.Partitioning().keptBy(n.out) }
func (n *filter) explain() string {
	if n.keep == nil {
		return "filter " + n.pred.String()
	}
	return "filter " + n.pred.String() + ", keeps " + strings.Join(n.keep, ", ")
}
func (n *filter) lower(l *Lowering) []graph.Key {
	return l.MapParts(n.tok, ops.OpFilter, ops.MustJSON(ops.FilterArgs{Expr: n.pred, Keep: n.keep}), l.Keys(n.child))
}

// assign adds or replaces a computed column.
type assign struct {
	child Node
	col   string
	expr  *expr.Node
	out   *arrow.Schema
	tok   string
}

func NewAssign(child Node, name string, e *expr.Node) *assign {
	in := child.Schema()
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
		tok: token("assign", ops.ExprArgs{Name: name, Expr: e}, child)}
}

func (n *assign) Schema() *arrow.Schema { return n.out }
func (n *assign) Npartitions() int      { return n.child.Npartitions() }
func (n *assign) Name() string          { return n.tok }
func (n *assign) children() []Node      { return []Node{n.child} }
func (n *assign) with(c []Node) Node    { return NewAssign(c[0], n.col, n.expr) }
func (n *assign) Partitioning() partitioning {
	p := n.child.Partitioning()
	if slices.Contains(p.hash, n.col) || slices.Contains(p.same, n.col) || p.Sorted == n.col {
		return partitioning{}
	}
	return p.without(n.col)
}
func (n *assign) explain() string { return fmt.Sprintf("assign %s = %s", n.col, n.expr) }
func (n *assign) lower(l *Lowering) []graph.Key {
	return l.MapParts(n.tok, ops.OpWithColumn, ops.MustJSON(ops.ExprArgs{Name: n.col, Expr: n.expr}), l.Keys(n.child))
}
