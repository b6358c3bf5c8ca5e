package dataframe

import (
	"context"
	"sort"
)

// FunctionNames lists every operation of the expression table, for the test
// that each has a reference check.
func FunctionNames() []string {
	names := make([]string, 0, len(functions))
	for name := range functions {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// AdaptedPlan settles f's size-dependent joins on the cluster ctx reaches,
// as Compute does, and returns the plan it would then run, as Explain
// writes plans.
func AdaptedPlan(ctx context.Context, f *Frame) (string, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return "", err
	}
	plan, release, err := adapt(ctx, ex, optimize(f.plan))
	if err != nil {
		return "", err
	}
	defer release()
	return (&Frame{plan: plan}).Explain(), nil
}
