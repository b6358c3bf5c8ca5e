package transport

import (
	"context"
	"fmt"
	"sync"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// Inproc is a Network inside one process: messages are handed over as they
// are and data is shared, not copied (Arrow values are retained).
type Inproc struct {
	mu        sync.Mutex
	endpoints map[string]Handler
	next      int
}

// NewInproc returns an empty in-process network.
func NewInproc() *Inproc {
	return &Inproc{endpoints: make(map[string]Handler)}
}

// Listen registers h; addr "" gets "inproc://N".
func (n *Inproc) Listen(addr string, h Handler) (Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if addr == "" {
		n.next++
		addr = fmt.Sprintf("inproc://%d", n.next)
	}
	if _, ok := n.endpoints[addr]; ok {
		return nil, fmt.Errorf("transport: %s is already served", addr)
	}
	n.endpoints[addr] = h
	return &inprocListener{net: n, addr: addr}, nil
}

// Dial connects to the endpoint at addr.
func (n *Inproc) Dial(_ context.Context, addr string) (Conn, error) {
	n.mu.Lock()
	h := n.endpoints[addr]
	n.mu.Unlock()
	if h == nil {
		return nil, fmt.Errorf("transport: nothing serves %s", addr)
	}
	return &inprocConn{net: n, addr: addr}, nil
}

func (n *Inproc) handler(addr string) (Handler, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.endpoints[addr]
	if h == nil {
		return nil, fmt.Errorf("transport: %s is gone", addr)
	}
	return h, nil
}

type inprocListener struct {
	net  *Inproc
	addr string
}

func (l *inprocListener) Addr() string { return l.addr }

func (l *inprocListener) Close() error {
	l.net.mu.Lock()
	delete(l.net.endpoints, l.addr)
	l.net.mu.Unlock()
	return nil
}

type inprocConn struct {
	net  *Inproc
	addr string
}

func (c *inprocConn) OpenStream(context.Context) (Stream, error) {
	h, err := c.net.handler(c.addr)
	if err != nil {
		return nil, err
	}
	a, b := NewMailbox(), NewMailbox()
	local := &inprocStream{in: a, out: b}
	remote := &inprocStream{in: b, out: a}
	go h.ServeStream(remote)
	return local, nil
}

func (c *inprocConn) GetData(ctx context.Context, keys []graph.Key) (map[graph.Key]any, error) {
	h, err := c.net.handler(c.addr)
	if err != nil {
		return nil, err
	}
	return h.GetData(ctx, keys)
}

// Push hands the values over as they are, each with a reference of its own
// for the endpoint.
func (c *inprocConn) Push(ctx context.Context, p *protocol.ShufflePush) error {
	h, err := c.net.handler(c.addr)
	if err != nil {
		return err
	}
	own := *p
	own.Values = make([]any, len(p.Values))
	for i, v := range p.Values {
		if r, ok := v.(interface{ Retain() }); ok {
			r.Retain()
		}
		own.Values[i] = v
	}
	return h.Push(ctx, &own)
}

func (c *inprocConn) Close() error { return nil }

// inprocStream reads from in and writes to the peer's in.
type inprocStream struct {
	in, out *Mailbox
}

func (s *inprocStream) Send(msgs []protocol.Msg) error { return s.out.Put(msgs) }
func (s *inprocStream) Recv() ([]protocol.Msg, error)  { return s.in.Get() }

func (s *inprocStream) Close() error {
	s.in.Close()
	s.out.Close()
	return nil
}
