package ws

import (
	"context"
	"iter"
	"sync"

	"github.com/agentcli/agent/transport"
)

// Transport is the WebSocket [transport.Transport]: it keeps one
// connection, dialed on first use (with the request's URL and headers) and
// again after any failure, and carries one request at a time over it; Open
// blocks while another stream is in progress. A request that names a
// PreviousResponseID is sent as its Incremental form when that response
// was the last one completed on the current connection, else in full.
type Transport struct {
	opts Options

	mu     sync.Mutex // held from Open until the stream's Close
	conn   *Conn
	lastID string // the response last completed on conn
}

var _ transport.Transport = (*Transport)(nil)

// NewTransport returns a Transport dialing with opts (nil: defaults).
func NewTransport(opts *Options) *Transport {
	t := &Transport{}
	if opts != nil {
		t.opts = *opts
	}
	return t
}

// Open sends req over the connection, dialing one when there is none or it
// broke. A handshake failure is a [*transport.HandshakeError].
func (t *Transport) Open(ctx context.Context, req *transport.Request) (transport.Stream, error) {
	t.mu.Lock()
	if t.conn != nil && t.conn.Broken() {
		_ = t.conn.Close()
		t.conn, t.lastID = nil, ""
	}
	if t.conn == nil {
		conn, err := Dial(ctx, req.URL, req.Header, &t.opts)
		if err != nil {
			t.mu.Unlock()
			return nil, err
		}
		t.conn = conn
	}
	body := req.Body
	if req.PreviousResponseID != "" && req.PreviousResponseID == t.lastID && req.Incremental != nil {
		body = req.Incremental
	}
	t.lastID = ""
	st, err := t.conn.Open(ctx, body)
	if err != nil {
		t.mu.Unlock()
		return nil, err
	}
	return &chainStream{Stream: st, t: t}, nil
}

// Close closes the connection, if any; the next Open dials again.
func (t *Transport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil {
		_ = t.conn.Close()
	}
	t.conn, t.lastID = nil, ""
	return nil
}

// chainStream remembers the response it completed and releases the
// transport when closed.
type chainStream struct {
	transport.Stream
	t         *Transport
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
		s.t.lastID = s.completed
		s.t.mu.Unlock()
	}
	return err
}
