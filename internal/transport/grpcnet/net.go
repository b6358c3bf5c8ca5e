// Package grpcnet is the transport.Network that joins the processes of a
// cluster over gRPC: each endpoint (the scheduler, every worker) serves the
// Dusk service of pb/dusk.proto on a TCP address. Message streams queue in
// mailboxes, so sending never blocks on the peer; values and shuffle pieces
// travel beside gRPC on bulk connections to the same port (bulk.go),
// encoded by internal/codec: Arrow records as Arrow IPC, LZ4-compressed
// when they leave the machine (see Compression).
//
// Must never import: scheduler, worker, scheduler/server, worker/process, or the collections.
package grpcnet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/peer"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/internal/security"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/internal/transport/grpcnet/pb"
)

// maxMsg bounds a message: a batch of many task messages.
const maxMsg = 64 << 20

// Compression says when Arrow records are compressed on their way.
type Compression int

const (
	// CompressAuto compresses between machines, where bandwidth is scarce,
	// and not between processes of one machine, where compressing costs
	// more time than moving the bytes.
	CompressAuto Compression = iota
	// CompressAlways compresses every transfer.
	CompressAlways
	// CompressNever compresses none.
	CompressNever
)

// ParseCompression reads "auto", "lz4" or "none".
func ParseCompression(s string) (Compression, error) {
	switch s {
	case "auto", "":
		return CompressAuto, nil
	case "lz4":
		return CompressAlways, nil
	case "none":
		return CompressNever, nil
	}
	return 0, fmt.Errorf("compression %q: want auto, lz4 or none", s)
}

// Network is the gRPC transport. The zero value is ready to use, in plain
// text, and compresses between machines only.
type Network struct {
	Compression Compression
	// TLS, when set, makes every connection mutual TLS: listeners admit
	// only peers with a certificate from the CA, and dials present one.
	TLS *security.TLS
	// Log hears of the connections a listener refused at the handshake.
	Log *slog.Logger
	// Wire, when set, counts the bytes of every connection the network
	// dials or accepts.
	Wire *Wire
}

// New returns the gRPC network.
func New() *Network { return &Network{} }

// Listen serves h on addr ("host:port"; port 0 picks a free one; "" is a
// free port on 127.0.0.1). The listener's Addr is the address to dial.
func (n *Network) Listen(addr string, h transport.Handler) (transport.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	lc := net.ListenConfig{KeepAliveConfig: keepAlive}
	lis, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if n.Wire != nil {
		lis = countedListener{lis, n.Wire}
	}
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(maxMsg), grpc.MaxSendMsgSize(maxMsg), grpc.ForceServerCodecV2(wireCodec),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
	}
	if n.TLS != nil {
		opts = append(opts, grpc.Creds(refusals{credentials.NewTLS(n.TLS.Server()), n.Log}))
	}
	srv := grpc.NewServer(opts...)
	s := &server{h: h, compression: n.Compression}
	pb.RegisterDuskServer(srv, s)
	mux := newMux(lis)
	var tlsConf *tls.Config
	if n.TLS != nil {
		tlsConf = n.TLS.Server()
	}
	go s.serveMux(lis, mux, tlsConf)
	go srv.Serve(mux)
	return &listener{srv: srv, mux: mux, addr: lis.Addr().String()}, nil
}

type listener struct {
	srv  *grpc.Server
	mux  *muxListener
	addr string
}

func (l *listener) Addr() string { return l.addr }

// Close stops serving and ends every stream and transfer at once.
func (l *listener) Close() error {
	l.srv.Stop()
	l.mux.Close()
	return nil
}

