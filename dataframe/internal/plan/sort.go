package plan

import (
	"fmt"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
)

// Sorted is a sort by a range shuffle.
type Sorted struct {
	Child Node
	Args  exchange.SortArgs
	tok   string
}

func NewSort(child Node, a exchange.SortArgs) *Sorted {
	a.Out = ops.SpecOf(child.Schema())
	return &Sorted{Child: child, Args: a, tok: token("sort", a, child)}
}

func (s *Sorted) Schema() *arrow.Schema { return s.Child.Schema() }
func (s *Sorted) Npartitions() int      { return s.Child.Npartitions() }
func (s *Sorted) Name() string          { return s.tok }
func (s *Sorted) children() []Node      { return []Node{s.Child} }
func (s *Sorted) with(c []Node) Node    { return NewSort(c[0], s.Args) }
func (s *Sorted) Partitioning() partitioning {
	if s.Args.Asc[0] {
		return partitioning{Sorted: s.Args.By[0]}
	}
	return partitioning{}
}

func (s *Sorted) explain() string {
	var by []string
	for i, c := range s.Args.By {
		by = append(by, c+map[bool]string{true: "", false: " desc"}[s.Args.Asc[i]])
	}
	return "sort by " + strings.Join(by, ", ") + " (range shuffle on sampled boundaries)"
}

func (s *Sorted) lower(l *Lowering) []graph.Key {
	parts := l.Keys(s.Child)
	a := s.Args
	a.N = len(parts)
	args := ops.MustJSON(a)
	if a.N == 1 {
		return l.MapParts(s.tok, exchange.OpSortRows, args, parts)
	}
	samples := l.MapParts(graph.Name("sort-sample", exchange.OpSample, args, s.Child.Name()), exchange.OpSample, args, parts)
	bargs := ops.MustJSON(exchange.BoundsArgs{N: a.N, Col: a.By[0], Out: a.Out})
	bounds := graph.Part(graph.Name("sort-bounds", exchange.OpBounds, bargs, s.tok), 0)
	l.G.Add(&graph.Task{Key: bounds, Op: exchange.OpBounds, Args: bargs, Inputs: samples})
	return l.shuffle(s.tok, a.N, []shuffleSide{{parts: parts, op: exchange.OpRangeSplit, args: args, extra: []graph.Key{bounds}}}, exchange.OpSortRows, args)
}

// loc selects a range of a sorted index.
type loc struct {
	child Node
	args  exchange.LocArgs
	tok   string
}

func NewLoc(child Node, a exchange.LocArgs) *loc {
	return &loc{child: child, args: a, tok: token("loc", a, child)}
}

func (n *loc) Schema() *arrow.Schema      { return n.child.Schema() }
func (n *loc) Npartitions() int           { return n.child.Npartitions() }
func (n *loc) Name() string               { return n.tok }
func (n *loc) children() []Node           { return []Node{n.child} }
func (n *loc) with(c []Node) Node         { return NewLoc(c[0], n.args) }
func (n *loc) Partitioning() partitioning { return n.child.Partitioning() }
func (n *loc) explain() string {
	b := func(l *expr.Literal) string {
		if l == nil {
			return "…"
		}
		return l.String()
	}
	return fmt.Sprintf("loc %s in [%s, %s]", n.args.Col, b(n.args.Lo), b(n.args.Hi))
}
func (n *loc) lower(l *Lowering) []graph.Key {
	return l.MapParts(n.tok, exchange.OpLoc, ops.MustJSON(n.args), l.Keys(n.child))
}

// top is the first k rows of an order, in one partition.
type top struct {
	child Node
	args  exchange.TopArgs
	tok   string
}

func NewTop(child Node, a exchange.TopArgs) *top {
	a.Out = ops.SpecOf(child.Schema())
	return &top{child: child, args: a, tok: token("top", a, child)}
}

func (t *top) Schema() *arrow.Schema      { return t.child.Schema() }
func (t *top) Npartitions() int           { return 1 }
func (t *top) Name() string               { return t.tok }
func (t *top) children() []Node           { return []Node{t.child} }
func (t *top) with(c []Node) Node         { return NewTop(c[0], t.args) }
func (t *top) Partitioning() partitioning { return partitioning{} }
func (t *top) explain() string {
	end := map[bool]string{true: "smallest", false: "largest"}[t.args.Asc[0]]
	return fmt.Sprintf("%d %s by %s (per partition, then combined)", t.args.K, end, strings.Join(t.args.By, ", "))
}
func (t *top) lower(l *Lowering) []graph.Key {
	args := ops.MustJSON(t.args)
	local := l.MapParts(graph.Name("top-local", exchange.OpTop, args, t.child.Name()), exchange.OpTop, args, l.Keys(t.child))
	return []graph.Key{treeReduce(l.G, "top", exchange.OpTop, args, local)}
}
