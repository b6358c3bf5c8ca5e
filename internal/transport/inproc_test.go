package transport

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// echo serves streams by sending every batch back, and data from a map;
// it keeps what is pushed to it.
type echo struct {
	data   map[graph.Key]any
	wg     sync.WaitGroup
	pushed []*protocol.ShufflePush
}

func (e *echo) Push(_ context.Context, p *protocol.ShufflePush) error {
	e.pushed = append(e.pushed, p)
	return nil
}

func (e *echo) ServeStream(s Stream) {
	defer e.wg.Done()
	for {
		msgs, err := s.Recv()
		if err != nil {
			return
		}
		s.Send(msgs)
	}
}

func (e *echo) GetData(_ context.Context, keys []graph.Key) (map[graph.Key]any, error) {
	out := map[graph.Key]any{}
	for _, k := range keys {
		if v, ok := e.data[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

func TestInprocStreamKeepsOrder(t *testing.T) {
	net := NewInproc()
	h := &echo{}
	ln, err := net.Listen("", h)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial(context.Background(), ln.Addr())
	if err != nil {
		t.Fatal(err)
	}
	h.wg.Add(1)
	st, err := conn.OpenStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Many sends without reading: a sender never waits for its reader.
	const n = 10000
	for i := 0; i < n; i++ {
		if err := st.Send([]protocol.Msg{&protocol.FreeKeys{Keys: []graph.Key{graph.Part("k", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	got := 0
	for got < n {
		msgs, err := st.Recv()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if k := m.(*protocol.FreeKeys).Keys[0]; k != graph.Part("k", got) {
				t.Fatalf("message %d is %s", got, k)
			}
			got++
		}
	}
	st.Close()
	h.wg.Wait() // the server side sees the close
	if _, err := st.Recv(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Recv after Close: %v, want ErrClosed", err)
	}
	if err := st.Send(nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Send after Close: %v, want ErrClosed", err)
	}
}

func TestInprocAddressesAndData(t *testing.T) {
	net := NewInproc()
	h := &echo{data: map[graph.Key]any{"a": 1}}
	ln, _ := net.Listen("inproc://w", h)
	if _, err := net.Listen("inproc://w", h); err == nil {
		t.Fatal("listening twice on one address succeeded")
	}
	conn, _ := net.Dial(context.Background(), "inproc://w")
	vals, err := conn.GetData(context.Background(), []graph.Key{"a", "missing"})
	if err != nil || len(vals) != 1 || vals["a"] != 1 {
		t.Fatalf("GetData = %v, %v", vals, err)
	}
	ln.Close()
	if _, err := conn.GetData(context.Background(), []graph.Key{"a"}); err == nil {
		t.Fatal("GetData from a closed endpoint succeeded")
	}
	if _, err := net.Dial(context.Background(), "inproc://nobody"); err == nil {
		t.Fatal("dialing an unknown address succeeded")
	}
}

type counted struct{ refs int }

func (c *counted) Retain()  { c.refs++ }
func (c *counted) Release() { c.refs-- }

// A push hands the values over with references of their own: the sender
// still holds its own.
func TestInprocPushGivesReferences(t *testing.T) {
	net := NewInproc()
	h := &echo{}
	ln, err := net.Listen("", h)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial(context.Background(), ln.Addr())
	if err != nil {
		t.Fatal(err)
	}
	v := &counted{refs: 1}
	p := &protocol.ShufflePush{ID: "s", Run: 1, Parts: []int{0, 3}, Values: []any{v, nil}}
	if err := conn.Push(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if len(h.pushed) != 1 || h.pushed[0].Values[0] != v || h.pushed[0].Values[1] != nil || v.refs != 2 {
		t.Fatalf("pushed %+v, refs %d", h.pushed, v.refs)
	}
}
