// Package grpcnet is the transport.Network that joins the processes of a
// cluster over gRPC: each endpoint (the scheduler, every worker) serves the
// Dusk service of pb/dusk.proto on a TCP address. Message streams queue in
// mailboxes, so sending never blocks on the peer; values travel in chunks of
// at most ChunkSize, encoded by internal/codec: Arrow records as Arrow IPC
// streams, LZ4-compressed when they leave the machine (see Compression).
//
// Must never import: scheduler, worker, internal/cluster, or the collections.
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
	"strconv"
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
	"github.com/duskdata/dusk/internal/codec"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/internal/security"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/internal/transport/grpcnet/pb"
)

// ChunkSize is the most bytes of a value one message carries.
const ChunkSize = 1 << 20

// maxMsg bounds a message: a batch of many task messages, or a chunk.
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
}

// New returns the gRPC network.
func New() *Network { return &Network{} }

// Listen serves h on addr ("host:port"; port 0 picks a free one; "" is a
// free port on 127.0.0.1). The listener's Addr is the address to dial.
func (n *Network) Listen(addr string, h transport.Handler) (transport.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(maxMsg), grpc.MaxSendMsgSize(maxMsg),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
	}
	if n.TLS != nil {
		opts = append(opts, grpc.Creds(refusals{credentials.NewTLS(n.TLS.Server()), n.Log}))
	}
	srv := grpc.NewServer(opts...)
	pb.RegisterDuskServer(srv, &server{h: h, compression: n.Compression})
	go srv.Serve(lis)
	return &listener{srv: srv, addr: lis.Addr().String()}, nil
}

type listener struct {
	srv  *grpc.Server
	addr string
}

func (l *listener) Addr() string { return l.addr }

// Close stops serving and ends every stream and transfer at once.
func (l *listener) Close() error {
	l.srv.Stop()
	return nil
}

// Dial connects to the endpoint at addr, failing with the network's reason
// (refused, unreachable) if no connection can be made before ctx ends.
func (n *Network) Dial(ctx context.Context, addr string) (transport.Conn, error) {
	var d net.Dialer
	probe, err := d.DialContext(ctx, "tcp", addr)
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
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMsg), grpc.MaxCallSendMsgSize(maxMsg)),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 10 * time.Second, Timeout: 5 * time.Second, PermitWithoutStream: true}),
	)
	if err != nil {
		return nil, err
	}
	plain := n.Compression == CompressNever || n.Compression == CompressAuto && local
	return &conn{cc: cc, client: pb.NewDuskClient(cc), plain: plain}, nil
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
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	raw.SetDeadline(deadline)
	if _, err := io.WriteString(raw, http2.ClientPreface); err != nil {
		return err
	}
	var b [1]byte
	_, err := raw.Read(b[:])
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || err == nil && b[0] == 0x15 { // 0x15: a TLS alert
		return errors.New("the server hung up at HTTP/2's hello, as a TLS listener does: give --tls-ca-file, --tls-cert and --tls-key (dusk.TLS for a client)")
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
}

func (c *conn) Close() error { return c.cc.Close() }

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

// GetData streams the values of keys from the endpoint.
func (c *conn) GetData(ctx context.Context, keys []graph.Key) (map[graph.Key]any, error) {
	ks := make([]string, len(keys))
	for i, k := range keys {
		ks[i] = string(k)
	}
	cs, err := c.client.GetData(ctx, &pb.GetDataRequest{Keys: ks})
	if err != nil {
		return nil, err
	}
	return receiveValues(cs.Recv)
}

// Push streams a shuffle transfer's pieces to the endpoint.
func (c *conn) Push(ctx context.Context, p *protocol.ShufflePush) error {
	cs, err := c.client.Push(ctx)
	if err != nil {
		return err
	}
	hdr := &pb.PushHeader{Id: p.ID, Run: p.Run, Side: int32(p.Side), Source: int32(p.Source), Merge: p.Merge, MergeArgs: p.MergeArgs}
	for i, part := range p.Parts {
		if p.Values[i] == nil {
			hdr.Empty = append(hdr.Empty, int32(part))
		} else {
			hdr.Parts = append(hdr.Parts, int32(part))
		}
	}
	if err := cs.Send(&pb.PushChunk{Header: hdr}); err != nil {
		return pushError(cs, err)
	}
	send := func(d *pb.DataChunk) error { return cs.Send(&pb.PushChunk{Data: d}) }
	for i, v := range p.Values {
		if v == nil {
			continue
		}
		if err := sendValue(send, strconv.Itoa(p.Parts[i]), v, c.plain); err != nil {
			return pushError(cs, err)
		}
	}
	_, err = cs.CloseAndRecv()
	return err
}

// pushError prefers the server's reason to the send's: a send fails with
// io.EOF when the server ended the call.
func pushError(cs pb.Dusk_PushClient, err error) error {
	if err == io.EOF {
		if _, rerr := cs.CloseAndRecv(); rerr != nil {
			return rerr
		}
	}
	return err
}

