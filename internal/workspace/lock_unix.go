//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// locksHeld says that a lock lives as long as its process.
const locksHeld = true

// lock takes f's exclusive lock without waiting; the kernel lets it go
// when the process ends, however it ends.
func lock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
