package responsestest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gosse "github.com/tmaxmax/go-sse"
)

// PipeURL is the placeholder base URL of a [Server] that has no listener
// (see [New] and [NewPipeServer]). The .invalid domain never resolves, so
// only [Server.PipeClient] can reach it.
const PipeURL = "http://responsestest.invalid/v1"

// Options configures a [Server] made by [New]. The zero value is usable.
type Options struct {
	// OnUnexpected, if non-nil, is called with a description of each
	// request the script cannot answer: a POST or WebSocket response.create
	// beyond the end of the script ("unexpected request #N", N counting
	// attempts from 1), a request to a route other than POST or WebSocket
	// GET .../responses, a malformed WebSocket handshake, or a WebSocket
	// message that is not a response.create text message. It is called
	// from the handler goroutine, before the error is answered, so it must
	// be safe for concurrent use. [NewServer] wires it to
	// testing.TB.Errorf. Default: nil, the request only gets its error
	// answer (500, 404, or a WebSocket close with StatusInternalError).
	OnUnexpected func(msg string)
	// APIKey, if set, is the only bearer token GET .../models accepts;
	// others get 401. Default: any request gets the model list.
	APIKey string
	// ModelsStatus, if set, is what GET .../models answers instead (404 or
	// 405: a server that does not serve the model list).
	ModelsStatus int
	// Models are the model ids GET .../models lists. Default: test-model.
	Models []string
	// BodyRate, if positive, is how fast a POST's body is read, in bytes
	// per second (a tenth of it every 100 ms), before the attempt is
	// answered: a server slow to take a large request. Default: at once.
	BodyRate int
}

