//go:build !linux

package sse

import "net"

// tcpSendState tells nothing on this system: the idle timer then runs
// from the request's last byte written.
func tcpSendState(net.Conn) (sendState, bool) { return sendState{}, false }
