// Package testcluster starts the local clusters that the collections'
// tests run on. Only tests import it.
//
// Must never import: cmd/dusk, examples, or bench.
package testcluster

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/gpu"
)

// Local starts a local cluster of two workers for t, closed when t ends,
// and returns a context that carries its client and gives up after two
// minutes.
func Local(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	c, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		t.Fatalf("start client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return dusk.WithClient(ctx, c)
}

// LocalGPU starts a local cluster of two workers that offer a GPU, and a
// client that asks for it (dusk.WithGPU), for t. The tasks of operations
// with GPU kernels hold a GPU and run their GPU paths on gpu.Reference,
// whether or not the machine has a GPU; the count returned is of the
// kernel calls that reached it.
func LocalGPU(t testing.TB) (context.Context, *atomic.Int64) {
	t.Helper()
	k := &gpu.Counter{Kernels: gpu.Reference{}}
	t.Cleanup(gpu.Override(k))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	c, err := dusk.NewClient(ctx, dusk.Workers(2), dusk.Resources(map[string]float64{"GPU": 1}), dusk.WithGPU())
	if err != nil {
		t.Fatalf("start client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return dusk.WithClient(ctx, c), &k.Calls
}
