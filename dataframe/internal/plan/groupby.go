package plan

import (
	"fmt"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/agg"
	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
)

// groupAgg is a grouped step: aggregation, transform, top rows or apply.
type groupAgg struct {
	child    Node
	args     agg.GroupArgs
	out      *arrow.Schema
	splitOut int
	tok      string
}

func NewGroupAgg(child Node, args agg.GroupArgs, out *arrow.Schema, splitOut int) *groupAgg {
	args.Out = ops.SpecOf(out)
	args.Sort = args.Mode == agg.ModeAgg && (splitOut <= 1 && !args.Holistic() || child.Npartitions() == 1 && splitOut <= 1)
	return &groupAgg{child: child, args: args, out: out, splitOut: splitOut,
		tok: token("groupby-"+args.Mode, struct {
			A agg.GroupArgs
			S int
		}{args, splitOut}, child)}
}

// outputs is how many partitions the step makes.
func (n *groupAgg) outputs() int {
	switch {
	case n.splitOut > 1:
		return n.splitOut
	case n.args.Holistic() || n.inPlace():
		return n.child.Npartitions()
	}
	return 1
}

// inPlace reports whether a mergeable aggregation runs whole in each
// partition, as its input's rows are hashed by some of its keys (after a
// shuffle join on them): every group lies in one partition, so no partial
// results need combining.
func (n *groupAgg) inPlace() bool {
	return !n.args.Holistic() && n.splitOut <= 1 && n.child.Npartitions() > 1 && n.child.Partitioning().hashedWithin(n.args.Keys)
}

func (n *groupAgg) Schema() *arrow.Schema { return n.out }
func (n *groupAgg) Npartitions() int      { return n.outputs() }
func (n *groupAgg) Name() string          { return n.tok }
func (n *groupAgg) children() []Node      { return []Node{n.child} }
func (n *groupAgg) with(c []Node) Node    { return NewGroupAgg(c[0], n.args, n.out, n.splitOut) }
func (n *groupAgg) Partitioning() partitioning {
	if n.inPlace() {
		return n.child.Partitioning().keptBy(n.out)
	}
	return partitioning{hash: n.args.Keys, n: n.outputs()}
}

func (n *groupAgg) explain() string {
	s := fmt.Sprintf("groupby %s %s", strings.Join(n.args.Keys, ", "), n.args.Mode)
	switch n.args.Mode {
	case agg.ModeTopN:
		s += fmt.Sprintf(" %d of %s", n.args.K, n.args.Col)
	case agg.ModeApply:
		s += " " + n.args.Func
	default:
		s += " " + strings.Join(aggNames(n.args), ", ")
	}
	switch {
	case n.args.Holistic() && n.child.Partitioning().hashedWithin(n.args.Keys):
		return s + " (already partitioned by the keys: no shuffle)"
	case n.inPlace():
		return s + " (already partitioned by the keys: in each partition)"
	case n.args.Holistic():
		return s + " (shuffle rows by the keys)"
	case n.splitOut > 1:
		return s + " (partial, shuffle by the keys, combine)"
	}
	return s + " (tree reduction)"
}

// needs lists the input columns the step reads.
func (n *groupAgg) needs() ops.SetOf {
	need := ops.SetOf{}.Add(n.args.Keys...)
	switch n.args.Mode {
	case agg.ModeTransform, agg.ModeApply, agg.ModeTopN:
		return need.Add(Names(n.child.Schema())...)
	}
	for _, a := range n.args.Aggs {
		if a.Col != "" {
			need.Add(a.Col)
		}
		if a.Col2 != "" {
			need.Add(a.Col2)
		}
	}
	return need
}

func (n *groupAgg) lower(l *Lowering) []graph.Key {
	args := ops.MustJSON(n.args)
	parts := l.Keys(n.child)
	out := n.outputs()
	if n.args.Holistic() {
		if n.child.Partitioning().hashedWithin(n.args.Keys) {
			return l.MapParts(n.tok, agg.OpGroupRows, args, parts)
		}
		return l.shuffle(n.tok, out, []shuffleSide{copiedHashSide(parts, n.args.Keys, out)}, agg.OpGroupRows, args)
	}
	partials := l.Keys(newPartials(n.child, n.args))
	if n.inPlace() {
		// A partial of nearly distinct keys is left ungrouped (each row its
		// own group): the combine of each partition alone groups it.
		combined := l.MapParts(graph.Name("groupby-combine", agg.OpCombine, args, n.child.Name()), agg.OpCombine, args, partials)
		return l.MapParts(n.tok, agg.OpFinal, args, combined)
	}
	if out > 1 {
		return shuffleCombine(l, n.tok, out, n.args.Keys, args, partials)
	}
	return treeCombine(l, n.tok, args, partials)
}

// treeCombine combines partial results in a tree into one partition, tok's.
func treeCombine(l *Lowering, tok string, args []byte, partials []graph.Key) []graph.Key {
	root := treeReduce(l.G, "groupby-combine", agg.OpCombine, args, partials)
	final := graph.Part(tok, 0)
	l.G.Add(&graph.Task{Key: final, Op: agg.OpFinal, Args: args, Inputs: []graph.Key{root}})
	return []graph.Key{final}
}

// shuffleCombine shuffles partial results by a hash of keys into n
// outputs, each combined as its pieces arrive and finished: with many
// groups an output holds its groups' states once, not once a partition
// (db-benchmark's q3 at 1e8 rows held 2.3 GB of pieces before).
func shuffleCombine(l *Lowering, name string, n int, keys []string, args []byte, partials []graph.Key) []graph.Key {
	side := shuffleSide{parts: partials, op: exchange.OpHashSplit,
		args: ops.MustJSON(exchange.HashSplitArgs{Keys: keys, N: n, Copy: true, PackKeys: true})}
	side.merge, side.mergeArgs = agg.OpCombine, args
	return l.shuffle(name, n, []shuffleSide{side}, agg.OpUnpack, args)
}