// readBody reads a request's body at Options.BodyRate.
func (s *Server) readBody(body io.Reader) ([]byte, error) {
	if s.opts.BodyRate <= 0 {
		return io.ReadAll(body)
	}
	chunk := max(s.opts.BodyRate/10, 1)
	var b []byte
	for {
		part, err := io.ReadAll(io.LimitReader(body, int64(chunk)))
		b = append(b, part...)
		if err != nil || len(part) < chunk {
			return b, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Request is a copy of one request the [Server] received: an SSE POST, a
// WebSocket handshake or one WebSocket message.
type Request struct {
	// Method is "POST" for an SSE request, "GET" for a WebSocket
	// handshake and "WS" for a message received on a WebSocket
	// connection.
	Method string
	Path   string // URL path, for example "/v1/responses"
	Query  url.Values
	// Header holds the request headers; for a "WS" message, those of the
	// handshake that opened its connection.
	Header http.Header
	// Body is the raw request body, or the message payload for "WS".
	Body []byte
	// JSON is Body decoded as a JSON object, or nil if it is not one.
	JSON map[string]any
	// Attempt is the index into the script of the Attempt that answered
	// (0-based). A request beyond the end of the script has
	// Attempt >= len(script) and got a 500 (SSE) or a close with
	// StatusInternalError (WebSocket). An accepted WebSocket handshake,
	// which consumes no attempt, has Attempt -1.
	Attempt int
	// Conn is 0 for SSE requests and refused handshakes; otherwise the
	// 1-based number of the WebSocket connection, in order of accepted
	// handshakes, so equal Conn values mean a reused connection.
	Conn int
}

// clone returns a deep copy of r with JSON decoded afresh from Body.
func (r Request) clone() Request {
	r.Query = cloneValues(r.Query)
	r.Header = r.Header.Clone()
	r.Body = slices.Clone(r.Body)
	r.JSON = decodeObject(r.Body)
	return r
}

// Server is a scripted fake Responses API server. Its methods are safe for
// concurrent use. Create it with [NewServer], [NewPipeServer] or [New];
// the caller must call [Server.Close] (the TB constructors register it
// with Cleanup).
type Server struct {
	// URL is the base URL without "/responses", ending in "/v1" (for
	// example "http://127.0.0.1:1234/v1") after [Server.Start], or
	// [PipeURL] for a server with no listener. Clients POST to, or open a
	// WebSocket on, URL + "/responses".
	URL string

	opts    Options
	release chan struct{} // closed by Release
	done    chan struct{} // closed by Close
	pipe    *pipeListener

	mu         sync.Mutex
	script     []Attempt
	next       int
	requests   []Request
	handshakes []Request
	models     []Request             // GET .../models
	conns      int                   // WebSocket connections numbered so far
	live       map[net.Conn]struct{} // hijacked WebSocket connections
	barriers   map[string]*barrier
	quorums    map[string]*quorum
	accepted   int // connections accepted, loopback or pipe
	released   bool
	closed     bool
	hs         *httptest.Server
	pipeServer *http.Server
	transports []*http.Transport
	inflight   sync.WaitGroup // running handlers, Add under mu
	serving    sync.WaitGroup // the pipe Serve goroutine

	closeOnce sync.Once
}

// barrier is the state behind one [Server.Reached] name.
type barrier struct {
	ch      chan struct{}
	reached bool
}

// New returns a server for script with no listener; its URL is [PipeURL].
// Serve it with [Server.Handler] on any listener (a standalone binary),
// reach it in memory with [Server.PipeClient], or call [Server.Start] for
// a loopback httptest server. The caller must call [Server.Close].
//
// Inside a testing/synctest bubble, call New (or [NewPipeServer]) inside
// the bubble: the server's channels then belong to the bubble, so its
// blocked handlers count as durably blocked.
func New(script Script, opts Options) *Server {
	return &Server{
		URL:      PipeURL,
		opts:     opts,
		release:  make(chan struct{}),
		done:     make(chan struct{}),
		pipe:     newPipeListener(),
		script:   slices.Clone(script),
		live:     make(map[net.Conn]struct{}),
		barriers: make(map[string]*barrier),
		quorums:  make(map[string]*quorum),
	}
}

// NewServer starts a loopback httptest server for script, like
// httptest.NewServer. Requests beyond the script fail tb with Errorf, and
// tb.Cleanup closes the server. Do not use it inside a synctest bubble
// (a real socket is never durably blocked); use [NewPipeServer] there.
func NewServer(tb testing.TB, script Script) *Server {
	tb.Helper()
	s := New(script, tbOptions(tb))
	s.Start()
	tb.Cleanup(s.Close)
	return s
}

// NewPipeServer is [NewServer] without a listener: its URL is [PipeURL]
// and it is reached through [Server.PipeClient] (or [Server.Client]). It
// is the constructor to call inside testing/synctest bubbles.
func NewPipeServer(tb testing.TB, script Script) *Server {
	tb.Helper()
	s := New(script, tbOptions(tb))
	tb.Cleanup(s.Close)
	return s
}

func tbOptions(tb testing.TB) Options {
	return Options{OnUnexpected: func(msg string) { tb.Errorf("%s", msg) }}
}

// Start serves s on a new loopback httptest server and sets URL to its
// address plus "/v1". It panics if s was started or closed already.
func (s *Server) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hs != nil || s.closed {
		panic("responsestest: Start called twice or after Close")
	}
	s.hs = httptest.NewUnstartedServer(s.Handler())
	s.hs.Config.ConnState = s.connState
	s.hs.Start()
	s.URL = s.hs.URL + "/v1"
}

// connState counts the connections the server accepts.
func (s *Server) connState(_ net.Conn, st http.ConnState) {
	if st == http.StateNew {
		s.mu.Lock()
		s.accepted++
		s.mu.Unlock()
	}
}

// Conns returns how many connections the server has accepted so far,
// over loopback or pipes: fewer than its requests means clients reused
// connections.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

// Client returns an HTTP client that reaches s: the httptest client after
// [Server.Start], otherwise a new [Server.PipeClient]. Close releases its
// idle connections.
func (s *Server) Client() *http.Client {
	s.mu.Lock()
	hs := s.hs
	s.mu.Unlock()
	if hs != nil {
		return hs.Client()
	}
	return s.PipeClient()
}

// Handler returns the http.Handler that serves the script. It answers
// POST requests and WebSocket handshakes (GET with "Upgrade: websocket")
// whose path ends in "/responses" or "/responses/compact" (any prefix, any
// query), and GET .../models (see [Options.APIKey]); other routes
// get 404 and are reported to [Options.OnUnexpected]. After Close it
// answers 503.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(s.serveHTTP)
}

// Requests returns copies of the requests that consumed an attempt so
// far, in the order they consumed it: SSE POSTs (Method "POST"),
// WebSocket handshakes answered by a non-stream attempt ("GET") and
// WebSocket response.create messages ("WS"). It includes those answered
// with an error and those beyond the end of the script. Requests to other
// routes, accepted handshakes and ignored WebSocket messages are not
// recorded here; see [Server.Handshakes].
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneRequests(s.requests)
}

