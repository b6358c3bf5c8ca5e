// Package codec turns task results into bytes and back, for the transfers
// between processes (and, later, spilling): Arrow records as LZ4-compressed
// Arrow IPC streams, and every other type by a codec registered for it.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, a transport, or the
// collections.
package codec

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"runtime"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/pierrec/lz4/v4"
)

// Codec writes values of one type and reads them back.
type Codec interface {
	// Name identifies the codec on the wire.
	Name() string
	Encode(w io.Writer, v any) error
	// Decode reads one value; the caller owns it.
	Decode(r io.Reader) (any, error)
}

var (
	mu     sync.RWMutex
	byName = map[string]Codec{}
	byType = map[reflect.Type]Codec{}
)

// Register makes c the codec of values of type t. A second codec for the
// same type is ignored (the first stays); two codecs of one name panic.
func Register(t reflect.Type, c Codec) {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := byType[t]; ok {
		return
	}
	if old, ok := byName[c.Name()]; ok && old != c {
		panic(fmt.Sprintf("codec: two codecs named %q", c.Name()))
	}
	byName[c.Name()] = c
	byType[t] = c
}

// Lazy is a value that stands for an Arrow record it can make, such as
// rows not yet copied out of a record: it travels and spills as that
// record, and reads back as one.
type Lazy interface {
	// Record makes the record, which the caller releases.
	Record() arrow.Record
}

// For returns the codec of v's type.
func For(v any) (Codec, error) {
	switch v.(type) {
	case arrow.Record, Lazy:
		return Arrow, nil
	}
	mu.RLock()
	c, ok := byType[reflect.TypeOf(v)]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("no codec for values of type %T: results that leave a worker need one; "+
			"functions registered with dusk.Register get one for their result type", v)
	}
	return c, nil
}

// Named returns the codec called name.
func Named(name string) (Codec, error) {
	switch name {
	case Arrow.Name():
		return Arrow, nil
	case ArrowPlain.Name():
		return ArrowPlain, nil
	}
	mu.RLock()
	c, ok := byName[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("no codec named %q in this binary", name)
	}
	return c, nil
}

// Arrow encodes Arrow records as an Arrow IPC stream inside an LZ4 frame,
// compressed in blocks on all cores. LZ4 keeps up with a network or a disk
// where zstd on this kind of machine would not (about 1 GB/s against
// 150-300 MB/s), and a block that does not shrink is stored as it is.
var Arrow Codec = arrowCodec{compress: true}

// ArrowPlain encodes Arrow records as an uncompressed Arrow IPC stream: for
// moves where compressing would cost more time than it saves (between
// processes on one machine).
var ArrowPlain Codec = arrowCodec{}

// ArrowWhole encodes Arrow records as an uncompressed Arrow IPC stream of a
// single batch, which reads back without a copy: for readers that take
// the stream in small pieces anyway (spill files). It decodes as ArrowPlain.
var ArrowWhole Codec = arrowCodec{whole: true}

type arrowCodec struct{ compress, whole bool }

func (c arrowCodec) Name() string {
	if c.compress {
		return "arrow-lz4"
	}
	return "arrow"
}

func (c arrowCodec) Encode(w io.Writer, v any) error {
	rec, ok := v.(arrow.Record)
	if !ok {
		rec = v.(Lazy).Record()
		defer rec.Release()
	}
	if c.compress {
		zw := lz4.NewWriter(w)
		if err := zw.Apply(lz4.ConcurrencyOption(runtime.GOMAXPROCS(0)), lz4.BlockSizeOption(lz4.Block4Mb),
			lz4.ChecksumOption(false)); err != nil {
			return fmt.Errorf("encode record: %w", err)
		}
		if err := writeIPC(zw, rec, batchRows(rec)); err != nil {
			return err
		}
		return zw.Close()
	}
	step := batchRows(rec)
	if c.whole {
		step = max(rec.NumRows(), 1)
	}
	return writeIPC(w, rec, step)
}

// writeIPC writes rec as an IPC stream of batches of step rows.
func writeIPC(w io.Writer, rec arrow.Record, step int64) error {
	iw := ipc.NewWriter(w, ipc.WithSchema(rec.Schema()))
	for off := int64(0); off < rec.NumRows() || off == 0; off += step {
		batch := rec.NewSlice(off, min(off+step, rec.NumRows()))
		err := iw.Write(batch)
		batch.Release()
		if err != nil {
			iw.Close()
			return fmt.Errorf("encode record: %w", err)
		}
	}
	if err := iw.Close(); err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	return nil
}

