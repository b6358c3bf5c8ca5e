package plan

import (
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
)

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
func (n *FromGraph) lower(l *lowering) []graph.Key {
	l.G.Merge(n.G)
	return n.Keys
}
