package sse

import (
	"net"
	"net/http/httptrace"
	"time"

	"github.com/agentcli/agent/transport/internal/liveness"
)

// sendState is what the kernel (or the connection) knows of the request's
// bytes leaving: unsent counts the bytes still waiting to go (the request
// is not sent yet); a change of progress between two looks (bytes
// acknowledged, the window the peer advertises as its server reads)
// means the peer is still taking them.
type sendState struct {
	unsent   uint64
	progress [2]uint64
}

// unreadCounter is a connection that counts the bytes written to it that
// its peer has not read (responsestest's in-memory pipes).
type unreadCounter interface{ Unread() int }

// probeSend reads c's sendState; ok is false when c tells nothing (a
// connection of no known kind, or a system without the probe).
func probeSend(c net.Conn) (sendState, bool) {
	for {
		switch v := c.(type) {
		case unreadCounter:
			return sendState{unsent: uint64(v.Unread())}, true
		case interface{ NetConn() net.Conn }: // TLS
			c = v.NetConn()
			continue
		}
		return tcpSendState(c)
	}
}

// uploadWatch keeps the idle timer from running while the request is
// still being sent: writing the body ends as soon as the kernel has
// buffered it, and a server that reads a 127 KB prompt at 10 KB/s takes
// seconds more to take it, which are not an idle stream. Until the
// response's headers arrive it looks at the connection's send state every
// tick: bytes still waiting to leave, or a change in what the peer took,
// count as activity. The idle timer therefore starts when the request has
// been sent; the progress timer still bounds a peer that never takes it.
type uploadWatch struct {
	conns   chan net.Conn
	headers chan struct{}
	done    chan struct{}
}

// watchUpload starts an uploadWatch for w, ticking every tick, and
// returns it with the trace that feeds it the request's connection.
func watchUpload(w *liveness.Watchdog, tick time.Duration) (*uploadWatch, *httptrace.ClientTrace) {
	u := &uploadWatch{conns: make(chan net.Conn, 1), headers: make(chan struct{}), done: make(chan struct{})}
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		select {
		case u.conns <- info.Conn:
		default: // a later connection of the same request: the last one counts
			select {
			case <-u.conns:
			default:
			}
			u.conns <- info.Conn
		}
	}}
	go u.run(w, tick)
	return u, trace
}

func (u *uploadWatch) run(w *liveness.Watchdog, tick time.Duration) {
	defer close(u.done)
	var (
		conn net.Conn
		last sendState
		seen bool
	)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-u.headers:
			return
		case conn = <-u.conns:
			seen = false
			continue
		case <-t.C:
		}
		if conn == nil {
			continue
		}
		st, ok := probeSend(conn)
		if !ok {
			continue
		}
		if st.unsent > 0 || seen && st.progress != last.progress {
			w.Active()
		}
		last, seen = st, true
	}
}

// stop ends the watch (the headers arrived, or the request failed) and
// waits for it.
func (u *uploadWatch) stop() {
	close(u.headers)
	<-u.done
}

// uploadTick is how often an uploadWatch looks: an eighth of the idle
// timeout, between 10 ms and 1 s.
func uploadTick(idle time.Duration) time.Duration {
	return min(max(idle/8, 10*time.Millisecond), time.Second)
}
