package transport

import (
	"context"
	"fmt"
	"sync"
)

// Conns keeps one connection per address, dialed on first use: how a client
// or a worker reaches the workers it fetches from. Safe for concurrent use.
type Conns struct {
	net Network
	mu  sync.Mutex
	m   map[string]*peer
}

// peer is the connection to one address, and the context its transfers
// run under, ended when the address is declared lost.
type peer struct {
	conn Conn
	ctx  context.Context
	end  context.CancelCauseFunc
}

// NewConns returns an empty cache of connections over net.
func NewConns(net Network) *Conns {
	return &Conns{net: net, m: make(map[string]*peer)}
}

// peerLocked is addr's entry, made if missing; called with c.mu held.
func (c *Conns) peerLocked(addr string) *peer {
	p := c.m[addr]
	if p == nil {
		ctx, end := context.WithCancelCause(context.Background())
		p = &peer{ctx: ctx, end: end}
		c.m[addr] = p
	}
	return p
}

// Get returns the connection to addr, dialing it if there is none yet.
func (c *Conns) Get(ctx context.Context, addr string) (Conn, error) {
	c.mu.Lock()
	conn := c.peerLocked(addr).conn
	c.mu.Unlock()
	if conn != nil {
		return conn, nil
	}
	conn, err := c.net.Dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.peerLocked(addr)
	if p.conn != nil { // dialed meanwhile by another caller
		conn.Close()
		return p.conn, nil
	}
	p.conn = conn
	return conn, nil
}

// Scope returns ctx, ended too when addr is declared Lost: a transfer with
// that peer runs under it, so that it ends the moment the scheduler says
// the peer is gone rather than when TCP gives up on it (minutes, on a
// link that went down). context.Cause names the peer.
func (c *Conns) Scope(ctx context.Context, addr string) (context.Context, context.CancelFunc) {
	c.mu.Lock()
	p := c.peerLocked(addr)
	c.mu.Unlock()
	scoped, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(p.ctx, func() { cancel(context.Cause(p.ctx)) })
	return scoped, func() { stop(); cancel(nil) }
}

// Lost ends every transfer with addr and closes its connection: the peer
// was declared lost. A later Get dials it anew.
func (c *Conns) Lost(addr string) {
	c.mu.Lock()
	p := c.m[addr]
	delete(c.m, addr)
	c.mu.Unlock()
	if p == nil {
		return
	}
	p.end(fmt.Errorf("peer %s was declared lost", addr))
	if p.conn != nil {
		p.conn.Close()
	}
}
