package transport

import (
	"context"
	"sync"
)

// Conns keeps one connection per address, dialed on first use: how a client
// or a worker reaches the workers it fetches from. Safe for concurrent use.
type Conns struct {
	net Network
	mu  sync.Mutex
	m   map[string]Conn
}

// NewConns returns an empty cache of connections over net.
func NewConns(net Network) *Conns {
	return &Conns{net: net, m: make(map[string]Conn)}
}

// Get returns the connection to addr, dialing it if there is none yet.
func (c *Conns) Get(ctx context.Context, addr string) (Conn, error) {
	c.mu.Lock()
	conn := c.m[addr]
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
	if old := c.m[addr]; old != nil { // dialed meanwhile by another caller
		conn.Close()
		return old, nil
	}
	c.m[addr] = conn
	return conn, nil
}
