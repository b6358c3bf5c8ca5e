package plan

import (
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
)

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
func (m *mapPartitions) lower(l *lowering) []graph.Key {
	return l.MapParts(m.tok, ops.OpMapPartitions, ops.MustJSON(ops.FuncArgs{Func: m.fn, Out: ops.SpecOf(m.out)}), l.Keys(m.child))
}
