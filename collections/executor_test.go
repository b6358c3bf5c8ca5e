package collections

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/duskdata/dusk/graph"
)

type fakeExecutor struct{ name string }

func (fakeExecutor) Compute(context.Context, *graph.Graph, []graph.Key) ([]any, error) {
	return nil, nil
}
func (fakeExecutor) Persist(context.Context, *graph.Graph, []graph.Key) (func(), error) {
	return func() {}, nil
}

// The context's executor wins; else the most recent default; none is a
// clear error.
func TestExecutorFrom(t *testing.T) {
	ctx := context.Background()
	if _, err := ExecutorFrom(ctx); !errors.Is(err, ErrNoClient) {
		t.Fatalf("no executor: err = %v, want ErrNoClient", err)
	}
	a, b, c := &fakeExecutor{"a"}, &fakeExecutor{"b"}, &fakeExecutor{"c"}
	PushDefault(a)
	PushDefault(b)
	defer RemoveDefault(a)
	if e, _ := ExecutorFrom(ctx); e != b {
		t.Fatalf("default = %v, want the most recent, b", e)
	}
	if e, _ := ExecutorFrom(WithExecutor(ctx, c)); e != c {
		t.Fatalf("with a context executor: %v, want c", e)
	}
	RemoveDefault(b)
	if e, _ := ExecutorFrom(ctx); e != a {
		t.Fatalf("after removing b: %v, want a", e)
	}
}

// A pin lets go once: on Release, or when it becomes unreachable.
func TestPinReleasesOnce(t *testing.T) {
	var n atomic.Int32
	p := NewPin(func() { n.Add(1) })
	p.Release()
	p.Release()
	if got := n.Load(); got != 1 {
		t.Fatalf("released %d times, want 1", got)
	}

	var m atomic.Int32
	released := make(chan struct{})
	NewPin(func() {
		m.Add(1)
		close(released)
	})
	// The collection that finds the pin unreachable queues its cleanup,
	// which the runtime then runs: wait for it, not for time to pass.
	runtime.GC()
	<-released
	runtime.GC()
	if got := m.Load(); got != 1 {
		t.Fatalf("an unreachable pin released %d times, want 1", got)
	}
}
