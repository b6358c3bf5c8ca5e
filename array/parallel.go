package array

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/graph"
)

// Named is a function registered on the cluster by name, as dusk.Register
// returns (dusk.Func).
type Named interface{ Name() string }

// needer is a Named that asks for resources wherever it runs (a dusk.Func
// registered with Needs).
type needer interface{ Resources() graph.Resources }

// ParallelMap runs fn on every item as its own task on the cluster and
// returns the results in order, like Metaflow's parallel_map without a
// process per item. fn must be registered with dusk.Register(name,
// func(context.Context, In) (Out, error)); the type arguments are its. Each
// task asks for what fn was registered with, and needs over that:
//
//	out, err := array.ParallelMap[string, int](ctx, countWords, paths, dusk.Needs{Memory: 4 << 30})
func ParallelMap[In, Out any](ctx context.Context, fn Named, items []In, needs ...graph.Needs) ([]Out, error) {
	ex, err := collections.ExecutorFrom(ctx)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, nil
	}
	name := fn.Name()
	var res graph.Resources
	if n, ok := fn.(needer); ok {
		res = n.Resources()
	}
	for _, n := range needs {
		res = res.With(n.Resources())
	}
	g := graph.New()
	keys := make([]graph.Key, len(items))
	for i, it := range items {
		enc, err := json.Marshal(it)
		if err != nil {
			return nil, fmt.Errorf("array: ParallelMap %s: encode item %d: %w", name, i, err)
		}
		keys[i] = graph.Key(graph.Name(name, name, enc))
		g.Add(&graph.Task{Key: keys[i], Op: name, Args: enc, Resources: res})
	}
	values, err := ex.Compute(ctx, g, keys)
	if err != nil {
		return nil, fmt.Errorf("array: ParallelMap %s: %w", name, err)
	}
	out := make([]Out, len(values))
	for i, v := range values {
		o, ok := v.(Out)
		if !ok {
			return nil, fmt.Errorf("array: ParallelMap %s: item %d gave a %T, not a %T", name, i, v, out[i])
		}
		out[i] = o
	}
	return out, nil
}
