package dataframe

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
)

// WithNeeds makes the tasks that compute this frame's partitions (the last
// step's, not its inputs') ask for n on the worker that runs them, held
// while each runs: a step that needs a GPU or much memory, as Metaflow's
// @resources does for a step.
func (f *Frame) WithNeeds(n graph.Needs) *Frame {
	if f.err != nil {
		return f
	}
	r := n.Resources()
	if len(r) == 0 {
		return f
	}
	return &Frame{plan: newNeeds(f.plan, r)}
}

// needing is a step whose partitions' tasks ask for resources; the rows
// are its child's.
type needing struct {
	child node
	res   graph.Resources
	tok   string
}

func newNeeds(child node, r graph.Resources) *needing {
	return &needing{child: child, res: r, tok: token("needs", r, child)}
}

func (n *needing) schema() *arrow.Schema      { return n.child.schema() }
func (n *needing) npartitions() int           { return n.child.npartitions() }
func (n *needing) name() string               { return n.tok }
func (n *needing) children() []node           { return []node{n.child} }
func (n *needing) with(c []node) node         { return newNeeds(c[0], n.res) }
func (n *needing) partitioning() partitioning { return n.child.partitioning() }
func (n *needing) explain() string            { return fmt.Sprintf("needs %s", n.res) }
func (n *needing) lower(l *lowering) []graph.Key {
	ks := l.keys(n.child)
	l.g.Require(ks, n.res)
	return ks
}