// Handshakes returns copies of every WebSocket handshake received so far,
// in arrival order, each with Method "GET": accepted ones with Conn set
// to the new connection's number and Attempt -1, refused ones (answered
// by a non-stream attempt, or malformed) with Conn 0. A handshake that
// consumed an attempt also appears in [Server.Requests].
func (s *Server) Handshakes() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneRequests(s.handshakes)
}

// Release unblocks every [Stall] and [Hang], current and future: stalled
// streams continue with their next step and hung requests are dropped.
// Release is idempotent.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.released {
		s.released = true
		close(s.release)
	}
}

// Reached returns a channel that is closed the first time a stream reaches
// [Barrier](name). It is not closed by Close, so wait on it together with
// a context or the test's deadline.
func (s *Server) Reached(name string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.barrierLocked(name).ch
}

// Append adds attempts to the end of the script, for requests not yet
// received.
func (s *Server) Append(a ...Attempt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, a...)
}

// Close releases stalled and hung handlers, closes WebSocket connections
// abruptly (no close frame), shuts down the httptest and in-memory
// servers, closes idle connections of the clients s handed out and waits
// for running handlers to return. Requests arriving after Close
// get 503. Close is idempotent; it must be called from the same synctest
// bubble (or none) that created s.
func (s *Server) Close() {
	s.closeOnce.Do(s.close)
}

func (s *Server) close() {
	s.mu.Lock()
	s.closed = true
	close(s.done)
	hs, ps, trs := s.hs, s.pipeServer, s.transports
	live := slices.Collect(maps.Keys(s.live))
	s.mu.Unlock()

	// Handlers notice done on their own, but one may be blocked in a
	// write or a close handshake; closing the socket unblocks it.
	for _, c := range live {
		_ = c.Close()
	}
	if hs != nil {
		hs.Close() // waits for its handlers
	}
	s.pipe.Close()
	if ps != nil {
		_ = ps.Close() // closes the in-memory connections
	}
	s.serving.Wait()
	s.inflight.Wait()
	for _, tr := range trs {
		tr.CloseIdleConnections()
	}
}

func (s *Server) barrierLocked(name string) *barrier {
	b := s.barriers[name]
	if b == nil {
		b = &barrier{ch: make(chan struct{})}
		s.barriers[name] = b
	}
	return b
}

// quorum is the state behind one [Quorum] name.
type quorum struct {
	n       int // streams that reached it so far
	reached chan struct{}
}

// meet counts a stream at Quorum(name, n) and returns the channel that
// is closed once n streams have reached it.
func (s *Server) meet(name string, n int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.quorums[name]
	if q == nil {
		q = &quorum{reached: make(chan struct{})}
		s.quorums[name] = q
	}
	if q.n++; q.n == n {
		close(q.reached)
	}
	return q.reached
}

func (s *Server) reach(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.barrierLocked(name)
	if !b.reached {
		b.reached = true
		close(b.ch)
	}
}

func (s *Server) unexpected(msg string) {
	if s.opts.OnUnexpected != nil {
		s.opts.OnUnexpected(msg)
	}
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "responsestest: server closed", http.StatusServiceUnavailable)
		return
	}
	// Add under mu, so Close's Wait never races with an Add.
	s.inflight.Add(1)
	s.mu.Unlock()
	defer s.inflight.Done()

	if isUpgrade(r) && strings.HasSuffix(r.URL.Path, "/responses") {
		s.serveHandshake(w, r)
		return
	}
	if isModels(r) {
		s.serveModels(w, r)
		return
	}
	if r.Method != http.MethodPost || !(strings.HasSuffix(r.URL.Path, "/responses") || strings.HasSuffix(r.URL.Path, "/responses/compact") ||
		strings.HasSuffix(r.URL.Path, "/chat/completions") || strings.HasSuffix(r.URL.Path, "/messages")) {
		msg := fmt.Sprintf("responsestest: no route for %s %s", r.Method, r.URL.Path)
		s.unexpected(msg)
		http.Error(w, msg, http.StatusNotFound)
		return
	}
	body, _ := s.readBody(r.Body) // a short body is recorded as read
	a, i, total, ok := s.take(Request{
		Method: r.Method,
		Path:   r.URL.Path,
		Query:  r.URL.Query(),
		Header: r.Header.Clone(),
		Body:   body,
	})
	if !ok {
		msg := fmt.Sprintf("responsestest: unexpected request #%d (script has %d attempts)", i+1, total)
		s.unexpected(msg)
		http.Error(w, msg, http.StatusInternalServerError)
		return
	}
	s.serveAttempt(w, r, a)
}

