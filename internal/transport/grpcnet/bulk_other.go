//go:build !unix

package grpcnet

import "net"

// open cannot look at an idle connection here without reading from it:
// one the peer closed fails its next transfer.
func open(net.Conn) bool { return true }
