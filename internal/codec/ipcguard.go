package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/duskdata/dusk/internal/alloc"
)

// Arrow's IPC reader allocates what a message claims (its metadata's
// length, its body's) before reading it, so damaged bytes from a peer or a
// spill file could cost gigabytes. guardedStream sits between the bytes and
// the IPC reader: it reads each message's framing itself, checks the
// claims, and reads a body's bytes before the IPC reader asks for its
// buffer, which its allocator then hands over filled: a body costs the
// bytes that are there, once.
//
// The IPC reader then copies each of a batch's buffers out of the body
// into one it allocates. From a Believed or Checksummed stream, which this
// codec wrote, the allocator answers with the buffer's own bytes in the
// body (the Go IPC writer and reader agree on which buffers are asked
// for), so that the copy moves nothing and the body's memory is the
// batch's.
type guardedStream struct {
	r       io.Reader
	pending []byte // bytes read, not yet served to the IPC reader
	body    []byte // the next body, read ahead: the allocator's answer to its size
	inBody  []byte // the last body handed out, whose buffers the allocator hands out next
	bufs    []span // those buffers, in the order the IPC reader asks for them
	seen    int64  // bytes read from r
	believe int64  // a body claim up to this is allocated at once
	err     error  // why the stream cannot go on
}

// span is a buffer's place in a message body.
type span struct{ off, n int }

// Believed marks a reader whose producer is this codec in a peer of the
// cluster, over a connection that keeps bytes intact: a body claim up to
// Believe() bytes is allocated at once rather than as its bytes come.
type Believed interface{ Believe() int64 }

// growStep is how much of a body not believed is allocated ahead of its
// bytes: every batch this codec writes for spill files is one allocation.
const growStep = 64 << 20

// maxMetadata bounds a message's metadata (a flatbuffer of a schema or a
// batch's buffer offsets).
const maxMetadata = 64 << 20

// errClaim marks a claim of the stream that its bytes do not bear out.
var errClaim = errors.New("damaged Arrow stream")

