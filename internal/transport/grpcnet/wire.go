package grpcnet

import (
	"context"
	"net"
	"sync/atomic"
	"time"
)

// Wire counts the bytes a network's connections carried: every one it
// dialed or accepted, gRPC's and the bulk transfers', after compression and
// TLS, as the kernel was handed them. The interface's counters add the
// TCP/IP headers and what other programs send.
type Wire struct{ sent, received atomic.Int64 }

// Bytes are the bytes sent and received so far.
func (w *Wire) Bytes() (sent, received int64) {
	if w == nil {
		return 0, 0
	}
	return w.sent.Load(), w.received.Load()
}

// WireBytes are the bytes the network's connections sent and received (none
// counted without a Wire).
func (n *Network) WireBytes() (sent, received int64) { return n.Wire.Bytes() }

// count wraps c so that w counts its bytes; a nil w counts nothing.
func (w *Wire) count(c net.Conn) net.Conn {
	if w == nil {
		return c
	}
	return &countedConn{Conn: c, w: w}
}

type countedConn struct {
	net.Conn
	w *Wire
}

func (c *countedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.w.received.Add(int64(n))
	return n, err
}

func (c *countedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.w.sent.Add(int64(n))
	return n, err
}

// countedListener counts the bytes of the connections it accepts.
type countedListener struct {
	net.Listener
	w *Wire
}

func (l countedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.w.count(c), nil
}

// keepAlive probes an idle connection after 5 s, every 5 s, and gives it
// up after 3 probes unanswered. A peer whose socket is gone answers the
// first probe with a reset; Go's default (15 s, 9 times) left a transfer
// waiting over two minutes for a reply whose connection the peer had
// dropped, its reset lost on a lossy link.
var keepAlive = net.KeepAliveConfig{Enable: true, Idle: 5 * time.Second, Interval: 5 * time.Second, Count: 3}

// dial dials addr over TCP, counted.
func (w *Wire) dial(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{KeepAliveConfig: keepAlive}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return w.count(c), nil
}
