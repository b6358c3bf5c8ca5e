package dataframe

import (
	"context"

	"github.com/duskdata/dusk/dataframe/internal/plan"
)

// Explain returns the plan Compute would run, after optimization: a step
// a line, with the steps it reads indented below it. Steps whose way
// depends on sizes known only by running say so (ExplainAdapted shows the
// way they take).
func (f *Frame) Explain() string {
	if f.err != nil {
		return "error: " + f.err.Error()
	}
	return plan.Explain(plan.Optimize(f.plan))
}

// ExplainAdapted returns the plan as Compute runs it on the cluster ctx
// reaches, as Explain writes plans, with the size-dependent steps settled:
// the joins broadcast or shuffled, the aggregations combined by a tree or
// by a shuffle. It computes what those choices are made on (a join's
// side, the partial results of an aggregation's first partitions) and
// lets it go again.
func (f *Frame) ExplainAdapted(ctx context.Context) (string, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return "", err
	}
	run, release, err := plan.Adapt(ctx, ex, plan.Optimize(f.plan))
	if err != nil {
		return "", err
	}
	defer release()
	return plan.Explain(run), nil
}
