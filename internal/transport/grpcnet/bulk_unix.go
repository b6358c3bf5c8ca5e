//go:build unix

package grpcnet

import (
	"net"
	"syscall"
)

// open reports whether an idle connection is still open at the other end:
// a peek that does not wait finds nothing to read on it, where one the
// peer closed (it went away, or restarted) finds its end or a reset.
func open(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	live := true
	var b [1]byte
	rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		live = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true
	})
	return live
}
