package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/graph"
)

// ---- plan steps

// renaming is a step that renames columns.
type renaming struct {
	child Node
	names map[string]string
	out   *arrow.Schema
	tok   string
}

func (n *renaming) args() ops.RenameArgs {
	var a ops.RenameArgs
	for old, new := range n.names {
		a.Names = append(a.Names, [2]string{old, new})
	}
	slices.SortFunc(a.Names, func(x, y [2]string) int { return strings.Compare(x[0], y[0]) })
	return a
}

func NewRename(child Node, names map[string]string) *renaming {
	fields := slices.Clone(child.Schema().Fields())
	kept := map[string]string{}
	for i, fl := range fields {
		if new, ok := names[fl.Name]; ok {
			fields[i].Name, kept[fl.Name] = new, new
		}
	}
	n := &renaming{child: child, names: kept, out: arrow.NewSchema(fields, nil)}
	n.tok = token("rename", n.args(), child)
	return n
}

func (n *renaming) Schema() *arrow.Schema      { return n.out }
func (n *renaming) Npartitions() int           { return n.child.Npartitions() }
func (n *renaming) Name() string               { return n.tok }
func (n *renaming) children() []Node           { return []Node{n.child} }
func (n *renaming) with(c []Node) Node         { return NewRename(c[0], n.names) }
func (n *renaming) Partitioning() partitioning { return partitioning{} }
func (n *renaming) explain() string {
	var parts []string
	for _, p := range n.args().Names {
		parts = append(parts, p[0]+" -> "+p[1])
	}
	return "rename " + strings.Join(parts, ", ")
}
func (n *renaming) lower(l *Lowering) []graph.Key {
	return l.MapParts(n.tok, ops.OpRename, ops.MustJSON(n.args()), l.Keys(n.child))
}

// childNeed maps columns wanted of the output to the child's names.
func (n *renaming) childNeed(need ops.SetOf) ops.SetOf {
	back := map[string]string{}
	for old, new := range n.names {
		back[new] = old
	}
	out := ops.SetOf{}
	for c := range need {
		if old, ok := back[c]; ok {
			out[old] = true
		} else if _, moved := n.names[c]; !moved {
			out[c] = true
		}
	}
	return out
}

// mapNode is a step that runs one operation on each partition, keeping
// the schema it is given.
type mapNode struct {
	child  Node
	prefix string
	op     string
	args   any
	out    *arrow.Schema
	about  string
	tok    string
}

func NewMapNode(child Node, prefix, op string, args any, out *arrow.Schema, about string) *mapNode {
	return &mapNode{child: child, prefix: prefix, op: op, args: args, out: out, about: about, tok: token(prefix, args, child)}
}

func (n *mapNode) Schema() *arrow.Schema { return n.out }
func (n *mapNode) Npartitions() int      { return n.child.Npartitions() }
func (n *mapNode) Name() string          { return n.tok }
func (n *mapNode) children() []Node      { return []Node{n.child} }
func (n *mapNode) with(c []Node) Node {
	return NewMapNode(c[0], n.prefix, n.op, n.args, n.out, n.about)
}
func (n *mapNode) Partitioning() partitioning { return n.child.Partitioning() }
func (n *mapNode) explain() string            { return n.about }
func (n *mapNode) lower(l *Lowering) []graph.Key {
	return l.MapParts(n.tok, n.op, ops.MustJSON(n.args), l.Keys(n.child))
}

// limited is the first or last n rows, in one partition.
type limited struct {
	child Node
	args  exchange.LimitArgs
	tok   string
}

func NewLimit(child Node, n int, last bool) *limited {
	a := exchange.LimitArgs{N: n, Last: last, Out: ops.SpecOf(child.Schema())}
	return &limited{child: child, args: a, tok: token("limit", a, child)}
}

func (n *limited) Schema() *arrow.Schema      { return n.child.Schema() }
func (n *limited) Npartitions() int           { return 1 }
func (n *limited) Name() string               { return n.tok }
func (n *limited) children() []Node           { return []Node{n.child} }
func (n *limited) with(c []Node) Node         { return NewLimit(c[0], n.args.N, n.args.Last) }
func (n *limited) Partitioning() partitioning { return partitioning{} }
func (n *limited) explain() string {
	return fmt.Sprintf("%s %d rows", map[bool]string{false: "first", true: "last"}[n.args.Last], n.args.N)
}
func (n *limited) lower(l *Lowering) []graph.Key {
	per := ops.OpHead
	if n.args.Last {
		per = ops.OpTail
	}
	args := ops.MustJSON(n.args)
	local := l.MapParts(graph.Name("limit-local", per, args, n.child.Name()), per, ops.MustJSON(ops.HeadArgs{N: n.args.N}), l.Keys(n.child))
	return []graph.Key{treeReduce(l.G, "limit", exchange.OpLimit, args, local)}
}

// skipped is its child without the first n rows. Each partition learns
// how many rows come before it from a chain of running counts, so the
// partitions stay where they are.
type skipped struct {
	child Node
	n     int64
	tok   string
}

func NewSkip(child Node, n int64) *skipped {
	return &skipped{child: child, n: n, tok: token("skip", n, child)}
}

