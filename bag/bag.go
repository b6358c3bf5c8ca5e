package bag

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/graph"
)

// Bag is a lazy, partitioned collection of values of type T: a partition
// is a []T. Operations return new bags that share this one's tasks; nothing
// runs until Compute, Take or a Scalar's Compute. A Bag is immutable and
// safe for concurrent use.
type Bag[T any] struct {
	g    *graph.Graph
	keys []graph.Key // the partitions, in order
	name string      // the token its tasks are named after
	err  error
	pin  *collections.Pin // set on a persisted bag
}

// WithNeeds makes the tasks that compute this bag's partitions (the last
// step's, not its inputs') ask for n on the worker that runs them, held
// while each runs, as Metaflow's @resources does for a step.
func (b *Bag[T]) WithNeeds(n graph.Needs) *Bag[T] {
	r := n.Resources()
	if b.err != nil || len(r) == 0 {
		return b
	}
	g := b.g.Clone()
	g.Require(b.keys, r)
	return &Bag[T]{g: g, keys: b.keys, name: b.name, pin: b.pin}
}

// Scalar is a lazy single value computed from a bag (a count, a sum).
type Scalar[T any] struct {
	g      *graph.Graph
	key    graph.Key
	err    error
	finish func(any) (T, error) // the client's last step on the result
}

// ErrEmpty is returned by Min, Max and Mean of a bag with no items.
var ErrEmpty = errors.New("bag: the bag is empty")

func failed[T any](err error) *Bag[T] { return &Bag[T]{err: err} }

// Err is the error met while building the bag, if any; Compute returns it too.
func (b *Bag[T]) Err() error { return b.err }

// NPartitions is the number of partitions.
func (b *Bag[T]) NPartitions() int { return len(b.keys) }

// Name is the token that names the bag's tasks.
func (b *Bag[T]) Name() string { return b.name }

// String lists the bag's tasks, one a line.
func (b *Bag[T]) String() string {
	if b.err != nil {
		return "error: " + b.err.Error()
	}
	return b.g.String()
}

// mustJSON encodes operation arguments, which are plain data.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("bag: encode arguments: %v", err))
	}
	return b
}

// mapped returns a bag whose partition i is op(args) on partition i of b;
// its tasks need what needs names of the worker's binary.
func mapped[Out, In any](b *Bag[In], prefix, op string, args []byte, needs ...string) *Bag[Out] {
	if b.err != nil {
		return failed[Out](b.err)
	}
	registerCodec[[]Out]()
	name := graph.Name(prefix, op, args, b.name)
	g := graph.New()
	g.Merge(b.g)
	keys := make([]graph.Key, len(b.keys))
	for i, in := range b.keys {
		keys[i] = graph.Part(name, i)
		g.Add(&graph.Task{Key: keys[i], Op: op, Args: args, Inputs: []graph.Key{in}, Needs: needs})
	}
	return &Bag[Out]{g: g, keys: keys, name: name}
}

// Compute runs the bag and returns its items in partition order, on the
// client found as DESIGN §1 says (the context's, else the default).
func (b *Bag[T]) Compute(ctx context.Context) ([]T, error) {
	if b.err != nil {
		return nil, b.err
	}
	parts, err := computeParts[T](ctx, b.g, b.keys)
	runtime.KeepAlive(b)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]T, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out, nil
}

// ComputePartitions runs the bag and returns its partitions.
func (b *Bag[T]) ComputePartitions(ctx context.Context) ([][]T, error) {
	if b.err != nil {
		return nil, b.err
	}
	parts, err := computeParts[T](ctx, b.g, b.keys)
	runtime.KeepAlive(b)
	return parts, err
}

func computeParts[T any](ctx context.Context, g *graph.Graph, keys []graph.Key) ([][]T, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	ex, err := collections.ExecutorFrom(ctx)
	if err != nil {
		return nil, err
	}
	values, err := ex.Compute(ctx, g, keys)
	if err != nil {
		return nil, err
	}
	parts := make([][]T, len(values))
	for i, v := range values {
		p, err := part[T](v)
		if err != nil {
			return nil, fmt.Errorf("bag: %s: %w", keys[i], err)
		}
		parts[i] = p
	}
	return parts, nil
}

// Persist runs the bag and keeps its partitions in the workers' memory; the
// bag it returns reads them from there until Release, or until it is
// unreachable.
func (b *Bag[T]) Persist(ctx context.Context) (*Bag[T], error) {
	if b.err != nil {
		return nil, b.err
	}
	ex, err := collections.ExecutorFrom(ctx)
	if err != nil {
		return nil, err
	}
	release, err := ex.Persist(ctx, b.g, b.keys)
	runtime.KeepAlive(b)
	if err != nil {
		return nil, err
	}
	return &Bag[T]{g: graph.New(), keys: b.keys, name: b.name, pin: collections.NewPin(release)}, nil
}

// Release lets the cluster drop a persisted bag's partitions; it does
// nothing for a bag that was not persisted.
func (b *Bag[T]) Release() {
	if b.pin != nil {
		b.pin.Release()
	}
}

// Take returns the first n items. Unlike Dask's take, which looks only at
// the first partition by default (and warns when it holds fewer than n),
// Take computes as many leading partitions as it needs: one, then twice as
// many more each round, until it has n items or the bag ends.
func (b *Bag[T]) Take(ctx context.Context, n int) ([]T, error) {
	if b.err != nil {
		return nil, b.err
	}
	var out []T
	for lo, step := 0, 1; lo < len(b.keys) && len(out) < n; lo, step = lo+step, step*2 {
		hi := min(lo+step, len(b.keys))
		parts, err := computeParts[T](ctx, b.g, b.keys[lo:hi])
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			out = append(out, p[:min(len(p), n-len(out))]...)
		}
	}
	runtime.KeepAlive(b)
	return out, nil
}

// Compute runs what the value needs and returns it.
func (s *Scalar[T]) Compute(ctx context.Context) (T, error) {
	var zero T
	if s.err != nil {
		return zero, s.err
	}
	ex, err := collections.ExecutorFrom(ctx)
	if err != nil {
		return zero, err
	}
	values, err := ex.Compute(ctx, s.g, []graph.Key{s.key})
	if err != nil {
		return zero, err
	}
	runtime.KeepAlive(s)
	if s.finish != nil {
		return s.finish(values[0])
	}
	v, ok := values[0].(T)
	if !ok {
		return zero, fmt.Errorf("bag: %s holds a %T, not a %T", s.key, values[0], zero)
	}
	return v, nil
}
