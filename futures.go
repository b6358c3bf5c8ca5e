package dusk

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/codec"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
)

// Func is a Go function registered by name, so that workers can run it:
// every binary that runs workers for the program must register it too (the
// local cluster always has it). Its argument travels as JSON.
type Func[In, Out any] struct {
	name  string
	needs graph.Resources
	refs  bool // In holds Refs: their futures are the task's inputs
}

// Needs is what a step's tasks ask of the worker that runs them, held while
// each runs (Metaflow's @resources): CPU threads, Memory bytes, GPU devices,
// and Custom resources that workers offer by name. Every worker offers its
// threads as CPU and its memory limit as Memory without being told. Give it
// to Register, to one Submit or Map, to array.ParallelMap, or to a
// collection's WithNeeds.
type Needs = graph.Needs

// Register makes fn runnable on the cluster under name, from a package-level
// variable or an init function, asking for needs (merged, later ones
// winning) wherever it runs:
//
//	var train = dusk.Register("train", fit, dusk.Needs{Memory: 60 << 30, CPU: 1})
//
// Registering a name twice panics.
func Register[In, Out any](name string, fn func(context.Context, In) (Out, error), needs ...Needs) Func[In, Out] {
	// Results travel between processes as JSON unless their type has a codec.
	codec.Register(reflect.TypeFor[Out](), codec.JSON[Out]())
	withRefs := hasRefs(reflect.TypeFor[In]())
	registry.Register(name, func(tc *registry.Context, args []byte, inputs []any) (any, error) {
		var in In
		if len(args) == 0 && len(inputs) == 1 {
			// SubmitFuture: the argument is the input's value.
			v, err := codec.Decode[In](inputs[0])
			if err != nil {
				return nil, fmt.Errorf("%s: argument from %s: %w", name, tc.Inputs[0], err)
			}
			return fn(tc.Context, v)
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, fmt.Errorf("%s: decode argument: %w", name, err)
		}
		if withRefs {
			values := make(map[graph.Key]any, len(inputs))
			for i, k := range tc.Inputs {
				values[k] = inputs[i]
			}
			if err := walkRefs(reflect.ValueOf(&in).Elem(), func(r refSlot) error {
				v, ok := values[r.refKey()]
				if !ok {
					return fmt.Errorf("%s: the result of %s is not an input", name, r.refKey())
				}
				if err := r.setRef(v); err != nil {
					return fmt.Errorf("%s: the result of %s: %w", name, r.refKey(), err)
				}
				return nil
			}); err != nil {
				return nil, err
			}
		}
		return fn(tc.Context, in)
	})
	return Func[In, Out]{name: name, needs: merged(nil, needs), refs: withRefs}
}

// merged is r with each of needs' resources over it, in order.
func merged(r graph.Resources, needs []Needs) graph.Resources {
	for _, n := range needs {
		r = r.With(n.Resources())
	}
	return r
}

// Name is the name fn was registered under.
func (f Func[In, Out]) Name() string { return f.name }

// Resources is what f's tasks ask for, from the Needs it was registered with.
func (f Func[In, Out]) Resources() graph.Resources { return f.needs }

// Submit runs f(arg) on the cluster and returns its future at once. Equal
// arguments give equal keys, so the work is shared (Dask's pure=True).
// needs add to, or replace, what f was registered with, for this task.
func (f Func[In, Out]) Submit(ctx context.Context, arg In, needs ...Needs) (*Future[Out], error) {
	futs, err := f.Map(ctx, []In{arg}, needs...)
	if err != nil {
		return nil, err
	}
	return futs[0], nil
}

// mapChunk is how many tasks Map submits at once: the cluster starts on the
// first ones while the client prepares the rest.
const mapChunk = 4096

// Map runs f on every argument and returns their futures; needs are as
// Submit's, for every task.
func (f Func[In, Out]) Map(ctx context.Context, args []In, needs ...Needs) ([]*Future[Out], error) {
	c, res, err := f.prepare(ctx, len(args), needs)
	if err != nil {
		return nil, err
	}
	futs := make([]*Future[Out], 0, len(args))
	for lo := 0; lo < len(args); lo += mapChunk {
		chunk := args[lo:min(lo+mapChunk, len(args))]
		g := graph.New()
		keys := make([]graph.Key, len(chunk))
		for i, a := range chunk {
			enc, err := json.Marshal(a)
			if err != nil {
				releaseFutures(futs)
				return nil, fmt.Errorf("dusk: %s: encode argument %d: %w", f.name, lo+i, err)
			}
			var inputs []graph.Key
			if f.refs {
				inputs = refKeys(a)
			}
			k := graph.Key(graph.Name(f.name, f.name, enc))
			g.Add(&graph.Task{Key: k, Op: f.name, Args: enc, Inputs: inputs, Resources: res})
			keys[i] = k
		}
		if err := c.submit(g, keys, true); err != nil {
			releaseFutures(futs)
			return nil, err
		}
		futs = append(futs, newFutures[Out](c, keys)...)
	}
	runtime.KeepAlive(args) // the futures its Refs name are held until submitted
	return futs, nil
}