func (n *skipped) Schema() *arrow.Schema      { return n.child.Schema() }
func (n *skipped) Npartitions() int           { return n.child.Npartitions() }
func (n *skipped) Name() string               { return n.tok }
func (n *skipped) children() []Node           { return []Node{n.child} }
func (n *skipped) with(c []Node) Node         { return NewSkip(c[0], n.n) }
func (n *skipped) Partitioning() partitioning { return n.child.Partitioning() }
func (n *skipped) explain() string            { return fmt.Sprintf("skip the first %d rows", n.n) }
func (n *skipped) lower(l *Lowering) []graph.Key {
	in := l.Keys(n.child)
	args := ops.MustJSON(ops.SkipArgs{N: n.n})
	counts := l.MapParts(graph.Name("skip-len", ops.OpLen, nil, n.child.Name()), ops.OpLen, nil, in)
	before := graph.Name("skip-before", ops.OpSumInts, nil, n.child.Name())
	name := graph.Name("skip", ops.OpSkip, args, n.child.Name())
	out := make([]graph.Key, len(in))
	var prev []graph.Key // the running count of the rows before partition i
	for i, k := range in {
		out[i] = graph.Part(name, i)
		l.G.Add(&graph.Task{Key: out[i], Op: ops.OpSkip, Args: args, Inputs: append([]graph.Key{k}, prev...)})
		if i+1 < len(in) {
			run := graph.Part(before, i)
			l.G.Add(&graph.Task{Key: run, Op: ops.OpSumInts, Inputs: append(prev, counts[i])})
			prev = []graph.Key{run}
		}
	}
	return out
}

// stacked is the partitions of several frames, one after another, each
// aligned to one schema.
type stacked struct {
	parts []Node
	out   *arrow.Schema
	tok   string
}

func NewConcat(children []Node, out *arrow.Schema) *stacked {
	return &stacked{parts: children, out: out, tok: token("concat", ops.SpecOf(out), children...)}
}

func (n *stacked) Schema() *arrow.Schema { return n.out }
func (n *stacked) Npartitions() int {
	total := 0
	for _, c := range n.parts {
		total += c.Npartitions()
	}
	return total
}
func (n *stacked) Name() string               { return n.tok }
func (n *stacked) children() []Node           { return n.parts }
func (n *stacked) with(c []Node) Node         { return NewConcat(c, n.out) }
func (n *stacked) Partitioning() partitioning { return partitioning{} }
func (n *stacked) explain() string            { return fmt.Sprintf("concat %d frames", len(n.parts)) }
func (n *stacked) lower(l *Lowering) []graph.Key {
	var keys []graph.Key
	args := ops.MustJSON(ops.ConcatArgs{Out: ops.SpecOf(n.out)})
	for _, c := range n.parts {
		keys = append(keys, l.MapParts(graph.Name("align", ops.OpAlign, args, c.Name()), ops.OpAlign, args, l.Keys(c))...)
	}
	return keys
}

// FromGraph is a plan's leaf over another collection's tasks.
type FromGraph struct {
	G    *graph.Graph
	Keys []graph.Key
	Out  *arrow.Schema
	Tok  string
}

func (n *FromGraph) Schema() *arrow.Schema      { return n.Out }
func (n *FromGraph) Npartitions() int           { return len(n.Keys) }
func (n *FromGraph) Name() string               { return n.Tok }
func (n *FromGraph) children() []Node           { return nil }
func (n *FromGraph) with([]Node) Node           { return n }
func (n *FromGraph) Partitioning() partitioning { return partitioning{} }
func (n *FromGraph) explain() string            { return "from graph " + strings.Join(Names(n.Out), ", ") }
func (n *FromGraph) lower(l *Lowering) []graph.Key {
	l.G.Merge(n.G)
	return n.Keys
}

// needing is a step whose partitions' tasks ask for resources; the rows
// are its child's.
type needing struct {
	child Node
	res   graph.Resources
	tok   string
}

func NewNeeds(child Node, r graph.Resources) *needing {
	return &needing{child: child, res: r, tok: token("needs", r, child)}
}

func (n *needing) Schema() *arrow.Schema      { return n.child.Schema() }
func (n *needing) Npartitions() int           { return n.child.Npartitions() }
func (n *needing) Name() string               { return n.tok }
func (n *needing) children() []Node           { return []Node{n.child} }
func (n *needing) with(c []Node) Node         { return NewNeeds(c[0], n.res) }
func (n *needing) Partitioning() partitioning { return n.child.Partitioning() }
func (n *needing) explain() string            { return fmt.Sprintf("needs %s", n.res) }
func (n *needing) lower(l *Lowering) []graph.Key {
	ks := l.Keys(n.child)
	l.G.Require(ks, n.res)
	return ks
}

type mapPartitions struct {
	child Node
	fn    string
	out   *arrow.Schema
	tok   string
}

func NewMapPartitions(child Node, fn string, out *arrow.Schema) *mapPartitions {
	return &mapPartitions{child: child, fn: fn, out: out,
		tok: token("map-partitions", ops.FuncArgs{Func: fn, Out: ops.SpecOf(out)}, child)}
}

func (m *mapPartitions) Schema() *arrow.Schema      { return m.out }
func (m *mapPartitions) Npartitions() int           { return m.child.Npartitions() }
func (m *mapPartitions) Name() string               { return m.tok }
func (m *mapPartitions) children() []Node           { return []Node{m.child} }
func (m *mapPartitions) with(c []Node) Node         { return NewMapPartitions(c[0], m.fn, m.out) }
func (m *mapPartitions) Partitioning() partitioning { return partitioning{} }
func (m *mapPartitions) explain() string            { return "map partitions " + m.fn }
func (m *mapPartitions) lower(l *Lowering) []graph.Key {
	return l.MapParts(m.tok, ops.OpMapPartitions, ops.MustJSON(ops.FuncArgs{Func: m.fn, Out: ops.SpecOf(m.out)}), l.Keys(m.child))
}
