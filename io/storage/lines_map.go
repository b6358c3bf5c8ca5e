//go:build linux || darwin || freebsd

package storage

import (
	"os"
	"syscall"
)

// mapFile maps length bytes of f from offset, a multiple of the page size,
// read-only.
func mapFile(f *os.File, offset int64, length int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), offset, length, syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapFile(m []byte) error { return syscall.Munmap(m) }
