//go:build linux || darwin || freebsd

package alloc

import "syscall"

// readOnlyZeros maps size bytes of the zero page, read-only; where the
// mapping fails, a cleared slice of the heap.
func readOnlyZeros(size int) []byte {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, size)
	}
	return b
}
