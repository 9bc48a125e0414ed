package ws

import (
	"context"
	"errors"
	"iter"
	"sync"

	"github.com/agentcli/agent/transport"
)

// Transport is the WebSocket [transport.Transport]: it keeps one
// connection, dialed on first use (with the request's URL and headers) and
// again after any failure, and carries one request at a time over it; Open
// waits while another stream is in progress, or until its ctx ends. A
// request that names a PreviousResponseID is sent as its Incremental form
// when that response was the last one completed on the current
// connection, else in full. Close never waits for a stream.
type Transport struct {
	opts Options

	sem chan struct{} // one stream at a time: held from Open until the stream's Close

	mu     sync.Mutex // guards the fields below, never held across I/O
	conn   *Conn
	lastID string // the response last completed on conn
	closes int    // Close calls so far: a dial that raced one is dropped
}

var _ transport.Transport = (*Transport)(nil)

// NewTransport returns a Transport dialing with opts (nil: defaults).
func NewTransport(opts *Options) *Transport {
	t := &Transport{sem: make(chan struct{}, 1)}
	if opts != nil {
		t.opts = *opts
	}
	return t
}

// errClosed is an Open that raced a Close: the connection it dialed was
// closed with the transport.
var errClosed = errors.New("websocket transport closed")

// Open sends req over the connection, dialing one when there is none or it
// broke. A handshake failure is a [*transport.HandshakeError]. While
// another stream is in progress Open waits for it, and returns ctx's cause
// if ctx ends first.
func (t *Transport) Open(ctx context.Context, req *transport.Request) (transport.Stream, error) {
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	conn, err := t.connect(ctx, req)
	if err != nil {
		<-t.sem
		return nil, err
	}
	t.mu.Lock()
	body := req.Payload()
	if req.PreviousResponseID != "" && req.PreviousResponseID == t.lastID && req.Incremental != nil {
		body = [][]byte{req.Incremental}
	}
	t.lastID = ""
	t.mu.Unlock()
	st, err := conn.OpenParts(ctx, body)
	if err != nil {
		<-t.sem
		return nil, err
	}
	return &chainStream{Stream: st, t: t, conn: conn}, nil
}

// connect returns the connection to use, dialing one (without holding
// the lock, so Close does not wait for a handshake) when there is none or
// it broke.
func (t *Transport) connect(ctx context.Context, req *transport.Request) (*Conn, error) {
	t.mu.Lock()
	if t.conn != nil && t.conn.Broken() {
		_ = t.conn.Close()
		t.conn, t.lastID = nil, ""
	}
	conn, closes := t.conn, t.closes
	t.mu.Unlock()
	if conn != nil {
		return conn, nil
	}
	conn, err := Dial(ctx, req.URL, req.Header, &t.opts)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closes != closes { // closed while dialing: nothing may outlive it
		_ = conn.Close()
		return nil, &transport.ReadError{Err: errClosed}
	}
	t.conn = conn
	return conn, nil
}

// Close closes the connection, if any; the next Open dials again. It does
// not wait for a stream in progress: that stream fails, its connection
// gone.
func (t *Transport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil {
		_ = t.conn.Close()
	}
	t.conn, t.lastID = nil, ""
	t.closes++
	return nil
}

// chainStream remembers the response it completed and releases the
// transport when closed.
type chainStream struct {
	transport.Stream
	t         *Transport
	conn      *Conn
	completed string
	released  bool
}

func (s *chainStream) Events() iter.Seq[transport.Event] {
	return func(yield func(transport.Event) bool) {
		for ev := range s.Stream.Events() {
			if c, ok := ev.(transport.Completed); ok {
				s.completed = c.ResponseID
			}
			if !yield(ev) {
				return
			}
		}
	}
}

func (s *chainStream) Close() error {
	err := s.Stream.Close()
	if !s.released {
		s.released = true
		s.t.mu.Lock()
		if s.t.conn == s.conn { // not closed meanwhile
			s.t.lastID = s.completed
		}
		s.t.mu.Unlock()
		<-s.t.sem
	}
	return err
}
