package dataframe

import (
	"fmt"

	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

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
	l := plan.NewLowering()
	keys := l.Keys(plan.Optimize(f.plan))
	return l.G, keys, nil
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
	return &Frame{plan: &plan.FromGraph{G: g, Keys: keys, Out: out,
		Tok: graph.Name("from-graph", "from-graph", ops.MustJSON(ops.SpecOf(out)), ks...)}}
}

// Failed is a frame that holds err, which its methods return: for a
// collection that fails before it has a graph to hand FromGraph.
func Failed(err error) *Frame { return failed(err) }
