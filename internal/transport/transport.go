// Package transport joins the processes of a cluster. Network is the one
// small interface that both the in-process transport (this package) and the
// gRPC transport implement, so the scheduler and worker drivers do not know
// which one they run on.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, or the collections.
package transport

import (
	"context"
	"errors"
	"net"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// Network makes endpoints reachable by address and dials them.
type Network interface {
	// Listen serves h at addr ("" lets the network choose) and returns a
	// listener whose Addr is what peers dial.
	Listen(addr string, h Handler) (Listener, error)
	// Dial connects to the endpoint at addr.
	Dial(ctx context.Context, addr string) (Conn, error)
}

// Metered is a network that counts the bytes its connections carry.
type Metered interface {
	WireBytes() (sent, received int64)
}

// Listener is a served endpoint.
type Listener interface {
	Addr() string
	Close() error
}

// Handler is what an endpoint serves.
type Handler interface {
	// ServeStream serves a stream a peer opened, until it ends. The peer's
	// first message is its hello.
	ServeStream(s Stream)
	// GetData returns the values of the keys held here; keys not held are
	// left out of the map. The caller owns the values.
	GetData(ctx context.Context, keys []graph.Key) (map[graph.Key]any, error)
	// Push takes pieces of a shuffle, which it then owns.
	Push(ctx context.Context, p *protocol.ShufflePush) error
}

// Conn is a connection to an endpoint.
type Conn interface {
	// OpenStream opens an ordered, two-way message stream.
	OpenStream(ctx context.Context) (Stream, error)
	// GetData asks for the values of keys; see Handler.GetData.
	GetData(ctx context.Context, keys []graph.Key) (map[graph.Key]any, error)
	// Push hands pieces of a shuffle to the endpoint; the caller keeps its
	// own references to the values.
	Push(ctx context.Context, p *protocol.ShufflePush) error
	Close() error
}

// Stream is an ordered, two-way stream of message batches. Send never blocks
// on the peer: batches queue until read. Recv blocks until a batch arrives
// and returns ErrClosed once either side has closed the stream.
type Stream interface {
	Send(msgs []protocol.Msg) error
	Recv() ([]protocol.Msg, error)
	Close() error
}

// Addressed is a stream that knows its peer's network address (a
// network's streams; the in-process ones have none).
type Addressed interface {
	// RemoteAddr is the peer's address, as host:port.
	RemoteAddr() string
}

// ErrClosed is returned by Stream.Send and Stream.Recv once the stream has
// been closed, by either side.
var ErrClosed = errors.New("transport: stream closed")

// Loopback reports whether host (a name or an IP) is this machine's
// loopback: an address others on the network cannot dial.
func Loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}
