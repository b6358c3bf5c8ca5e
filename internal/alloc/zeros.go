package alloc

import (
	"sync"
	"unsafe"
)

// Zeros returns n zero values that no one may write: a column of a
// constant 0 (Frame.Agg's hidden key of every row) and the group ids of a
// single group share them instead of clearing memory of their own (60M
// rows of int64 zeros are 480 MB cleared). Where the system allows, they
// are a read-only mapping of the zero page: a write is a fault, not a
// silent change to every other holder, and reading them takes no memory.
func Zeros[T Plain](n int) []T {
	if n == 0 {
		return nil
	}
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	b := zeroBytes(size)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// AreZeros reports whether s lies in a run Zeros returned: every value 0
// and never written, so that a kernel may take group ids of one group as
// that without looking at them.
func AreZeros[T Plain](s []T) bool {
	if len(s) == 0 {
		return false
	}
	zeroRun.Lock()
	b := zeroRun.b
	zeroRun.Unlock()
	var zero T
	start, end := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))+uintptr(len(b))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	return len(b) > 0 && p >= start && p+uintptr(len(s))*unsafe.Sizeof(zero) <= end
}

// maxZeros is the most zero bytes kept mapped; a longer run is mapped (or
// allocated) for its caller alone.
const maxZeros = 1 << 30

var zeroRun struct {
	sync.Mutex
	b []byte
}

// zeroBytes returns size zero bytes, from the shared run where it is long
// enough, else a new one, kept where at most maxZeros.
func zeroBytes(size int) []byte {
	zeroRun.Lock()
	defer zeroRun.Unlock()
	if len(zeroRun.b) >= size {
		return zeroRun.b[:size:size]
	}
	want := max(size, 64<<20, 2*len(zeroRun.b))
	if want > maxZeros {
		want = size
	}
	b := readOnlyZeros(want)
	if want <= maxZeros {
		zeroRun.b = b
	}
	return b[:size:size]
}
