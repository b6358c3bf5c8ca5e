package array

import (
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"unsafe"

	"github.com/duskdata/dusk/internal/codec"
)

// DType is the element type of an array.
type DType uint8

const (
	Float64 DType = iota + 1
	Int64
)

func (d DType) String() string {
	switch d {
	case Float64:
		return "float64"
	case Int64:
		return "int64"
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Dense is an array held in memory, row-major: a computed array, and the
// value of each chunk task. Exactly one of F (Float64) and I (Int64) holds
// the data. Whoever receives a Dense owns it; tasks never modify their inputs.
type Dense struct {
	Shape []int
	DType DType
	F     []float64
	I     []int64
}

func newDense(dt DType, shape []int) *Dense {
	d := &Dense{Shape: append([]int{}, shape...), DType: dt}
	n := prod(shape)
	if dt == Int64 {
		d.I = make([]int64, n)
	} else {
		d.F = make([]float64, n)
	}
	return d
}

// Len is the number of elements.
func (d *Dense) Len() int { return prod(d.Shape) }

// SizeBytes is the memory the data holds (worker memory accounting).
func (d *Dense) SizeBytes() int64 { return int64(8*(len(d.F)+len(d.I)) + 8*len(d.Shape) + 64) }

// Float64s returns the data as float64s: F itself, or a converted copy of I.
func (d *Dense) Float64s() []float64 {
	if d.DType == Float64 {
		return d.F
	}
	out := make([]float64, len(d.I))
	for i, v := range d.I {
		out[i] = float64(v)
	}
	return out
}

// Float returns element i (row-major) as a float64; a 0-d result's value is
// Float(0).
func (d *Dense) Float(i int) float64 {
	if d.DType == Int64 {
		return float64(d.I[i])
	}
	return d.F[i]
}

// At returns the element at the index, one value per axis, as a float64.
func (d *Dense) At(idx ...int) float64 {
	if len(idx) != len(d.Shape) {
		panic(fmt.Sprintf("array: At with %d indices on a %d-d array", len(idx), len(d.Shape)))
	}
	off := 0
	for a, i := range idx {
		off = off*d.Shape[a] + i
	}
	return d.Float(off)
}

func prod(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// denseCodec writes a Dense as its dtype, shape and raw little-endian data.
type denseCodec struct{}

func (denseCodec) Name() string { return "array-dense" }

func (denseCodec) Encode(w io.Writer, v any) error {
	d := v.(*Dense)
	hdr := make([]byte, 0, 2+8*(1+len(d.Shape)))
	hdr = append(hdr, 'D', byte(d.DType))
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(d.Shape)))
	for _, s := range d.Shape {
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(s))
	}
	if _, err := w.Write(hdr); err != nil {
		return fmt.Errorf("encode array chunk: %w", err)
	}
	if err := writeData(w, d.F, d.I); err != nil {
		return fmt.Errorf("encode array chunk: %w", err)
	}
	return nil
}

func (denseCodec) Decode(r io.Reader) (any, error) {
	var hdr [10]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("decode array chunk: %w", err)
	}
	if hdr[0] != 'D' {
		return nil, fmt.Errorf("decode array chunk: bad header")
	}
	nd := binary.LittleEndian.Uint64(hdr[2:])
	if nd > 64 {
		return nil, fmt.Errorf("decode array chunk: %d dimensions", nd)
	}
	shape := make([]int, nd)
	var b [8]byte
	for i := range shape {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("decode array chunk: %w", err)
		}
		shape[i] = int(binary.LittleEndian.Uint64(b[:]))
	}
	d := newDense(DType(hdr[1]), shape)
	if err := readData(r, d.F, d.I); err != nil {
		return nil, fmt.Errorf("decode array chunk: %w", err)
	}
	return d, nil
}

// littleEndian is whether this machine stores numbers as the wire does, so
// data moves as its own bytes.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func writeData(w io.Writer, f []float64, i []int64) error {
	if !littleEndian {
		if f != nil {
			return binary.Write(w, binary.LittleEndian, f)
		}
		return binary.Write(w, binary.LittleEndian, i)
	}
	var raw []byte
	if len(f) > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), 8*len(f))
	} else if len(i) > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&i[0])), 8*len(i))
	}
	_, err := w.Write(raw)
	return err
}

func readData(r io.Reader, f []float64, i []int64) error {
	if !littleEndian {
		if f != nil {
			return binary.Read(r, binary.LittleEndian, f)
		}
		return binary.Read(r, binary.LittleEndian, i)
	}
	var raw []byte
	if len(f) > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), 8*len(f))
	} else if len(i) > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&i[0])), 8*len(i))
	}
	_, err := io.ReadFull(r, raw)
	return err
}

// writeSlice and readSlice frame a slice with its length.
func writeSlice(w io.Writer, f []float64, i []int64) error {
	var n [9]byte
	if f != nil {
		n[0] = 1
		binary.LittleEndian.PutUint64(n[1:], uint64(len(f)))
	} else if i != nil {
		n[0] = 2
		binary.LittleEndian.PutUint64(n[1:], uint64(len(i)))
	}
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	return writeData(w, f, i)
}

func readSlice(r io.Reader) ([]float64, []int64, error) {
	var n [9]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, nil, err
	}
	l := binary.LittleEndian.Uint64(n[1:])
	if l > 1<<40 {
		return nil, nil, fmt.Errorf("slice of %d elements", l)
	}
	switch n[0] {
	case 1:
		f := make([]float64, l)
		return f, nil, readData(r, f, nil)
	case 2:
		i := make([]int64, l)
		return nil, i, readData(r, nil, i)
	}
	return nil, nil, nil
}

func init() {
	codec.Register(reflect.TypeFor[*Dense](), denseCodec{})
	codec.Register(reflect.TypeFor[*partial](), partialCodec{})
}
