package dataframe

import (
	"github.com/duskdata/dusk/dataframe/internal/plan"

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
	return &Frame{plan: plan.NewNeeds(f.plan, r)}
}