// Dial connects to the endpoint at addr, failing with the network's reason
// (refused, unreachable) if no connection can be made before ctx ends.
func (n *Network) Dial(ctx context.Context, addr string) (transport.Conn, error) {
	probe, err := n.Wire.dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	local := sameHostAddrs(probe.RemoteAddr(), probe.LocalAddr())
	creds := insecure.NewCredentials()
	if n.TLS != nil {
		// gRPC dials lazily and hides a refused handshake behind
		// "unavailable": the probe shakes hands first, to say why.
		if err = handshake(ctx, probe, n.TLS); err != nil {
			err = security.Explain(addr, err, true)
		}
		creds = credentials.NewTLS(n.TLS.Client())
	} else if err = greet(ctx, probe); err != nil {
		err = &security.HandshakeError{Peer: addr, Err: fmt.Errorf("connect to %s: %w", addr, err)}
	}
	probe.Close()
	if err != nil {
		return nil, err
	}
	cc, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(creds),
		grpc.WithContextDialer(n.Wire.dial),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMsg), grpc.MaxCallSendMsgSize(maxMsg), grpc.ForceCodecV2(wireCodec)),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 10 * time.Second, Timeout: 5 * time.Second, PermitWithoutStream: true}),
	)
	if err != nil {
		return nil, err
	}
	plain := n.Compression == CompressNever || n.Compression == CompressAuto && local
	bulk := &bulkPool{addr: addr, wire: n.Wire}
	if n.TLS != nil {
		bulk.tls = n.TLS.Client()
	}
	return &conn{cc: cc, client: pb.NewDuskClient(cc), plain: plain, bulk: bulk}, nil
}

// handshake shakes hands over raw and reads the server's first bytes: under
// TLS 1.3 a server refuses the client's certificate only after the client's
// side of the handshake is done.
func handshake(ctx context.Context, raw net.Conn, t *security.TLS) error {
	tc := tls.Client(raw, t.Client())
	if err := tc.HandshakeContext(ctx); err != nil {
		return err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	tc.SetReadDeadline(deadline)
	var b [1]byte
	if _, err := tc.Read(b[:]); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	return nil
}

// greet says HTTP/2's hello over raw and reads the server's first bytes: a
// gRPC server answers with its settings, a TLS listener hangs up at once.
func greet(ctx context.Context, raw net.Conn) error {
	start := time.Now()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	raw.SetDeadline(deadline)
	if _, err := io.WriteString(raw, http2.ClientPreface); err != nil {
		return err
	}
	// A gRPC server answers with a SETTINGS frame, nine bytes at least.
	var b [5]byte
	n, err := io.ReadFull(raw, b[:])
	var timeout net.Error
	switch {
	case n == 0 && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) || n > 0 && b[0] == 0x15: // 0x15: a TLS alert
		return errors.New("the server hung up at HTTP/2's hello, as a TLS listener does: give --tls-ca-file, --tls-cert and --tls-key (dusk.TLS for a client)")
	case n == len(b) && string(b[:]) == "HTTP/":
		return errors.New("it answered in HTTP/1.1, as a web server does, not as a Dusk process: is that the dashboard's port? " +
			"A scheduler serves on its --port, 8786 unless set")
	case n == 0 && errors.As(err, &timeout) && timeout.Timeout():
		return fmt.Errorf("no answer in %s: is a Dusk process serving there, and is nothing between (a firewall, a proxy) holding the connection?",
			time.Since(start).Round(100*time.Millisecond))
	}
	return nil
}

// refusals logs the handshakes a listener refuses, naming the peer and why.
type refusals struct {
	credentials.TransportCredentials
	log *slog.Logger
}

func (r refusals) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	c, info, err := r.TransportCredentials.ServerHandshake(raw)
	// A connection closed before a word (a port check, a probe) is not news.
	if err != nil && r.log != nil && !errors.Is(err, io.EOF) {
		r.log.Warn(security.Explain(raw.RemoteAddr().String(), err, false).Error())
	}
	return c, info, err
}

func (r refusals) Clone() credentials.TransportCredentials {
	return refusals{r.TransportCredentials.Clone(), r.log}
}

type conn struct {
	cc     *grpc.ClientConn
	client pb.DuskClient
	plain  bool // what it sends goes uncompressed
	bulk   *bulkPool
}

func (c *conn) Close() error {
	c.bulk.closeAll()
	return c.cc.Close()
}