func (c arrowCodec) Decode(r io.Reader) (v any, err error) {
	// A stream whose every byte was checked against a checksum (a spill
	// file's blocks) holds what this codec wrote: its claims are true, and
	// a body of any size is read into one buffer of its size; a Believed
	// one's, up to what it says.
	g := &guardedStream{r: r}
	if b, ok := r.(Believed); ok {
		g.believe = b.Believe()
	}
	if _, ok := r.(Checksummed); ok {
		g.believe = math.MaxInt64
	}
	if c.compress {
		f := &fence{r: r}
		zr := lz4.NewReader(f)
		if err := zr.Apply(lz4.ConcurrencyOption(runtime.GOMAXPROCS(0))); err != nil {
			return nil, fmt.Errorf("decode record: %w", err)
		}
		defer func() {
			zr.Reset(nil) // abandons the read-ahead, which drains its blocks
			f.close()
		}()
		g = &guardedStream{r: zr} // what LZ4 inflates was checked by no one
	}
	defer func() {
		// The guard refuses a claim the stream does not bear out by
		// panicking in the IPC reader's allocation, and the IPC reader
		// panics on some damaged metadata: either is the stream's error.
		if p := recover(); p != nil {
			e, ok := p.(error)
			if !ok || !errors.Is(e, errClaim) {
				e = fmt.Errorf("%w: %v", errClaim, p)
			}
			v, err = nil, fmt.Errorf("decode record: %w", e)
		}
	}()
	ir, err := ipc.NewReader(g, ipc.WithAllocator(g))
	if err != nil {
		return nil, fmt.Errorf("decode record: %w", err)
	}
	defer ir.Release()
	var batches []arrow.Record
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for ir.Next() {
		b := ir.Record()
		for i, c := range b.Columns() {
			if int64(c.Len()) != b.NumRows() {
				return nil, fmt.Errorf("decode record: %w: a batch of %d rows has a column %s of %d values",
					errClaim, b.NumRows(), b.Schema().Field(i).Name, c.Len())
			}
		}
		b.Retain()
		batches = append(batches, b)
	}
	if err := ir.Err(); err != nil {
		return nil, fmt.Errorf("decode record: %w", err)
	}
	switch len(batches) {
	case 0:
		return nil, fmt.Errorf("decode record: the stream holds none")
	case 1:
		batches[0].Retain()
		return batches[0], nil
	}
	return concat(ir.Schema(), batches)
}

// fence passes reads to r until it is closed; close waits for a read in
// flight, and every read after it fails. pierrec/lz4's concurrent reader
// reads ahead on a goroutine of its own that outlives the Decode which
// started it: without the fence that goroutine went on reading the
// caller's stream (a bulk connection) while the caller read the next value
// from it, and each took the other's bytes.
type fence struct {
	mu     sync.Mutex
	r      io.Reader
	closed bool
}

var errFenced = errors.New("the value's decoder has returned")

func (f *fence) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return 0, errFenced
	}
	return f.r.Read(p)
}

func (f *fence) close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
}

// Checksummed marks a reader whose bytes were each checked against a
// checksum before it hands them out.
type Checksummed interface{ Checksummed() }

// batchBytes bounds the batches a record is written in. Small batches keep
// every copy on the way short: a copy of a gigabyte in one go cannot be
// preempted, and holds up the garbage collector and every goroutine with it.
const batchBytes = 16 << 20

// batchRows is how many rows of rec fit in batchBytes; it bounds the
// batches a record is written in.
func batchRows(rec arrow.Record) int64 {
	var size int64
	for _, c := range rec.Columns() {
		for _, b := range c.Data().Buffers() {
			if b != nil {
				size += int64(b.Len())
			}
		}
	}
	if size <= batchBytes || rec.NumRows() == 0 {
		return max(rec.NumRows(), 1)
	}
	return max(1, rec.NumRows()*batchBytes/size)
}

// concat joins batches into one record, column by column.
func concat(schema *arrow.Schema, batches []arrow.Record) (arrow.Record, error) {
	cols := make([]arrow.Array, schema.NumFields())
	parts := make([]arrow.Array, len(batches))
	var rows int64
	for _, b := range batches {
		rows += b.NumRows()
	}
	for i := range cols {
		for j, b := range batches {
			parts[j] = b.Column(i)
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			for _, done := range cols[:i] {
				done.Release()
			}
			return nil, fmt.Errorf("decode record: join column %s: %w", schema.Field(i).Name, err)
		}
		cols[i] = c
	}
	rec := array.NewRecord(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// JSON is a codec for values of type T as JSON, named after the type.
func JSON[T any]() Codec {
	var zero T
	return jsonCodec[T]{name: "json:" + reflect.TypeOf(&zero).Elem().String()}
}

type jsonCodec[T any] struct{ name string }

func (c jsonCodec[T]) Name() string { return c.name }

func (jsonCodec[T]) Encode(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

func (jsonCodec[T]) Decode(r io.Reader) (any, error) {
	var v T
	if err := json.NewDecoder(r).Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// JSONValue is a value kept as its JSON, for a worker that does not know
// its type (a scattered value): the task or client that reads it decodes it.
type JSONValue []byte

type jsonValueCodec struct{}

func (jsonValueCodec) Name() string { return "json-value" }

func (jsonValueCodec) Encode(w io.Writer, v any) error {
	_, err := w.Write(v.(JSONValue))
	return err
}

func (jsonValueCodec) Decode(r io.Reader) (any, error) {
	b, err := io.ReadAll(r)
	return JSONValue(b), err
}

// Decode makes v, a T or the JSON of one, a T.
func Decode[T any](v any) (T, error) {
	switch x := v.(type) {
	case T:
		return x, nil
	case JSONValue:
		var out T
		err := json.Unmarshal(x, &out)
		return out, err
	}
	var zero T
	return zero, fmt.Errorf("a %T, not a %T", v, zero)
}

// int64Codec carries the counts dataframes compute (Len).
type int64Codec struct{}

func (int64Codec) Name() string { return "int64" }

func (int64Codec) Encode(w io.Writer, v any) error {
	return binary.Write(w, binary.LittleEndian, v.(int64))
}

func (int64Codec) Decode(r io.Reader) (any, error) {
	var v int64
	err := binary.Read(r, binary.LittleEndian, &v)
	return v, err
}

func init() {
	Register(reflect.TypeFor[int64](), int64Codec{})
	Register(reflect.TypeFor[JSONValue](), jsonValueCodec{})
}
