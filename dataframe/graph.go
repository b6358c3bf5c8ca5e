package dataframe

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
)

// The hooks below let another collection (a bag) build on a frame's tasks,
// and a frame on another collection's, without running either.

// Graph lowers the frame's plan, optimized, and returns its tasks and the
// keys of its partitions in order. Each key's value is an arrow.Record
// (strings plain or dictionary-encoded) that tasks reading it must neither
// keep nor release. A persisted frame's keys are valid only while the frame
// is reachable and not released.
func (f *Frame) Graph() (*graph.Graph, []graph.Key, error) {
	if f.err != nil {
		return nil, nil, f.err
	}
	l := newLowering()
	keys := l.keys(optimize(f.plan))
	return l.g, keys, nil
}

// FromGraph makes a frame whose partitions are the values of keys in g, in
// order. Each must be an arrow.Record with schema's columns, of types
// kernels take (numbers, bool, strings plain or dictionary-encoded, date32,
// timestamps, durations, decimals): the task that makes it is trusted to,
// nothing checks it. At least one key is needed.
func FromGraph(g *graph.Graph, keys []graph.Key, schema *arrow.Schema) *Frame {
	if len(keys) == 0 {
		return failed(fmt.Errorf("FromGraph: no partitions: at least one is needed"))
	}
	if schema == nil || schema.NumFields() == 0 {
		return failed(fmt.Errorf("FromGraph: no columns"))
	}
	for _, fl := range schema.Fields() {
		if k, err := kernel.KindOf(fl.Type); err != nil || k == kernel.KindNull {
			return failed(fmt.Errorf("FromGraph: column %s has type %s, which Dusk does not take: numbers, bool, strings, date32, timestamps, durations and decimals are", fl.Name, fl.Type))
		}
	}
	ks := make([]string, len(keys))
	for i, k := range keys {
		ks[i] = string(k)
	}
	out := kernel.PlainSchema(schema)
	return &Frame{plan: &fromGraph{g: g, keys: keys, out: out,
		tok: graph.Name("from-graph", "from-graph", mustJSON(specOf(out)), ks...)}}
}

// Failed is a frame that holds err, which its methods return: for a
// collection that fails before it has a graph to hand FromGraph.
func Failed(err error) *Frame { return failed(err) }

// fromGraph is a plan's leaf over another collection's tasks.
type fromGraph struct {
	g    *graph.Graph
	keys []graph.Key
	out  *arrow.Schema
	tok  string
}

func (n *fromGraph) schema() *arrow.Schema      { return n.out }
func (n *fromGraph) npartitions() int           { return len(n.keys) }
func (n *fromGraph) name() string               { return n.tok }
func (n *fromGraph) children() []node           { return nil }
func (n *fromGraph) with([]node) node           { return n }
func (n *fromGraph) partitioning() partitioning { return partitioning{} }
func (n *fromGraph) explain() string            { return "from graph " + strings.Join(names(n.out), ", ") }
func (n *fromGraph) lower(l *lowering) []graph.Key {
	l.g.Merge(n.g)
	return n.keys
}