// OpenStream opens a message stream; it lives until closed, whatever ctx
// does later (ctx bounds the opening only).
func (c *conn) OpenStream(ctx context.Context) (transport.Stream, error) {
	sctx, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, cancel)
	cs, err := c.client.Stream(sctx)
	stop()
	if err != nil {
		cancel()
		return nil, err
	}
	st := newStream(cs.Send, cs.Recv, func() {
		cs.CloseSend()
		cancel()
	})
	return st, nil
}

// GetData fetches the values of keys from the endpoint, over a bulk
// connection (see bulk.go).
func (c *conn) GetData(ctx context.Context, keys []graph.Key) (map[graph.Key]any, error) {
	return c.getBulk(ctx, keys)
}

// Push sends a shuffle transfer's pieces to the endpoint, over a bulk
// connection.
func (c *conn) Push(ctx context.Context, p *protocol.ShufflePush) error {
	return c.pushBulk(ctx, p)
}

// server serves the Dusk service for a transport.Handler.
type server struct {
	pb.UnimplementedDuskServer
	h           transport.Handler
	compression Compression
}

func (s *server) Stream(ss pb.Dusk_StreamServer) error {
	st := newStream(ss.Send, ss.Recv, nil)
	var served transport.Stream = st
	if p, ok := peer.FromContext(ss.Context()); ok && p.Addr != nil {
		served = addressed{st, p.Addr.String()}
	}
	s.h.ServeStream(served)
	st.Close()
	st.wait() // what was queued before the close goes out first
	return nil
}

func releaseValues(values map[graph.Key]any) {
	for _, v := range values {
		registry.Release(v)
	}
}

// addressed is a served stream that knows its peer's address.
type addressed struct {
	*stream
	remote string
}

func (a addressed) RemoteAddr() string { return a.remote }

// sameHost reports whether the caller runs on this machine: it calls from
// a loopback address or from the address it called.
func sameHost(ctx context.Context) bool {
	p, ok := peer.FromContext(ctx)
	return ok && sameHostAddrs(p.Addr, p.LocalAddr)
}

func sameHostAddrs(remote, local net.Addr) bool {
	r, ok1 := remote.(*net.TCPAddr)
	l, ok2 := local.(*net.TCPAddr)
	return ok1 && ok2 && (r.IP.IsLoopback() || r.IP.Equal(l.IP))
}

// stream adapts a gRPC stream to transport.Stream: a reader goroutine fills
// an inbox and a writer goroutine drains an outbox, so Send never blocks on
// gRPC's flow control and Recv can be cut short by Close.
type stream struct {
	in, out *transport.Mailbox
	end     func() // ends the call (client side)
	once    sync.Once
	done    chan struct{} // the writer has finished
}

func newStream(send func(*pb.Batch) error, recv func() (*pb.Batch, error), end func()) *stream {
	s := &stream{in: transport.NewMailbox(), out: transport.NewMailbox(), end: end, done: make(chan struct{})}
	go func() {
		defer s.Close()
		for {
			b, err := recv()
			if err != nil {
				return
			}
			msgs, err := batchFromWire(b)
			if err != nil {
				return
			}
			if len(msgs) > 0 && s.in.Put(msgs) != nil {
				return
			}
		}
	}()
	go func() {
		defer close(s.done)
		for {
			msgs, err := s.out.Get()
			if err != nil {
				break
			}
			bs, err := toWireParts(msgs)
			for _, b := range bs {
				if err == nil {
					err = send(b)
				}
			}
			if err != nil {
				s.Close()
				break
			}
		}
		if s.end != nil {
			s.end()
		}
	}()
	return s
}

func (s *stream) Send(msgs []protocol.Msg) error { return s.out.Put(msgs) }

func (s *stream) Recv() ([]protocol.Msg, error) {
	msgs, err := s.in.Get()
	if errors.Is(err, transport.ErrClosed) {
		return nil, transport.ErrClosed
	}
	return msgs, err
}

// Close ends the stream: what is queued is still sent, then the call ends.
func (s *stream) Close() error {
	s.once.Do(func() {
		s.in.Close()
		s.out.Close()
	})
	return nil
}

func (s *stream) wait() { <-s.done }
