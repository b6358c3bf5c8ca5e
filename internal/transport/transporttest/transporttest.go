// Package transporttest is the conformance suite of transport.Network:
// what every transport (the in-process one, gRPC) must do alike, run by
// each transport's tests on its own network, so that a driver tested on
// one may run on the other. What only one transport does (chunks,
// compression, references handed over in process) stays in its own tests.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, or the collections.
package transporttest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport"
)

// Echo is a handler that sends every batch of a stream back, serves Data,
// and keeps what is pushed to it.
type Echo struct {
	Data   map[graph.Key]any
	Served sync.WaitGroup // add one before opening each stream
	mu     sync.Mutex
	pushed []*protocol.ShufflePush
}

// Push keeps p.
func (e *Echo) Push(_ context.Context, p *protocol.ShufflePush) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pushed = append(e.pushed, p)
	return nil
}

// Pushed is what was pushed so far.
func (e *Echo) Pushed() []*protocol.ShufflePush {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*protocol.ShufflePush(nil), e.pushed...)
}

// ServeStream sends every batch back until the stream ends.
func (e *Echo) ServeStream(s transport.Stream) {
	defer e.Served.Done()
	for {
		msgs, err := s.Recv()
		if err != nil {
			return
		}
		s.Send(msgs)
	}
}

// GetData gives the values of Data it holds, each with a reference of its
// own where it counts them.
func (e *Echo) GetData(_ context.Context, keys []graph.Key) (map[graph.Key]any, error) {
	out := map[graph.Key]any{}
	for _, k := range keys {
		if v, ok := e.Data[k]; ok {
			if r, ok := v.(interface{ Retain() }); ok {
				r.Retain()
			}
			out[k] = v
		}
	}
	return out, nil
}

// Connect serves h on a fresh address of n and dials it, for t: the
// listener and the connection close when t ends, and ctx ends after two
// minutes (a transfer of tens of MB under the race detector).
func Connect(t *testing.T, n transport.Network, h transport.Handler) (context.Context, transport.Listener, transport.Conn) {
	t.Helper()
	ln, err := n.Listen("", h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	conn, err := n.Dial(ctx, ln.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return ctx, ln, conn
}

// Run runs the suite on networks newNet makes; nobody is an address of
// that network where nothing listens.
func Run(t *testing.T, newNet func() transport.Network, nobody string) {
	t.Run("stream keeps order and closes", func(t *testing.T) { streamOrder(t, newNet()) })
	t.Run("data", func(t *testing.T) { data(t, newNet()) })
	t.Run("push", func(t *testing.T) { push(t, newNet()) })
	t.Run("ends", func(t *testing.T) { ends(t, newNet(), nobody) })
}

// streamOrder: many sends without reading (a sender never waits for its
// reader) come back in order; a closed stream ends on both sides.
func streamOrder(t *testing.T, n transport.Network) {
	h := &Echo{}
	ctx, _, conn := Connect(t, n, h)
	h.Served.Add(1)
	st, err := conn.OpenStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const count = 10000
	for i := range count {
		if err := st.Send([]protocol.Msg{&protocol.FreeKeys{Keys: []graph.Key{graph.Part("k", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	for got := 0; got < count; {
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
	h.Served.Wait() // the serving side sees the end
	if _, err := st.Recv(); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Recv after Close: %v, want ErrClosed", err)
	}
	if err := st.Send(nil); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Send after Close: %v, want ErrClosed", err)
	}
}

// Record is an Arrow record of one column of n int64s.
func Record(n int) arrow.Record {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range n {
		b.Append(int64(i * 7))
	}
	col := b.NewArray()
	defer col.Release()
	return array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, int64(n))
}

// data: the values held come back, a record among them; keys not held are
// left out.
func data(t *testing.T, n transport.Network) {
	rec := Record(100_000)
	defer rec.Release()
	ctx, _, conn := Connect(t, n, &Echo{Data: map[graph.Key]any{"rec": rec, "count": int64(42)}})
	vals, err := conn.GetData(ctx, []graph.Key{"rec", "missing", "count"})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := vals["rec"].(arrow.Record)
	if !ok || !array.RecordEqual(rec, got) || vals["count"] != int64(42) || len(vals) != 2 {
		t.Fatalf("GetData gave %v", vals)
	}
	got.Release()
}

// push: a push carries its header, its pieces and its empty pieces.
func push(t *testing.T, n transport.Network) {
	rec := Record(1000)
	defer rec.Release()
	Push(t, n, rec)
}

// Push pushes rec, an empty piece and a number in one push over n and
// checks that the header and every piece arrive as sent (a transport's own
// tests give it records of its chunks, its compressions).
func Push(t *testing.T, n transport.Network, rec arrow.Record) {
	t.Helper()
	h := &Echo{}
	ctx, _, conn := Connect(t, n, h)
	p := &protocol.ShufflePush{ID: "s", Run: 3, Side: 1, Source: 5, Parts: []int{2, 4, 9}, Values: []any{rec, nil, int64(8)},
		Merge: "df-agg-combine", MergeArgs: []byte(`{"keys":["k"]}`)}
	if err := conn.Push(ctx, p); err != nil {
		t.Fatal(err)
	}
	pushed := h.Pushed()
	if len(pushed) != 1 {
		t.Fatalf("%d pushes arrived", len(pushed))
	}
	got := pushed[0]
	if got.ID != "s" || got.Run != 3 || got.Side != 1 || got.Source != 5 || got.Merge != p.Merge || string(got.MergeArgs) != string(p.MergeArgs) {
		t.Fatalf("header came back as %+v", got)
	}
	byPart := map[int]any{}
	for i, part := range got.Parts {
		byPart[part] = got.Values[i]
	}
	r, ok := byPart[2].(arrow.Record)
	if !ok || !array.RecordEqual(r, rec) || byPart[4] != nil || byPart[9] != int64(8) || len(byPart) != 3 {
		t.Fatalf("pieces came back as %v", byPart)
	}
	r.Release()
}

// ends: an endpoint closed answers no more, and an address where nothing
// listens cannot be dialed; neither waits for a timeout.
func ends(t *testing.T, n transport.Network, nobody string) {
	ctx, ln, conn := Connect(t, n, &Echo{Data: map[graph.Key]any{"a": int64(1)}})
	if vals, err := conn.GetData(ctx, []graph.Key{"a"}); err != nil || vals["a"] != int64(1) {
		t.Fatalf("GetData = %v, %v", vals, err)
	}
	ln.Close()
	if _, err := conn.GetData(ctx, []graph.Key{"a"}); err == nil {
		t.Fatal("GetData from a closed endpoint succeeded")
	}
	if _, err := n.Dial(ctx, nobody); err == nil {
		t.Fatalf("dialing %s, where nothing listens, succeeded", nobody)
	}
}
