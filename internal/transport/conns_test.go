package transport_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/internal/transport/transporttest"
)

// A transfer scoped to a peer ends when the peer is declared lost, naming
// it; transfers with other peers go on; a later Get dials the peer anew.
func TestConnsLost(t *testing.T) {
	n := transport.NewInproc()
	for _, addr := range []string{"a", "b"} {
		if _, err := n.Listen(addr, &transporttest.Echo{}); err != nil {
			t.Fatal(err)
		}
	}
	c := transport.NewConns(n)
	ctx := context.Background()
	first, err := c.Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	toA, doneA := c.Scope(ctx, "a")
	defer doneA()
	toB, doneB := c.Scope(ctx, "b")
	defer doneB()
	c.Lost("a")
	<-toA.Done()
	if cause := context.Cause(toA); cause == nil || !strings.Contains(cause.Error(), "peer a was declared lost") {
		t.Errorf("the cause: %v", cause)
	}
	if toB.Err() != nil {
		t.Errorf("a transfer with b ended with a: %v", toB.Err())
	}
	again, err := c.Get(ctx, "a")
	if err != nil || again == first {
		t.Errorf("after Lost, Get returned the old connection (%v)", err)
	}
	// A scope taken after the loss is of the new connection, not ended.
	later, done := c.Scope(ctx, "a")
	defer done()
	if err := later.Err(); err != nil {
		t.Errorf("a scope after the loss: %v", err)
	}
	// Ending a scope ends it alone.
	doneB()
	if !errors.Is(toB.Err(), context.Canceled) || later.Err() != nil {
		t.Errorf("done: %v, %v", toB.Err(), later.Err())
	}
}
