package responsestest

import (
	"bytes"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// newPipe returns the two ends of an in-memory, full-duplex connection.
//
// Unlike net.Pipe, writes never block: they append to the peer's unbounded
// buffer, as a socket's kernel buffer would absorb a small stream. With a
// synchronous net.Pipe every server write would wait for the client to
// read it, so a test that waits for [Server.Reached] before reading the
// body would deadlock over PipeClient but not over loopback. Readers block
// only on channels, which synctest counts as durably blocking.
func newPipe() (a, b *pipeConn) {
	ab, ba := newHalf(), newHalf()
	return &pipeConn{in: ba, out: ab}, &pipeConn{in: ab, out: ba}
}

// pipeConn is one end of a connection from newPipe. It reads from in and
// writes to out, which is the peer's in.
type pipeConn struct {
	in, out *half

	mu            sync.Mutex
	writeDeadline time.Time
}

// half is the data flowing in one direction of a pipeConn.
type half struct {
	ready chan struct{} // capacity 1: "re-check the state"

	mu      sync.Mutex
	buf     bytes.Buffer
	readErr error // returned once buf is drained (io.EOF, net.ErrClosed)
	// writeErr is returned to writers once the reading end closed.
	writeErr error
	// expired is closed when the read deadline passes; it is replaced,
	// never reopened, each time the deadline is set.
	expired chan struct{}
	timer   *time.Timer
}

func newHalf() *half {
	return &half{ready: make(chan struct{}, 1), expired: make(chan struct{})}
}

// kick wakes a blocked reader so it re-checks the state.
func (h *half) kick() {
	select {
	case h.ready <- struct{}{}:
	default:
	}
}

func (h *half) read(b []byte) (int, error) {
	for {
		h.mu.Lock()
		expired := h.expired
		select {
		case <-expired:
			h.mu.Unlock()
			return 0, os.ErrDeadlineExceeded
		default:
		}
		if h.buf.Len() > 0 {
			n, _ := h.buf.Read(b)
			more := h.buf.Len() > 0
			h.mu.Unlock()
			if more {
				h.kick() // another reader may be waiting
			}
			return n, nil
		}
		if err := h.readErr; err != nil {
			h.mu.Unlock()
			h.kick()
			return 0, err
		}
		h.mu.Unlock()
		select {
		case <-h.ready:
		case <-expired:
		}
	}
}

func (h *half) write(b []byte) (int, error) {
	h.mu.Lock()
	if err := h.writeErr; err != nil {
		h.mu.Unlock()
		return 0, err
	}
	n, _ := h.buf.Write(b)
	h.mu.Unlock()
	h.kick()
	return n, nil
}

// setReadDeadline arms a new expiry channel for t; a zero t means none.
func (h *half) setReadDeadline(t time.Time) {
	h.mu.Lock()
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
	ch := make(chan struct{})
	h.expired = ch
	switch d := time.Until(t); {
	case t.IsZero():
	case d <= 0:
		close(ch)
	default:
		h.timer = time.AfterFunc(d, func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.expired == ch { // not superseded by a later deadline
				close(ch)
			}
		})
	}
	h.mu.Unlock()
	h.kick() // a blocked reader must pick up the new channel
}

// Read implements net.Conn.
func (c *pipeConn) Read(b []byte) (int, error) {
	return c.in.read(b)
}

// Write implements net.Conn. It never blocks.
func (c *pipeConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	dl := c.writeDeadline
	c.mu.Unlock()
	if !dl.IsZero() && !time.Now().Before(dl) {
		return 0, os.ErrDeadlineExceeded
	}
	return c.out.write(b)
}

// Unread is how many bytes written to this end the peer has not read
// yet: what a socket's send queue and the peer's receive buffer would
// hold. A client's probe of a slow upload reads it (on a real socket it
// reads the kernel's TCP state).
func (c *pipeConn) Unread() int {
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	return c.out.buf.Len()
}

// Close implements net.Conn: local reads and writes fail with
// net.ErrClosed, the peer reads what was already written and then io.EOF,
// and the peer's writes fail with io.ErrClosedPipe.
func (c *pipeConn) Close() error {
	c.in.mu.Lock()
	c.in.buf.Reset()
	c.in.readErr = net.ErrClosed
	c.in.writeErr = io.ErrClosedPipe
	if c.in.timer != nil {
		c.in.timer.Stop()
		c.in.timer = nil
	}
	c.in.mu.Unlock()
	c.in.kick()

	c.out.mu.Lock()
	if c.out.readErr == nil {
		c.out.readErr = io.EOF
	}
	c.out.writeErr = net.ErrClosed
	c.out.mu.Unlock()
	c.out.kick()
	return nil
}

// LocalAddr implements net.Conn.
func (c *pipeConn) LocalAddr() net.Addr { return pipeAddr{} }

// RemoteAddr implements net.Conn.
func (c *pipeConn) RemoteAddr() net.Addr { return pipeAddr{} }

// SetDeadline implements net.Conn.
func (c *pipeConn) SetDeadline(t time.Time) error {
	_ = c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

// SetReadDeadline implements net.Conn; it also wakes a blocked Read.
func (c *pipeConn) SetReadDeadline(t time.Time) error {
	c.in.setReadDeadline(t)
	return nil
}

// SetWriteDeadline implements net.Conn. Writes never block, so only a
// deadline already in the past has an effect.
func (c *pipeConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeDeadline = t
	return nil
}
