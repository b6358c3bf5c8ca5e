package dusk

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// gate holds tasks at a point of a test's choosing, so that the test acts
// (kills a worker) at a known moment of a computation instead of sleeping
// and hoping: the first pass calls go through, each later one reports
// itself on reached and waits until the test opens the gate.
type gate struct {
	pass    int64
	calls   atomic.Int64
	reached chan int64
	open    chan struct{}
	once    sync.Once
}

func newGate(pass int64) *gate {
	return &gate{pass: pass, reached: make(chan int64, 1024), open: make(chan struct{})}
}

// at is called by a task at the gate's point.
func (g *gate) at() {
	if n := g.calls.Add(1); n > g.pass {
		g.reached <- n
		<-g.open
	}
}

// Open lets every task through, now and later.
func (g *gate) Open() { g.once.Do(func() { close(g.open) }) }

// loseWorker closes local worker i while g holds the tasks, waits until the
// scheduler has seen it go (each check a round trip to it, in order with
// the worker's departure), and only then opens g: what was under way when
// the worker died must be started again.
func loseWorker(t *testing.T, ctx context.Context, c *Client, i int, g *gate) {
	t.Helper()
	before, err := c.Workers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		c.local.Workers[i].Close()
		close(closed)
	}()
	for {
		ws, err := c.Workers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) < len(before) {
			break
		}
	}
	g.Open()
	<-closed
}