// take records req with its Attempt set and hands out the next attempt,
// its index i and the script's current length. ok is false if the script
// is exhausted. req must not be shared: take keeps it.
func (s *Server) take(req Request) (a Attempt, i, total int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i = s.next
	s.next++
	req.Attempt = i
	s.requests = append(s.requests, req)
	if i >= len(s.script) {
		return Attempt{}, i, len(s.script), false
	}
	return s.script[i], i, len(s.script), true
}

func (s *Server) serveAttempt(w http.ResponseWriter, r *http.Request, a Attempt) {
	switch a.kind {
	case attemptStatus:
		setHeaders(w.Header(), map[string]string{"Content-Type": "application/json"}, a.header)
		w.WriteHeader(a.status)
		if bodyAllowed(a.status) {
			_, _ = io.WriteString(w, a.body)
		}
	case attemptHang:
		if s.wait(r.Context()) != waitCanceled {
			drop(w)
		}
	default:
		setHeaders(w.Header(), map[string]string{
			"Content-Type":  "text/event-stream",
			"Cache-Control": "no-cache",
		}, a.header)
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		if rc.Flush() != nil {
			return
		}
		for _, st := range a.steps {
			if !s.runStep(w, rc, r.Context(), st) {
				return
			}
		}
	}
}

// runStep performs st and reports whether the stream should go on.
func (s *Server) runStep(w http.ResponseWriter, rc *http.ResponseController, ctx context.Context, st Step) bool {
	var err error
	switch st.kind {
	case stepNone:
		return true
	case stepEvent:
		m := gosse.Message{Type: gosse.Type(st.typ)}
		m.AppendData(st.data)
		_, err = m.WriteTo(w)
	case stepComment:
		var m gosse.Message
		m.AppendComment(st.data)
		_, err = m.WriteTo(w)
	case stepRaw, stepBinary:
		_, err = io.WriteString(w, st.data)
	case stepDrop, stepCloseWS:
		drop(w)
		return false
	case stepEnd:
		return false
	case stepStall:
		switch s.wait(ctx) {
		case waitReleased:
			return true
		case waitClosed:
			drop(w) // the server went away mid-stream
		}
		return false
	case stepBarrier:
		s.reach(st.data)
		return true
	case stepQuorum:
		select {
		case <-s.meet(st.data, int(st.d)):
			return true
		case <-ctx.Done():
		case <-s.done:
			drop(w)
		}
		return false
	case stepSleep:
		t := time.NewTimer(st.d)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-ctx.Done():
		case <-s.done:
			drop(w)
		}
		return false
	}
	if err != nil {
		return false
	}
	return rc.Flush() == nil
}

type waitResult uint8

const (
	waitCanceled waitResult = iota // the request context ended
	waitReleased                   // Release was called
	waitClosed                     // Close was called
)

// wait blocks until ctx is done, Release or Close.
func (s *Server) wait(ctx context.Context) waitResult {
	select {
	case <-ctx.Done():
		return waitCanceled
	case <-s.release:
		return waitReleased
	case <-s.done:
		return waitClosed
	}
}

// drop closes the connection under w without finishing the response. It
// hijacks the connection when it can (HTTP/1) and otherwise aborts the
// handler, which makes net/http reset the stream.
func drop(w http.ResponseWriter) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = brw.Flush()
	_ = conn.Close()
}

// setHeaders sets defaults in h, then kv pairs, which replace defaults of
// the same name and may repeat a name to send several values.
func setHeaders(h http.Header, defaults map[string]string, kv []string) {
	for k, v := range defaults {
		h.Set(k, v)
	}
	extra := make(http.Header)
	for i := 0; i+1 < len(kv); i += 2 {
		extra.Add(kv[i], kv[i+1])
	}
	for k, v := range extra {
		h[k] = v
	}
}

func cloneRequests(rs []Request) []Request {
	out := make([]Request, len(rs))
	for i, r := range rs {
		out[i] = r.clone()
	}
	return out
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return nil
	}
	return url.Values(http.Header(v).Clone())
}

// decodeObject decodes b as a JSON object, returning nil if it is not one.
func decodeObject(b []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}
