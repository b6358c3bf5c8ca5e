package grpcnet

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/codec"
	"github.com/duskdata/dusk/internal/procmem"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/internal/transport/grpcnet/pb"
)

// Values (GetData) and shuffle pieces (Push) travel beside gRPC, on plain
// TCP connections to the same port, as Arrow Flight and Ray move bulk data
// beside their control planes: gRPC's framing, flow control and protobuf
// copies cost as much as a shuffle itself. A bulk connection opens with
// bulkMagic (then TLS, when the network has it) and carries requests one
// after another, each answered before the next:
//
//	request:  u8 kind | u32 len | protobuf (GetDataRequest, or PushHeader then values)
//	value:    u8 valueFollows | u16 key len | key | u8 codec len | codec | body frames
//	frames:   (u32 len | bytes)* | u32 0
//	reply:    get: value* | u8 replyOK, or u8 replyError | u32 len | message
//	          push: u8 replyOK, or u8 replyError | u32 len | message
//
// A value's encoding is written straight from its buffers (an Arrow
// record's columns go to the socket without a copy) and read straight into
// the buffers the decoder allocates. Connections are pooled per peer, so
// several transfers run at once.
const bulkMagic = "DUSKBULK"

// Request kinds and reply tags.
const (
	bulkGet  = 1
	bulkPush = 2

	valueFollows = 1
	replyOK      = 2
	replyError   = 3
)

// bulkBuffer is the buffered reader's and writer's size: small writes (IPC
// metadata, headers) gather in it, large ones pass it by.
const bulkBuffer = 256 << 10

// sniffTimeout bounds how long a new connection may take to say what it
// is, and a bulk one to shake hands for TLS.
const sniffTimeout = 10 * time.Second

// muxListener hands gRPC the connections that are not bulk ones.
type muxListener struct {
	net.Listener
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	mu     sync.Mutex
	bulk   map[net.Conn]struct{} // the bulk connections being served
	// ctx ends when the listener closes: the handler's calls for bulk
	// requests stop waiting.
	ctx    context.Context
	cancel context.CancelFunc
}

func newMux(lis net.Listener) *muxListener {
	ctx, cancel := context.WithCancel(context.Background())
	return &muxListener{Listener: lis, conns: make(chan net.Conn), closed: make(chan struct{}),
		bulk: map[net.Conn]struct{}{}, ctx: ctx, cancel: cancel}
}

// track adds a bulk connection served, or reports that the listener has
// closed; untrack removes it.
func (m *muxListener) track(c net.Conn) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bulk == nil {
		return false
	}
	m.bulk[c] = struct{}{}
	return true
}

func (m *muxListener) untrack(c net.Conn) {
	m.mu.Lock()
	delete(m.bulk, c)
	m.mu.Unlock()
}

func (m *muxListener) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case <-m.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting and ends the bulk connections being served.
func (m *muxListener) Close() error {
	m.once.Do(func() {
		close(m.closed)
		m.cancel()
		m.mu.Lock()
		for c := range m.bulk {
			c.Close()
		}
		m.bulk = nil
		m.mu.Unlock()
	})
	return m.Listener.Close()
}

// serveMux accepts connections on lis, serving bulk ones itself and
// handing the others (gRPC, in plain text or TLS) to m.
func (s *server) serveMux(lis net.Listener, m *muxListener, tlsConf *tls.Config) {
	var backoff time.Duration
	for {
		c, err := lis.Accept()
		if errors.Is(err, net.ErrClosed) {
			m.Close()
			return
		}
		if err != nil {
			// Out of file descriptors, say: try again in a moment, as
			// net/http and gRPC do.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		go func() {
			c.SetReadDeadline(time.Now().Add(sniffTimeout))
			var head [len(bulkMagic)]byte
			n, err := io.ReadFull(c, head[:])
			if err != nil && n == 0 {
				c.Close() // a port check, or a peer gone at once
				return
			}
			c.SetReadDeadline(time.Time{})
			if string(head[:n]) != bulkMagic {
				select {
				case m.conns <- &replayConn{Conn: c, head: bytes.NewReader(head[:n])}:
				case <-m.closed:
					c.Close()
				}
				return
			}
			var conn net.Conn = c
			if tlsConf != nil {
				tc := tls.Server(c, tlsConf)
				c.SetDeadline(time.Now().Add(sniffTimeout))
				if err := tc.Handshake(); err != nil {
					c.Close()
					return
				}
				c.SetDeadline(time.Time{})
				conn = tc
			}
			if !m.track(c) {
				c.Close()
				return
			}
			defer m.untrack(c)
			s.serveBulk(m.ctx, conn, sameHostAddrs(c.RemoteAddr(), c.LocalAddr()))
		}()
	}
}

