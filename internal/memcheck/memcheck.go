// Package memcheck holds what handling one input allocates to the input's
// size and its result's: a fuzz target that checks it fails on a memory
// bomb (a reader allocating for a count its input claims), not only on a
// panic. Only tests import it.
//
// Must never import: anything of Dusk.
package memcheck

import (
	"runtime"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// Limit is what handling an input of n bytes whose result holds result
// bytes may allocate: 96 MiB of buffers a reader sizes once (an Arrow body
// not believed is allocated 64 MiB ahead of its bytes, codec.growStep), 64
// bytes an input byte (decompressing, parsing), and 8 bytes a result byte
// (the result and its copies on the way).
func Limit(n, result int64) uint64 {
	return uint64(96<<20 + 64*n + 8*result)
}

// Check runs handle, which handles input and returns the bytes its result
// holds, and fails t where it allocated more than Limit.
func Check(t testing.TB, input []byte, handle func() (result int64)) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	result := handle()
	runtime.ReadMemStats(&after)
	if got, most := after.TotalAlloc-before.TotalAlloc, Limit(int64(len(input)), result); got > most {
		t.Fatalf("allocated %d MiB for an input of %d bytes and a result of %d: more than %d MiB, a count taken on trust?",
			got>>20, len(input), result, most>>20)
	}
}

// RecordBytes is what rec's buffers hold; nil holds nothing.
func RecordBytes(rec arrow.Record) int64 {
	if rec == nil {
		return 0
	}
	var n int64
	for _, c := range rec.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataBytes(d.Dictionary())
	}
	return n
}
