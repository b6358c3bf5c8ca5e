package collections

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/duskdata/dusk/graph"
)

// Executor runs task graphs on a cluster. The Dusk client implements it.
type Executor interface {
	// Compute runs what keys need and returns their values in order. The
	// caller owns the values (Arrow values must be released).
	Compute(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]any, error)
	// Persist runs what keys need and keeps their results in the workers'
	// memory until the returned release function is called.
	Persist(ctx context.Context, g *graph.Graph, keys []graph.Key) (func(), error)
}

// Measurer is an Executor that knows the memory of the results it holds:
// Nbytes totals that of keys, ok false unless every one is held.
type Measurer interface {
	Nbytes(keys []graph.Key) (total int64, ok bool)
}

// Threaded is an Executor that knows how many tasks its cluster runs at
// once, to spread work over them all.
type Threaded interface {
	Threads(ctx context.Context) (int, error)
}

// Memoried is an Executor that knows how much memory its workers have: the
// least of their limits over their threads, what one task may use (0:
// unknown).
type Memoried interface {
	MemoryPerThread(ctx context.Context) (int64, error)
}

// ErrNoClient is returned by Compute and Persist when no executor is found:
// no dusk.NewClient was started and the context carries none.
var ErrNoClient = errors.New("no Dusk client: start one with dusk.NewClient(ctx) " +
	"(a local cluster by default) or pass one with dusk.WithClient(ctx, client)")

type ctxKey struct{}

// WithExecutor returns a context whose computations run on e.
func WithExecutor(ctx context.Context, e Executor) context.Context {
	return context.WithValue(ctx, ctxKey{}, e)
}

var (
	defaultMu sync.Mutex
	defaults  []Executor // most recent last
)

// PushDefault makes e the default executor until it is removed.
func PushDefault(e Executor) {
	defaultMu.Lock()
	defaults = append(defaults, e)
	defaultMu.Unlock()
}

// RemoveDefault removes e; the one set before it is the default again.
func RemoveDefault(e Executor) {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	for i := len(defaults) - 1; i >= 0; i-- {
		if defaults[i] == e {
			defaults = append(defaults[:i], defaults[i+1:]...)
			return
		}
	}
}

// ExecutorFrom returns the context's executor, else the default one.
func ExecutorFrom(ctx context.Context) (Executor, error) {
	if e, ok := ctx.Value(ctxKey{}).(Executor); ok && e != nil {
		return e, nil
	}
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if n := len(defaults); n > 0 {
		return defaults[n-1], nil
	}
	return nil, ErrNoClient
}

// Pin holds persisted results on the cluster. It lets go of them when
// Release is called or, failing that, when the pin becomes unreachable.
type Pin struct{ state *pinState }

// pinState is what the cleanup of an unreachable pin needs: kept apart from
// the pin so that the cleanup does not keep the pin alive.
type pinState struct {
	released atomic.Bool
	release  func()
}

func (s *pinState) fire() {
	if s.released.CompareAndSwap(false, true) {
		s.release()
	}
}

// NewPin pins results that release lets go of. The returned pin must be kept
// reachable for as long as the results are used.
func NewPin(release func()) *Pin {
	st := &pinState{release: release}
	p := &Pin{state: st}
	runtime.AddCleanup(p, (*pinState).fire, st)
	return p
}

// Release lets go of the results now; later calls do nothing.
func (p *Pin) Release() { p.state.fire() }