// SubmitFuture runs f on the result of arg, once there, without it passing
// through this client: the task waits for it on the cluster.
func (f Func[In, Out]) SubmitFuture(ctx context.Context, arg *Future[In], needs ...Needs) (*Future[Out], error) {
	futs, err := f.MapFutures(ctx, []*Future[In]{arg}, needs...)
	if err != nil {
		return nil, err
	}
	return futs[0], nil
}

// MapFutures runs f on the result of each of args, as SubmitFuture does.
func (f Func[In, Out]) MapFutures(ctx context.Context, args []*Future[In], needs ...Needs) ([]*Future[Out], error) {
	c, res, err := f.prepare(ctx, len(args), needs)
	if err != nil {
		return nil, err
	}
	g := graph.New()
	keys := make([]graph.Key, len(args))
	for i, a := range args {
		if a.c != c {
			return nil, fmt.Errorf("dusk: %s: argument %d is a future of another client", f.name, i)
		}
		keys[i] = graph.Key(graph.Name(f.name, f.name, nil, string(a.key)))
		g.Add(&graph.Task{Key: keys[i], Op: f.name, Inputs: []graph.Key{a.key}, Resources: res})
	}
	if err := c.submit(g, keys, true); err != nil {
		return nil, err
	}
	runtime.KeepAlive(args)
	return newFutures[Out](c, keys), nil
}

