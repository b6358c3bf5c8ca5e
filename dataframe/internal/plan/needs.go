package plan

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
)

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
func (n *needing) lower(l *lowering) []graph.Key {
	ks := l.Keys(n.child)
	l.G.Require(ks, n.res)
	return ks
}