func (g *guardedStream) Read(p []byte) (int, error) {
	if len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		if err := g.nextMessage(); err != nil {
			// Nothing of a message that fails its checks reaches the
			// IPC reader.
			g.err, g.pending = err, nil
			return 0, err
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

func (g *guardedStream) readFull(b []byte) error {
	n, err := io.ReadFull(g.r, b)
	g.seen += int64(n)
	return err
}

// nextMessage reads the next message's framing and metadata into pending,
// and its body, which the allocator will hand out, behind them.
func (g *guardedStream) nextMessage() error {
	var word [4]byte
	if err := g.readFull(word[:]); err != nil {
		return err
	}
	g.pending = append(g.pending[:0], word[:]...)
	n := binary.LittleEndian.Uint32(word[:])
	if n == 0xFFFFFFFF {
		if err := g.readFull(word[:]); err != nil {
			return noEOF(err)
		}
		g.pending = append(g.pending, word[:]...)
		n = binary.LittleEndian.Uint32(word[:])
	}
	if n == 0 {
		return nil // the end of the stream
	}
	if n > maxMetadata {
		return fmt.Errorf("%w: message metadata of %d bytes", errClaim, n)
	}
	// Read as it comes, from 64 KiB doubling: a claim past the stream's
	// end fails with what was there (a 4-byte input claiming 64 MiB had
	// them allocated).
	start := len(g.pending)
	for got := 0; got < int(n); {
		step := min(int(n)-got, max(got, 64<<10))
		g.pending = slices.Grow(g.pending, step)[:start+got+step]
		if err := g.readFull(g.pending[start+got:]); err != nil {
			return noEOF(err)
		}
		got += step
	}
	bodyLen, err := messageBodyLength(g.pending[start:])
	if err != nil {
		return err
	}
	if err := checkMetadata(g.pending[start:]); err != nil {
		return err
	}
	// The body, read as it comes: a claim beyond the stream's end fails
	// with what was there, not with an allocation of the claim. A body of
	// up to growStep bytes, or believed, is one allocation; 64 bytes to
	// spare let the last buffer's allocation round up within it.
	var body []byte
	for int64(len(body)) < bodyLen {
		at := len(body)
		want := min(bodyLen, max(growStep, 4*int64(at)))
		if bodyLen <= g.believe {
			want = bodyLen
		}
		if int64(cap(body)) < want {
			var grown []byte
			if at == 0 && want == bodyLen {
				grown = alloc.NoZero(roundUp64(int(want)) + 64)[:0]
				clear(grown[want:cap(grown)])
			} else {
				grown = make([]byte, at, roundUp64(int(want))+64)
				copy(grown, body)
			}
			body = grown
		}
		body = body[:want]
		if err := g.readFull(body[at:]); err != nil {
			return fmt.Errorf("%w: a body of %d bytes, and the stream holds %d: %w", errClaim, bodyLen, at, noEOF(err))
		}
	}
	g.body, g.bufs = body, nil
	if bodyLen == 0 {
		g.body = nil // the IPC reader allocates nothing for it
	} else if g.believe > 0 {
		g.bufs = bodyBuffers(g.pending[start:], len(body))
	}
	return nil
}

// Allocate hands out the body read ahead when asked for its size (the IPC
// reader reads it right after, from pending, onto itself); any other
// buffer is bounded by the bytes the stream has given.
func (g *guardedStream) Allocate(size int) []byte {
	if b := g.body; b != nil && size == roundUp64(len(b)) {
		n := len(b)
		g.body = nil
		if cap(b) < size {
			b = append(b, make([]byte, size-n)...)
		}
		b = b[:size]
		if len(g.pending) == 0 {
			g.pending = b[:n] // served onto itself: no copy
		} else {
			g.pending = append(g.pending, b[:n]...)
		}
		g.inBody = b[:cap(b)]
		return b
	}
	if len(g.bufs) > 0 && g.inBody != nil {
		next := g.bufs[0]
		if size == roundUp64(next.n) && next.off+size <= len(g.inBody) {
			g.bufs = g.bufs[1:]
			return g.inBody[next.off : next.off+size : next.off+size]
		}
		g.bufs = nil // not the buffers expected: no more aliasing
	}
	if int64(size) > 2*g.seen+1<<20 && g.believe < math.MaxInt64 {
		panic(fmt.Errorf("%w: a buffer of %d bytes from a stream of %d", errClaim, size, g.seen))
	}
	return make([]byte, size)
}

func (g *guardedStream) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	out := g.Allocate(size)
	copy(out, b)
	return out
}

func (g *guardedStream) Free([]byte) {}

func roundUp64(n int) int { return (n + 63) &^ 63 }

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// messageBodyLength reads the bodyLength of an Arrow IPC Message
// flatbuffer (the table's fourth field, an int64), with every offset
// checked against the bytes.
func messageBodyLength(meta []byte) (int64, error) {
	b := fb(meta)
	root, ok := b.u32(0)
	var at int
	if ok {
		const field = 3 // version, header_type, header, bodyLength
		at, ok = b.field(root, field)
	}
	switch {
	case !ok || at != 0 && at+8 > len(b):
		return 0, fmt.Errorf("%w: message metadata of %d bytes is not a message", errClaim, len(meta))
	case at == 0:
		return 0, nil // absent: a message without a body
	}
	n := int64(binary.LittleEndian.Uint64(b[at:]))
	if n < 0 {
		return 0, fmt.Errorf("%w: a body of %d bytes", errClaim, n)
	}
	return n, nil
}

// fb reads a flatbuffer with every offset and length checked, for
// checkMetadata: Arrow's Go IPC reader sizes slices by the vector lengths
// of a message's metadata without checking them against its bytes.
type fb []byte

func (b fb) u32(at int) (int, bool) {
	if at < 0 || at+4 > len(b) {
		return 0, false
	}
	return int(binary.LittleEndian.Uint32(b[at:])), true
}

// field returns where field i of the table at t lies, or 0 if absent.
func (b fb) field(t, i int) (int, bool) {
	soff, ok := b.u32(t)
	if !ok {
		return 0, false
	}
	vt := t - int(int32(soff))
	if vt < 0 || vt+4 > len(b) {
		return 0, false
	}
	vlen := int(binary.LittleEndian.Uint16(b[vt:]))
	slot := 4 + 2*i
	if slot+2 > vlen {
		return 0, true
	}
	if vt+slot+2 > len(b) {
		return 0, false
	}
	off := int(binary.LittleEndian.Uint16(b[vt+slot:]))
	if off == 0 {
		return 0, true
	}
	return t + off, t+off < len(b)
}

// ref follows the offset stored at at (to a table, vector or string).
func (b fb) ref(at int) (int, bool) {
	off, ok := b.u32(at)
	return at + off, ok && at+off < len(b)
}

// vector checks the vector that field i of table t refers to, whose
// elements take size bytes, and returns where its elements start and how
// many there are (0 if absent).
func (b fb) vector(t, i, size int) (start, n int, ok bool) {
	at, ok := b.field(t, i)
	if !ok || at == 0 {
		return 0, 0, ok
	}
	v, ok := b.ref(at)
	if !ok {
		return 0, 0, false
	}
	n, ok = b.u32(v)
	if !ok || n > (len(b)-v-4)/size {
		return 0, 0, false
	}
	return v + 4, n, true
}

// tables checks each table of the vector of tables in field i of t with
// check.
func (b fb) tables(t, i int, check func(t int) bool) bool {
	start, n, ok := b.vector(t, i, 4)
	for k := 0; ok && k < n; k++ {
		var e int
		if e, ok = b.ref(start + 4*k); ok {
			ok = check(e)
		}
	}
	return ok
}

// header returns a message's header type (1 schema, 2 dictionary batch, 3
// record batch; 0 without a header) and where its table lies; ok is false
// when the bytes do not hold them.
func (b fb) header() (kind byte, h int, ok bool) {
	root, ok := b.u32(0)
	if !ok {
		return 0, 0, false
	}
	htype, ok1 := b.field(root, 1)
	header, ok2 := b.field(root, 2)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	if htype == 0 || header == 0 {
		return 0, 0, true
	}
	h, ok = b.ref(header)
	return b[htype], h, ok
}

// recordBatch returns the record batch of a record batch header, or of a
// dictionary batch's data; 0 for another kind, or a dictionary batch
// without data. found is false when the bytes do not hold it.
func (b fb) recordBatch(kind byte, h int) (rb int, found bool) {
	switch kind {
	case 2: // DictionaryBatch: its data is a record batch
		at, ok := b.field(h, 1)
		if !ok || at == 0 {
			return 0, ok
		}
		return b.ref(at)
	case 3: // RecordBatch
		return h, true
	}
	return 0, true
}

// bodyBuffers returns the non-empty buffers of an uncompressed record
// batch's (or dictionary batch's) body of n bytes, in order, as the IPC
// reader asks for them; nil for any other message, or buffers that lie
// outside the body or overlap.
func bodyBuffers(meta []byte, n int) []span {
	b := fb(meta)
	kind, h, ok := b.header()
	if !ok || kind < 2 {
		return nil
	}
	rb, ok := b.recordBatch(kind, h)
	if !ok || rb == 0 {
		return nil
	}
	if c, ok := b.field(rb, 3); !ok || c != 0 {
		return nil // compressed buffers are decompressed into new ones
	}
	start, count, ok := b.vector(rb, 2, 16)
	if !ok {
		return nil
	}
	var out []span
	end := 0
	for i := 0; i < count; i++ {
		at := start + 16*i
		off := int64(binary.LittleEndian.Uint64(b[at:]))
		l := int64(binary.LittleEndian.Uint64(b[at+8:]))
		if l == 0 {
			continue
		}
		if off < int64(end) || l < 0 || off > int64(n) || l > int64(n)-off {
			return nil
		}
		out = append(out, span{int(off), int(l)})
		end = int(off + l)
	}
	return out
}

// checkMetadata checks the vectors of a message's metadata that Arrow's
// reader sizes slices by: a schema's fields (and theirs, to a depth) and
// key-value metadata, and a record batch's nodes, buffers and counts.
func checkMetadata(meta []byte) error {
	b := fb(meta)
	bad := fmt.Errorf("%w: message metadata of %d bytes has a vector longer than itself", errClaim, len(meta))
	kind, h, ok := b.header()
	if !ok {
		return bad
	}
	if kind == 0 {
		return nil // no header: nothing to size
	}
	keyValues := func(t, i int) bool { return b.tables(t, i, func(int) bool { return true }) }
	var field func(t, depth int) bool
	field = func(t, depth int) bool {
		return depth < 64 && b.tables(t, 5, func(c int) bool { return field(c, depth+1) }) && keyValues(t, 6)
	}
	recordBatch := func(t int) bool {
		_, _, ok1 := b.vector(t, 1, 16) // nodes
		_, _, ok2 := b.vector(t, 2, 16) // buffers
		_, _, ok3 := b.vector(t, 4, 8)  // variadic buffer counts
		return ok1 && ok2 && ok3
	}
	if kind == 1 { // Schema
		ok = b.tables(h, 1, func(t int) bool { return field(t, 0) }) && keyValues(h, 2)
	} else if rb, found := b.recordBatch(kind, h); !found {
		ok = false
	} else if rb != 0 {
		ok = recordBatch(rb)
	}
	if !ok {
		return bad
	}
	return nil
}
