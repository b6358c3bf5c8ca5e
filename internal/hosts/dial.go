//go:build linux

package hosts

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// The main goroutine keeps the main thread: a thread that Dial moves into a
// host's namespace ends with its goroutine, but the main thread cannot
// end, and one moved there would leave the whole process counted in that
// namespace (where the bed's clean-up kills what it finds).
func init() { runtime.LockOSThread() }

// Dial connects to addr from inside the host, for a test's own requests
// to the bed's processes (their pages and metrics): the socket is made on
// a thread moved into the host's namespace, and that thread ends with the
// dial, namespace and all.
func (h *Host) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with this goroutine
		f, err := os.Open("/var/run/netns/" + h.ns)
		if err != nil {
			done <- result{nil, err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{nil, fmt.Errorf("hosts: enter %s: %w", h.Name, err)}
			return
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		done <- result{c, err}
	}()
	r := <-done
	return r.c, r.err
}

// HTTP is a client whose requests leave from the host.
func (h *Host) HTTP() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: h.Dial, DisableKeepAlives: true}}
}
