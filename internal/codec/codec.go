// Package codec turns task results into bytes and back, for the transfers
// between processes (and, later, spilling): Arrow records as compressed
// Arrow IPC streams, and every other type by a codec registered for it.
//
// Must never import: scheduler, worker, internal/cluster, a transport, or the
// collections.
package codec

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
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

// For returns the codec of v's type.
func For(v any) (Codec, error) {
	if _, ok := v.(arrow.Record); ok {
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
	if name == Arrow.Name() {
		return Arrow, nil
	}
	mu.RLock()
	c, ok := byName[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("no codec named %q in this binary", name)
	}
	return c, nil
}

// Arrow encodes Arrow records as an IPC stream whose buffers are compressed
// with zstd on all cores, or stored as they are when compression would save
// less than a tenth of their size.
var Arrow Codec = arrowCodec{}

type arrowCodec struct{}

func (arrowCodec) Name() string { return "arrow" }

func (arrowCodec) Encode(w io.Writer, v any) error {
	rec := v.(arrow.Record)
	iw := ipc.NewWriter(w, ipc.WithSchema(rec.Schema()), ipc.WithZstd(),
		ipc.WithCompressConcurrency(runtime.GOMAXPROCS(0)), ipc.WithMinSpaceSavings(0.1))
	if err := iw.Write(rec); err != nil {
		iw.Close()
		return fmt.Errorf("encode record: %w", err)
	}
	return iw.Close()
}

func (arrowCodec) Decode(r io.Reader) (any, error) {
	ir, err := ipc.NewReader(r, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, fmt.Errorf("decode record: %w", err)
	}
	defer ir.Release()
	if !ir.Next() {
		if err := ir.Err(); err != nil {
			return nil, fmt.Errorf("decode record: %w", err)
		}
		return nil, fmt.Errorf("decode record: the stream holds none")
	}
	rec := ir.Record()
	rec.Retain()
	for ir.Next() { // drain the end-of-stream marker
	}
	return rec, ir.Err()
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
}
