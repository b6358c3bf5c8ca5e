// Package alloc allocates memory that is about to be written over whole.
//
// Must never import: anything outside the standard library; it sits
// beneath every package that decodes.
package alloc

import (
	"strings"
	"unsafe"
)

// NoZero allocates n bytes on the Go heap without clearing them, for a
// buffer about to be written over whole (a body read from a socket, a
// column decoded): clearing a fresh gigabyte costs as much as reading it
// from a socket. strings.Builder.Grow is the standard library's one way to
// such an allocation. The bytes are garbage until written.
func NoZero(n int) []byte {
	if n == 0 {
		return nil
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	s := sb.String()
	return unsafe.Slice(unsafe.StringData(s), n)
}

// Plain are the types without pointers that columns hold: numbers, and
// 16-byte values (decimals) as two words.
type Plain interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64 | ~[2]uint64
}

// NoZeroOf allocates n values of a type without pointers, uncleared, as
// NoZero does; the buffer is 8-byte aligned.
func NoZeroOf[T Plain](n int) []T {
	if n == 0 {
		return nil
	}
	var zero T
	b := NoZero(n * int(unsafe.Sizeof(zero)))
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
