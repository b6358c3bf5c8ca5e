package dusk

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/codec"
	"github.com/duskdata/dusk/internal/registry"
)

// Func is a Go function registered by name, so that workers can run it:
// every binary that runs workers for the program must register it too (the
// local cluster always has it). Its argument travels as JSON.
type Func[In, Out any] struct{ name string }

// Register makes fn runnable on the cluster under name, from a package-level
// variable or an init function:
//
//	var readFile = dusk.Register("read-file", func(ctx context.Context, path string) (int, error) { ... })
//
// Registering a name twice panics.
func Register[In, Out any](name string, fn func(context.Context, In) (Out, error)) Func[In, Out] {
	// Results travel between processes as JSON unless their type has a codec.
	codec.Register(reflect.TypeFor[Out](), codec.JSON[Out]())
	registry.Register(name, func(tc *registry.Context, args []byte, _ []any) (any, error) {
		var in In
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, fmt.Errorf("%s: decode argument: %w", name, err)
		}
		return fn(tc.Context, in)
	})
	return Func[In, Out]{name: name}
}

// Name is the name fn was registered under.
func (f Func[In, Out]) Name() string { return f.name }

// Submit runs f(arg) on the cluster and returns its future at once. Equal
// arguments give equal keys, so the work is shared (Dask's pure=True).
func (f Func[In, Out]) Submit(ctx context.Context, arg In) (*Future[Out], error) {
	futs, err := f.Map(ctx, []In{arg})
	if err != nil {
		return nil, err
	}
	return futs[0], nil
}

// mapChunk is how many tasks Map submits at once: the cluster starts on the
// first ones while the client prepares the rest.
const mapChunk = 4096

// Map runs f on every argument and returns their futures.
func (f Func[In, Out]) Map(ctx context.Context, args []In) ([]*Future[Out], error) {
	c, err := clientFrom(ctx)
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
			k := graph.Key(graph.Name(f.name, f.name, enc))
			g.Add(&graph.Task{Key: k, Op: f.name, Args: enc})
			keys[i] = k
		}
		if err := c.submit(g, keys, true); err != nil {
			releaseFutures(futs)
			return nil, err
		}
		for _, k := range keys {
			k := k
			futs = append(futs, &Future[Out]{c: c, key: k, pin: collections.NewPin(func() { c.release([]graph.Key{k}) })})
		}
	}
	return futs, nil
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
	c   *Client
	key graph.Key
	pin *collections.Pin
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

// Gather waits for the futures and returns their results in order, fetched
// from the workers that hold them, like Dask's client.gather.
func Gather[T any](ctx context.Context, futs []*Future[T]) ([]T, error) {
	if len(futs) == 0 {
		return nil, nil
	}
	byClient := futs[0].c
	keys := make([]graph.Key, len(futs))
	for i, f := range futs {
		if f.c != byClient {
			return nil, fmt.Errorf("dusk: Gather: futures from different clients")
		}
		keys[i] = f.key
	}
	if err := byClient.wait(ctx, keys); err != nil {
		return nil, err
	}
	values, err := byClient.gather(ctx, keys)
	if err != nil {
		return nil, err
	}
	runtime.KeepAlive(futs) // their pins hold the keys until here
	out := make([]T, len(values))
	for i, v := range values {
		t, ok := v.(T)
		if !ok {
			return nil, fmt.Errorf("dusk: Gather: %s holds a %T, not a %T", keys[i], v, out[i])
		}
		out[i] = t
	}
	return out, nil
}