// prepare returns the client in ctx, once MaxTasks allows n tasks of f, and
// the resources each asks for.
func (f Func[In, Out]) prepare(ctx context.Context, n int, needs []Needs) (*Client, graph.Resources, error) {
	c, err := clientFrom(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := c.checkTasks(f.name, n); err != nil {
		return nil, nil, err
	}
	return c, merged(f.needs, needs), nil
}

func newFutures[T any](c *Client, keys []graph.Key) []*Future[T] {
	futs := make([]*Future[T], len(keys))
	for i, k := range keys {
		futs[i] = &Future[T]{c: c, key: k, pin: collections.NewPin(func() { c.release([]graph.Key{k}) })}
	}
	return futs
}

func releaseFutures[T any](futs []*Future[T]) {
	for _, f := range futs {
		f.Release()
	}
}

func clientFrom(ctx context.Context) (*Client, error) {
	e, err := collections.ExecutorFrom(ctx)
	if err != nil {
		return nil, err
	}
	c, ok := e.(*Client)
	if !ok {
		return nil, fmt.Errorf("dusk: futures need a *dusk.Client, the context has a %T", e)
	}
	return c, nil
}

// Future is the result of a submitted function, computed or to be. The
// cluster keeps the result until Release, or until the future is unreachable.
type Future[T any] struct {
	c         *Client
	key       graph.Key
	pin       *collections.Pin
	cancelled atomic.Bool
}

// Key is the key of the future's task.
func (f *Future[T]) Key() graph.Key { return f.key }

// Result waits for the result and returns it.
func (f *Future[T]) Result(ctx context.Context) (T, error) {
	vs, err := Gather(ctx, []*Future[T]{f})
	if err != nil {
		var zero T
		return zero, err
	}
	return vs[0], nil
}

// Release lets the cluster forget the result.
func (f *Future[T]) Release() { f.pin.Release() }

// Cancel gives up the future, like Dask's Future.cancel: its task stops
// unless another future wants it, and Result and waits on it end with
// ErrCancelled.
func (f *Future[T]) Cancel() {
	if f.cancelled.Swap(true) {
		return
	}
	f.c.cancel(f.key)
	f.pin.Release()
}

// Ref stands for the future's result inside another task's argument: a
// registered function whose argument holds a Ref (a field, an element)
// reads the result with Value, on the worker, and the task waits for it.
func (f *Future[T]) Ref() Ref[T] { return Ref[T]{key: f.key} }

// cancelledError is the error of a cancelled future.
func cancelledError(k graph.Key) error {
	return fmt.Errorf("dusk: %w", &TaskError{Kind: ErrCancelled, Key: k, Message: "cancelled"})
}

// Gather waits for the futures and returns their results in order, fetched
// from the workers that hold them, like Dask's client.gather.
func Gather[T any](ctx context.Context, futs []*Future[T]) ([]T, error) {
	c, keys, err := keysOfFutures(futs)
	if err != nil || len(futs) == 0 {
		return nil, err
	}
	if err := c.wait(ctx, keys); err != nil {
		return nil, err
	}
	values, err := c.gather(ctx, keys)
	if err != nil {
		return nil, err
	}
	runtime.KeepAlive(futs) // their pins hold the keys until here
	out := make([]T, len(values))
	for i, v := range values {
		if out[i], err = codec.Decode[T](v); err != nil {
			return nil, fmt.Errorf("dusk: Gather: %s holds %w", keys[i], err)
		}
	}
	return out, nil
}

// keysOfFutures returns the futures' client and keys; they must share one
// client and none may be cancelled.
func keysOfFutures[T any](futs []*Future[T]) (*Client, []graph.Key, error) {
	if len(futs) == 0 {
		return nil, nil, nil
	}
	c := futs[0].c
	keys := make([]graph.Key, len(futs))
	for i, f := range futs {
		if f.c != c {
			return nil, nil, fmt.Errorf("dusk: futures from different clients")
		}
		if f.cancelled.Load() {
			return nil, nil, cancelledError(f.key)
		}
		keys[i] = f.key
	}
	return c, keys, nil
}

// WaitMode says when Wait returns.
type WaitMode int

const (
	// AllCompleted: once every future is done, computed or failed.
	AllCompleted WaitMode = iota
	// FirstCompleted: once one is.
	FirstCompleted
)

// Wait waits for futs as mode says, like Dask's wait, and returns those
// done (computed, failed or cancelled) and those not yet. A task's failure
// is not Wait's error: Result tells it. Its error is ctx's, or the lost
// connection's.
func Wait[T any](ctx context.Context, futs []*Future[T], mode WaitMode) (done, notDone []*Future[T], err error) {
	if len(futs) == 0 {
		return nil, nil, nil
	}
	c := futs[0].c
	var keys []graph.Key
	for _, f := range futs {
		if f.c != c {
			return nil, nil, fmt.Errorf("dusk: Wait: futures from different clients")
		}
		if !f.cancelled.Load() {
			keys = append(keys, f.key)
		}
	}
	need := len(keys)
	if mode == FirstCompleted && len(keys) < len(futs) {
		need = 0 // a cancelled one is done
	} else if mode == FirstCompleted {
		need = min(need, 1)
	}
	if err := c.waitSome(ctx, keys, need); err != nil {
		return nil, nil, err
	}
	for _, f := range futs {
		if d, _ := f.status(); d {
			done = append(done, f)
		} else {
			notDone = append(notDone, f)
		}
	}
	runtime.KeepAlive(futs)
	return done, notDone, nil
}

// AsCompleted yields the futures as they complete, each with its task's
// error (nil when it was computed), like Dask's as_completed. When ctx ends
// or the connection is lost, it yields a nil future and that error, and
// stops.
func AsCompleted[T any](ctx context.Context, futs []*Future[T]) iter.Seq2[*Future[T], error] {
	return func(yield func(*Future[T], error) bool) {
		left := slices.Clone(futs)
		for len(left) > 0 {
			_, _, err := Wait(ctx, left, FirstCompleted)
			if err != nil {
				yield(nil, err)
				return
			}
			rest := left[:0]
			for _, f := range left {
				if d, ferr := f.status(); !d {
					rest = append(rest, f)
				} else if !yield(f, ferr) {
					return
				}
			}
			left = rest
		}
	}
}

// status reports whether the future is done, and its error if it failed.
func (f *Future[T]) status() (bool, error) {
	if f.cancelled.Load() {
		return true, cancelledError(f.key)
	}
	return f.c.keyDone(f.key)
}

// FireAndForget has the cluster compute futs though this client lets them
// go or ends, like Dask's fire_and_forget: for tasks run for their effects.
func FireAndForget[T any](ctx context.Context, futs ...*Future[T]) error {
	c, keys, err := keysOfFutures(futs)
	if err != nil || len(futs) == 0 {
		return err
	}
	_, err = c.shared(ctx, &protocol.Shared{Op: protocol.SharedForget, Keys: keys})
	runtime.KeepAlive(futs)
	if err != nil {
		return fmt.Errorf("dusk: fire and forget: %w", err)
	}
	return nil
}

const opScatter = "dusk-scatter"

// A scattered value is its JSON until a task or client that knows its type
// reads it.
func init() {
	registry.Register(opScatter, func(_ *registry.Context, args []byte, _ []any) (any, error) {
		return codec.JSONValue(slices.Clone(args)), nil
	})
}

// Scatter places values in the cluster's memory and returns their futures,
// like Dask's scatter, to pass to SubmitFuture or in Refs without sending
// them again. Equal values share a key. They travel as JSON, inside their
// tasks: for large data, write files and read them on the workers.
func Scatter[T any](ctx context.Context, values []T) ([]*Future[T], error) {
	c, err := clientFrom(ctx)
	if err != nil {
		return nil, err
	}
	g := graph.New()
	keys := make([]graph.Key, len(values))
	for i, v := range values {
		enc, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("dusk: Scatter: encode value %d: %w", i, err)
		}
		keys[i] = graph.Key(graph.Name("scatter", opScatter, enc))
		g.Add(&graph.Task{Key: keys[i], Op: opScatter, Args: enc})
	}
	if err := c.submit(g, keys, true); err != nil {
		return nil, err
	}
	return newFutures[T](c, keys), nil
}
