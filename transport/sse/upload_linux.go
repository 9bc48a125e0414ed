package sse

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// tcpSendState reads a TCP connection's send state from the kernel: the
// bytes not yet sent, the bytes the peer acknowledged and the window it
// advertises (which opens as the server reads what its kernel buffered).
func tcpSendState(c net.Conn) (sendState, bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return sendState{}, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return sendState{}, false
	}
	var (
		info *unix.TCPInfo
		ierr error
	)
	if err := raw.Control(func(fd uintptr) { info, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) }); err != nil || ierr != nil {
		return sendState{}, false
	}
	return sendState{unsent: uint64(info.Notsent_bytes), progress: [2]uint64{info.Bytes_acked, uint64(info.Snd_wnd)}}, true
}