// replayConn gives back the bytes read to tell what a connection is.
type replayConn struct {
	net.Conn
	head *bytes.Reader
}

func (r *replayConn) Read(p []byte) (int, error) {
	if r.head.Len() > 0 {
		return r.head.Read(p)
	}
	return r.Conn.Read(p)
}

// serveBulk answers a bulk connection's requests until it closes.
func (s *server) serveBulk(ctx context.Context, c net.Conn, local bool) {
	defer c.Close()
	br, bw := bufio.NewReaderSize(c, bulkBuffer), bufio.NewWriterSize(c, bulkBuffer)
	plain := s.compression == CompressNever || s.compression == CompressAuto && local
	for {
		kind, req, err := readRequest(br)
		if err != nil {
			return
		}
		switch kind {
		case bulkGet:
			err = s.bulkGet(ctx, br, bw, req, plain)
		case bulkPush:
			err = s.bulkPush(ctx, br, bw, req)
		default:
			err = fmt.Errorf("unknown bulk request %d", kind)
		}
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			return // the connection is in an unknown state: the peer sees it close
		}
	}
}

func (s *server) bulkGet(ctx context.Context, br *bufio.Reader, bw *bufio.Writer, raw []byte, plain bool) error {
	var req pb.GetDataRequest
	if err := proto.Unmarshal(raw, &req); err != nil {
		return err
	}
	keys := make([]graph.Key, len(req.Keys))
	for i, k := range req.Keys {
		keys[i] = graph.Key(k)
	}
	values, err := s.h.GetData(ctx, keys)
	if err != nil {
		return writeReply(bw, err)
	}
	defer releaseValues(values)
	for k, v := range values {
		if _, err := codec.For(v); err != nil {
			return writeReply(bw, fmt.Errorf("send %s: %w", k, err))
		}
	}
	for _, k := range keys {
		if v, ok := values[k]; ok {
			if err := writeValue(bw, string(k), v, plain); err != nil {
				return err
			}
		}
	}
	return writeReply(bw, nil)
}

func (s *server) bulkPush(ctx context.Context, br *bufio.Reader, bw *bufio.Writer, raw []byte) error {
	var hdr pb.PushHeader
	if err := proto.Unmarshal(raw, &hdr); err != nil {
		return err
	}
	p := &protocol.ShufflePush{ID: hdr.Id, Run: hdr.Run, Side: int(hdr.Side), Source: int(hdr.Source), Merge: hdr.Merge, MergeArgs: hdr.MergeArgs}
	fail := func() {
		for _, v := range p.Values {
			registry.Release(v)
		}
	}
	for _, part := range hdr.Parts {
		key, v, err := readValue(br)
		if err != nil {
			fail()
			return err
		}
		if key != strconv.Itoa(int(part)) {
			registry.Release(v)
			fail()
			return fmt.Errorf("push of shuffle %s: the piece of output %s came where %d was due", hdr.Id, key, part)
		}
		p.Parts, p.Values = append(p.Parts, int(part)), append(p.Values, v)
	}
	for _, part := range hdr.Empty {
		p.Parts, p.Values = append(p.Parts, int(part)), append(p.Values, nil)
	}
	err := s.h.Push(ctx, p)
	if err != nil {
		fail()
	}
	return writeReply(bw, err)
}

// bulkPool keeps the idle bulk connections to one peer.
type bulkPool struct {
	addr  string
	wire  *Wire
	tls   *tls.Config
	mu    sync.Mutex
	idle  []*bulkConn
	close bool
}

type bulkConn struct {
	c   net.Conn // raw, or TLS over raw
	raw net.Conn
	br  *bufio.Reader
	bw  *bufio.Writer
}

// get returns an idle connection, or a new one.
func (p *bulkPool) get(ctx context.Context) (*bulkConn, error) {
	p.mu.Lock()
	if p.close {
		p.mu.Unlock()
		return nil, net.ErrClosed
	}
	for n := len(p.idle); n > 0; n = len(p.idle) {
		bc := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		if open(bc.raw) {
			return bc, nil
		}
		bc.c.Close() // the peer closed it while it was idle (it restarted, say)
		p.mu.Lock()
	}
	p.mu.Unlock()
	d := net.Dialer{KeepAliveConfig: keepAlive}
	raw, err := d.DialContext(ctx, "tcp", p.addr)
	if err != nil {
		return nil, err
	}
	c := p.wire.count(raw)
	if _, err := io.WriteString(c, bulkMagic); err != nil {
		c.Close()
		return nil, err
	}
	bc := &bulkConn{c: c, raw: raw}
	if p.tls != nil {
		tc := tls.Client(c, p.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, err
		}
		bc.c = tc
	}
	bc.br, bc.bw = bufio.NewReaderSize(bc.c, bulkBuffer), bufio.NewWriterSize(bc.c, bulkBuffer)
	return bc, nil
}

