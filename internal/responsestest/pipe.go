package responsestest

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// PipeClient returns a new HTTP client whose connections are in-memory
// pipes served by [Server.Handler]; nothing touches the network. The
// request URL's host is ignored, so both [PipeURL] and the loopback URL
// work. The first call starts an in-memory http.Server owned by s; Close
// stops it and closes the client's idle connections. Calls after Close
// return a client whose requests fail with net.ErrClosed.
//
// PipeClient is what makes s usable inside a testing/synctest bubble: a
// goroutine blocked on an in-memory pipe (or on the server's channels) is
// durably blocked, a goroutine blocked on a real socket is not, so only
// with PipeClient does the bubble's fake clock advance while a handler
// stalls. For that, create s, call PipeClient and send requests all inside
// the bubble ([NewPipeServer] inside synctest.Test), so every goroutine
// and channel involved belongs to it.
//
// The client also carries WebSocket handshakes: pass it as
// websocket.DialOptions.HTTPClient, and after the 101 response the same
// pipe carries the connection's frames both ways.
//
// The pipes are not net.Pipe: writes are buffered (without limit) like a
// socket's, so a stream runs ahead of a slow reader exactly as it does
// over loopback, and [Barrier] means the same on both.
func (s *Server) PipeClient() *http.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pipeServer == nil && !s.closed {
		ps := &http.Server{Handler: s.Handler(), ConnState: s.connState}
		s.pipeServer = ps
		s.serving.Add(1)
		go func() {
			defer s.serving.Done()
			_ = ps.Serve(s.pipe) // returns once Close closes s.pipe
		}()
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return s.pipe.dial(ctx)
		},
	}
	s.transports = append(s.transports, tr)
	return &http.Client{Transport: tr}
}

// pipeListener is a net.Listener whose connections come from dial.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

// dial hands the server end of a new connection to Accept and returns
// the client end. It blocks until Accept takes it, ctx ends or the
// listener closes.
func (l *pipeListener) dial(ctx context.Context) (net.Conn, error) {
	srv, cli := newPipe()
	select {
	case l.conns <- srv:
		return cli, nil
	case <-ctx.Done():
		_ = srv.Close()
		_ = cli.Close()
		return nil, ctx.Err()
	case <-l.closed:
		_ = srv.Close()
		_ = cli.Close()
		return nil, &net.OpError{Op: "dial", Net: "pipe", Err: net.ErrClosed}
	}
}

// Accept implements net.Listener.
func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener; it is idempotent.
func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr implements net.Listener.
func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// pipeAddr is the address of every in-memory connection.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "responsestest.invalid" }
