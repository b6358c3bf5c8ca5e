package transport_test

import (
	"context"
	"testing"

	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/internal/transport/transporttest"
)

// TestInprocConformance runs the suite every transport passes.
func TestInprocConformance(t *testing.T) {
	transporttest.Run(t, func() transport.Network { return transport.NewInproc() }, "inproc://nobody")
}

// Listening twice on one address fails.
func TestInprocAddresses(t *testing.T) {
	net := transport.NewInproc()
	h := &transporttest.Echo{}
	if _, err := net.Listen("inproc://w", h); err != nil {
		t.Fatal(err)
	}
	if _, err := net.Listen("inproc://w", h); err == nil {
		t.Fatal("listening twice on one address succeeded")
	}
}

type counted struct{ refs int }

func (c *counted) Retain()  { c.refs++ }
func (c *counted) Release() { c.refs-- }

// A push hands the values over with references of their own: the sender
// still holds its own.
func TestInprocPushGivesReferences(t *testing.T) {
	h := &transporttest.Echo{}
	_, _, conn := transporttest.Connect(t, transport.NewInproc(), h)
	v := &counted{refs: 1}
	p := &protocol.ShufflePush{ID: "s", Run: 1, Parts: []int{0, 3}, Values: []any{v, nil}}
	if err := conn.Push(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	pushed := h.Pushed()
	if len(pushed) != 1 || pushed[0].Values[0] != v || pushed[0].Values[1] != nil || v.refs != 2 {
		t.Fatalf("pushed %+v, refs %d", pushed, v.refs)
	}
}