// put returns a connection whose request was answered in full.
func (p *bulkPool) put(bc *bulkConn) {
	p.mu.Lock()
	if !p.close {
		p.idle = append(p.idle, bc)
		bc = nil
	}
	p.mu.Unlock()
	if bc != nil {
		bc.c.Close()
	}
}

func (p *bulkPool) closeAll() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.close = nil, true
	p.mu.Unlock()
	for _, bc := range idle {
		bc.c.Close()
	}
}

// do sends one request over a pooled connection and reads its reply with
// read; the connection goes back to the pool only when the exchange ended
// cleanly, and is closed when ctx ends first.
func (p *bulkPool) do(ctx context.Context, write func(*bufio.Writer) error, read func(*bufio.Reader) error) error {
	bc, err := p.get(ctx)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { bc.c.Close() })
	err = write(bc.bw)
	if err == nil {
		err = bc.bw.Flush()
	}
	if err == nil {
		err = read(bc.br)
	}
	var remote *remoteError
	if !stop() {
		bc.c.Close()
		return ctx.Err()
	}
	if err != nil && !errors.As(err, &remote) {
		bc.c.Close()
		return err
	}
	p.put(bc)
	return err
}

// remoteError is a failure the peer reported; the connection is sound.
type remoteError struct{ msg string }

func (e *remoteError) Error() string { return e.msg }

// getBulk fetches the values of keys.
func (c *conn) getBulk(ctx context.Context, keys []graph.Key) (map[graph.Key]any, error) {
	req := &pb.GetDataRequest{Keys: make([]string, len(keys))}
	for i, k := range keys {
		req.Keys[i] = string(k)
	}
	out := map[graph.Key]any{}
	err := c.bulk.do(ctx, func(bw *bufio.Writer) error { return writeRequest(bw, bulkGet, req) },
		func(br *bufio.Reader) error {
			for {
				tag, err := br.ReadByte()
				if err != nil {
					return noEOF(err)
				}
				if tag != valueFollows {
					return readReply(br, tag)
				}
				k, v, err := readValueAfterTag(br)
				if err != nil {
					return err
				}
				if old, ok := out[graph.Key(k)]; ok {
					registry.Release(old)
				}
				out[graph.Key(k)] = v
			}
		})
	if err != nil {
		releaseValues(out)
		return nil, err
	}
	return out, nil
}

// pushBulk sends a shuffle transfer's pieces.
func (c *conn) pushBulk(ctx context.Context, p *protocol.ShufflePush) error {
	hdr := &pb.PushHeader{Id: p.ID, Run: p.Run, Side: int32(p.Side), Source: int32(p.Source), Merge: p.Merge, MergeArgs: p.MergeArgs}
	for i, part := range p.Parts {
		if p.Values[i] == nil {
			hdr.Empty = append(hdr.Empty, int32(part))
		} else {
			hdr.Parts = append(hdr.Parts, int32(part))
		}
	}
	return c.bulk.do(ctx, func(bw *bufio.Writer) error {
		if err := writeRequest(bw, bulkPush, hdr); err != nil {
			return err
		}
		for i, v := range p.Values {
			if v != nil {
				if err := writeValue(bw, strconv.Itoa(p.Parts[i]), v, c.plain); err != nil {
					return err
				}
			}
		}
		return nil
	}, func(br *bufio.Reader) error {
		tag, err := br.ReadByte()
		if err != nil {
			return noEOF(err)
		}
		return readReply(br, tag)
	})
}

// maxRequest bounds a request's protobuf: keys, or a push's header.
const maxRequest = 64 << 20

func writeRequest(bw *bufio.Writer, kind byte, m proto.Message) error {
	b, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	bw.WriteByte(kind)
	bw.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(b))))
	_, err = bw.Write(b)
	return err
}

func readRequest(br *bufio.Reader) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint32(head[1:])
	if n > maxRequest {
		return 0, nil, fmt.Errorf("a request of %d bytes", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(br, b); err != nil {
		return 0, nil, noEOF(err)
	}
	return head[0], b, nil
}

// writeReply ends an answer: OK, or the error the handler gave.
func writeReply(bw *bufio.Writer, err error) error {
	if err == nil {
		return bw.WriteByte(replyOK)
	}
	msg := err.Error()
	bw.WriteByte(replyError)
	bw.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(msg))))
	_, werr := bw.WriteString(msg)
	return werr
}