// receiveValues decodes the values of a chunk stream as the chunks arrive.
func receiveValues(recv func() (*pb.DataChunk, error)) (map[graph.Key]any, error) {
	out := map[graph.Key]any{}
	fail := func(err error) (map[graph.Key]any, error) {
		releaseValues(out)
		return nil, err
	}
	for {
		first, err := recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return fail(err)
		}
		c, err := codec.Named(first.Codec)
		if err != nil {
			return fail(fmt.Errorf("get %s: %w", first.Key, err))
		}
		// Decode while the rest of the value streams in.
		pr, pw := io.Pipe()
		type result struct {
			v   any
			err error
		}
		done := make(chan result, 1)
		go func() {
			v, err := c.Decode(pr)
			io.Copy(io.Discard, pr) // let the sender finish whatever the decoder left
			done <- result{v, err}
		}()
		chunk := first
		for {
			if _, err := pw.Write(chunk.Data); err != nil {
				break // the decoder gave up; its error says why
			}
			if chunk.Last {
				break
			}
			if chunk, err = recv(); err != nil {
				pw.CloseWithError(err)
				<-done
				return fail(err)
			}
		}
		pw.Close()
		r := <-done
		if r.err != nil {
			return fail(fmt.Errorf("decode %s: %w", first.Key, r.err))
		}
		out[graph.Key(first.Key)] = r.v
	}
}

// server serves the Dusk service for a transport.Handler.
type server struct {
	pb.UnimplementedDuskServer
	h           transport.Handler
	compression Compression
}

func (s *server) Stream(ss pb.Dusk_StreamServer) error {
	st := newStream(ss.Send, ss.Recv, nil)
	s.h.ServeStream(st)
	st.Close()
	st.wait() // what was queued before the close goes out first
	return nil
}

func (s *server) GetData(req *pb.GetDataRequest, ss pb.Dusk_GetDataServer) error {
	keys := make([]graph.Key, len(req.Keys))
	for i, k := range req.Keys {
		keys[i] = graph.Key(k)
	}
	values, err := s.h.GetData(ss.Context(), keys)
	if err != nil {
		return err
	}
	defer func() {
		for _, v := range values {
			registry.Release(v)
		}
	}()
	plain := s.compression == CompressNever || s.compression == CompressAuto && sameHost(ss.Context())
	for _, k := range keys {
		if v, ok := values[k]; ok {
			if err := sendValue(ss.Send, string(k), v, plain); err != nil {
				return err
			}
		}
	}
	return nil
}

// sendValue sends v under key in chunks, as plain Arrow IPC or LZ4.
func sendValue(send func(*pb.DataChunk) error, key string, v any, plain bool) error {
	c, err := codec.For(v)
	if err != nil {
		return fmt.Errorf("send %s: %w", key, err)
	}
	if c == codec.Arrow && plain {
		c = codec.ArrowPlain
	}
	w := &chunkWriter{send: send, key: key, codec: c.Name()}
	if err := c.Encode(w, v); err != nil {
		return fmt.Errorf("send %s: %w", key, err)
	}
	return w.finish()
}

// Push receives a transfer's pieces and hands them to the handler.
func (s *server) Push(ss pb.Dusk_PushServer) error {
	first, err := ss.Recv()
	if err != nil {
		return err
	}
	hdr := first.GetHeader()
	if hdr == nil {
		return errors.New("push: the first chunk carries no header")
	}
	values, err := receiveValues(func() (*pb.DataChunk, error) {
		c, err := ss.Recv()
		if err != nil {
			return nil, err
		}
		return c.GetData(), nil
	})
	if err != nil {
		return err
	}
	p := &protocol.ShufflePush{ID: hdr.Id, Run: hdr.Run, Side: int(hdr.Side), Source: int(hdr.Source), Merge: hdr.Merge, MergeArgs: hdr.MergeArgs}
	for _, part := range hdr.Parts {
		v, ok := values[graph.Key(strconv.Itoa(int(part)))]
		if !ok {
			releaseValues(values)
			return fmt.Errorf("push of shuffle %s: the piece of output %d never came", hdr.Id, part)
		}
		p.Parts, p.Values = append(p.Parts, int(part)), append(p.Values, v)
	}
	for _, part := range hdr.Empty {
		p.Parts, p.Values = append(p.Parts, int(part)), append(p.Values, nil)
	}
	if err := s.h.Push(ss.Context(), p); err != nil {
		releaseValues(values)
		return err
	}
	return ss.SendAndClose(&pb.PushReply{})
}

func releaseValues(values map[graph.Key]any) {
	for _, v := range values {
		registry.Release(v)
	}
}

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

// chunkWriter cuts a value's encoding into chunks of at most ChunkSize.
type chunkWriter struct {
	send  func(*pb.DataChunk) error
	key   string
	codec string
	buf   []byte
	sent  bool
}

// Write buffers p, sending full chunks. The buffer grows with the value, so
// that a small value costs a small message.
func (w *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), ChunkSize-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		if len(w.buf) == ChunkSize {
			if err := w.flush(false); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

func (w *chunkWriter) flush(last bool) error {
	c := &pb.DataChunk{Data: w.buf, Last: last}
	if !w.sent {
		c.Key, c.Codec = w.key, w.codec
		w.sent = true
	}
	w.buf = nil // the message now owns the bytes
	return w.send(c)
}

func (w *chunkWriter) finish() error { return w.flush(true) }

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
			msgs, err := fromWire(b)
			if err != nil || s.in.Put(msgs) != nil {
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
			b, err := toWire(msgs)
			if err == nil {
				err = send(b)
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