func readReply(br *bufio.Reader, tag byte) error {
	switch tag {
	case replyOK:
		return nil
	case replyError:
		var n [4]byte
		if _, err := io.ReadFull(br, n[:]); err != nil {
			return noEOF(err)
		}
		msg := make([]byte, min(binary.LittleEndian.Uint32(n[:]), 1<<20))
		if _, err := io.ReadFull(br, msg); err != nil {
			return noEOF(err)
		}
		return &remoteError{string(msg)}
	}
	return fmt.Errorf("bulk reply: unknown tag %d", tag)
}

// writeValue writes v under key, as plain Arrow IPC in one batch (from the
// record's buffers) or LZ4.
func writeValue(bw *bufio.Writer, key string, v any, plain bool) error {
	c, err := codec.For(v)
	if err != nil {
		return fmt.Errorf("send %s: %w", key, err)
	}
	if c == codec.Arrow && plain {
		c = codec.ArrowWhole
	}
	if len(key) > 1<<16-1 {
		return fmt.Errorf("send: a key of %d bytes", len(key))
	}
	bw.WriteByte(valueFollows)
	bw.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(key))))
	bw.WriteString(key)
	bw.WriteByte(byte(len(c.Name())))
	bw.WriteString(c.Name())
	fw := &frameWriter{bw: bw}
	if err := c.Encode(fw, v); err != nil {
		return fmt.Errorf("send %s: %w", key, err)
	}
	_, err = bw.Write(make([]byte, 4)) // the frames' end
	return err
}

// frameWriter writes each Write as a frame: its length, then its bytes.
type frameWriter struct{ bw *bufio.Writer }

func (w *frameWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		n := min(len(p), 1<<30)
		var head [4]byte
		binary.LittleEndian.PutUint32(head[:], uint32(n))
		if _, err := w.bw.Write(head[:]); err != nil {
			return 0, err
		}
		if _, err := w.bw.Write(p[:n]); err != nil {
			return 0, err
		}
		p = p[n:]
	}
	return total, nil
}

// readValue reads a value writeValue wrote.
func readValue(br *bufio.Reader) (string, any, error) {
	tag, err := br.ReadByte()
	if err != nil {
		return "", nil, noEOF(err)
	}
	if tag != valueFollows {
		return "", nil, fmt.Errorf("bulk value: tag %d", tag)
	}
	return readValueAfterTag(br)
}

func readValueAfterTag(br *bufio.Reader) (string, any, error) {
	var n [2]byte
	if _, err := io.ReadFull(br, n[:]); err != nil {
		return "", nil, noEOF(err)
	}
	key := make([]byte, binary.LittleEndian.Uint16(n[:]))
	if _, err := io.ReadFull(br, key); err != nil {
		return "", nil, noEOF(err)
	}
	cl, err := br.ReadByte()
	if err != nil {
		return "", nil, noEOF(err)
	}
	name := make([]byte, cl)
	if _, err := io.ReadFull(br, name); err != nil {
		return "", nil, noEOF(err)
	}
	c, err := codec.Named(string(name))
	if err != nil {
		return "", nil, fmt.Errorf("get %s: %w", key, err)
	}
	fr := &frameReader{br: br}
	v, err := c.Decode(fr)
	if err == nil {
		// What the decoder left (nothing, or a trailing newline), to the
		// frames' end, so that the next value starts where it should.
		_, err = io.Copy(io.Discard, fr)
	} else if !fr.broken {
		_, cerr := io.Copy(io.Discard, fr)
		err = errors.Join(err, cerr)
	}
	if err != nil {
		registry.Release(v)
		return "", nil, fmt.Errorf("decode %s: %w", key, err)
	}
	return string(key), v, nil
}

// bulkBelieve is the largest body claim of an Arrow message on a bulk
// connection that is allocated at once (codec.Believed): the peer's
// encoder made it, and TCP (or TLS) delivers it intact. A peer that
// lies could make a worker allocate this much, no more than one that may
// submit tasks (anyone who can reach an unsecured cluster) already can;
// past the process's memory ceiling a claim is not believed, and the
// body grows with the bytes that come.
const bulkBelieve = 4 << 30

func (r *frameReader) Believe() int64 { return min(bulkBelieve, procmem.ReadCeiling()) }

// frameReader reads the bytes of a value's frames, then io.EOF.
type frameReader struct {
	br     *bufio.Reader
	left   int
	done   bool
	broken bool // the connection failed mid-value
}

func (r *frameReader) Read(p []byte) (int, error) {
	for r.left == 0 {
		if r.done {
			return 0, io.EOF
		}
		var head [4]byte
		if _, err := io.ReadFull(r.br, head[:]); err != nil {
			r.broken = true
			return 0, noEOF(err)
		}
		r.left = int(binary.LittleEndian.Uint32(head[:]))
		r.done = r.left == 0
	}
	n, err := r.br.Read(p[:min(len(p), r.left)])
	r.left -= n
	if err != nil {
		r.broken = true
		err = noEOF(err)
	}
	return n, err
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
