// Package ws is the WebSocket transport for the Responses API (the one
// wire served over WebSocket): one connection carries one request at a
// time, each request a {"type":"response.create",...} text frame, each
// server text frame handed to the [transport.Decoder] it is given
// (Options.Decoder), as the SSE transport hands its events. A [Conn] stays open after
// response.completed so the next request can reuse it; any failure breaks
// it, and the caller dials again.
package ws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/agentcli/agent/internal/bigcopy"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/internal/liveness"
)

// BetaHeader is the OpenAI-Beta value that enables Responses over WebSocket.
const BetaHeader = "responses_websockets=2026-02-06"

// Options configure [Dial]. The zero value is usable.
type Options struct {
	// HTTPClient performs the handshake, so proxies (HTTPS_PROXY,
	// NO_PROXY) and TLS roots are shared with the SSE transport.
	HTTPClient *http.Client
	// ConnectTimeout bounds the handshake; zero means no bound beyond ctx.
	ConnectTimeout time.Duration
	// IdleTimeout ends a response stream when no frame and no ping arrives
	// for this long, with [transport.ErrStreamIdle]. Zero disables it.
	IdleTimeout time.Duration
	// ProgressTimeout ends a response stream when pings arrive but no event
	// does for this long, with [transport.ErrNoProgress]. Zero disables it.
	ProgressTimeout time.Duration
	// MaxMessageSize bounds one message; default [transport.MaxEventSize].
	// A larger one fails the stream with [transport.ErrEventTooLarge].
	MaxMessageSize int64
	// Decoder turns the messages of each stream into [transport.Event]s.
	// Nil: [transport.ResponsesDecoder].
	Decoder transport.Decoder
}

// URL maps an http(s) Responses URL to its ws(s) form.
func URL(httpURL string) string {
	switch {
	case strings.HasPrefix(httpURL, "https://"):
		return "wss://" + strings.TrimPrefix(httpURL, "https://")
	case strings.HasPrefix(httpURL, "http://"):
		return "ws://" + strings.TrimPrefix(httpURL, "http://")
	}
	return httpURL
}

// Conn is one WebSocket connection to the Responses endpoint. It carries one
// request at a time; Open blocks while another stream is in progress.
// Methods are safe for concurrent use.
type Conn struct {
	c    *websocket.Conn
	opts Options
	// pinged is the watchdog of the stream in progress, told about pings.
	mu     sync.Mutex
	active *liveness.Watchdog
	broken bool
	sem    chan struct{} // one stream at a time
}

// Dial opens a connection to httpURL (mapped with [URL]) sending header in
// the handshake, plus the OpenAI-Beta header. A failure is a
// [*transport.HandshakeError]. The connection outlives ctx; Close it.
func Dial(ctx context.Context, httpURL string, header http.Header, opts *Options) (*Conn, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = transport.MaxEventSize
	}
	if o.Decoder == nil {
		o.Decoder = transport.ResponsesDecoder{}
	}
	h := header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("OpenAI-Beta", BetaHeader)
	c := &Conn{opts: o, sem: make(chan struct{}, 1)}
	dctx := ctx
	if o.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		dctx, cancel = context.WithTimeoutCause(ctx, o.ConnectTimeout, transport.ErrHandshakeTimeout)
		defer cancel()
	}
	wc, resp, err := websocket.Dial(dctx, URL(httpURL), &websocket.DialOptions{
		HTTPClient:      o.HTTPClient,
		HTTPHeader:      h,
		CompressionMode: websocket.CompressionContextTakeover,
		OnPingReceived: func(context.Context, []byte) bool {
			// A ping is a keep-alive: it does not hold the idle timer,
			// which counts events and their data (Codex's
			// stream_idle_timeout_ms).
			return true
		},
	})
	if err != nil {
		return nil, &transport.HandshakeError{Err: handshakeFact(ctx, dctx, resp, err)}
	}
	wc.SetReadLimit(-1) // the stream enforces MaxMessageSize itself, with a typed error
	c.c = wc
	return c, nil
}

// handshakeFact turns a Dial failure into a transport fact.
func handshakeFact(ctx, dctx context.Context, resp *http.Response, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if errors.Is(context.Cause(dctx), transport.ErrHandshakeTimeout) {
		return transport.ErrHandshakeTimeout
	}
	if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		var body []byte
		if resp.Body != nil {
			body, _ = io.ReadAll(io.LimitReader(resp.Body, 1024))
		}
		return &transport.HTTPError{StatusCode: resp.StatusCode, Header: resp.Header, Body: body}
	}
	return &transport.ConnectError{Err: err}
}

// Broken reports whether the connection failed and must be replaced.
func (c *Conn) Broken() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken
}

// Close closes the connection. It is idempotent.
func (c *Conn) Close() error {
	c.markBroken()
	return c.c.CloseNow()
}

func (c *Conn) markBroken() {
	c.mu.Lock()
	c.broken = true
	c.mu.Unlock()
}

// Open sends body (the JSON of the SSE request body; "type":
// "response.create" is added) and returns the stream of its response. The
// stream is bound to ctx; the caller must Close it before the next Open.
// A failed stream breaks the connection.
func (c *Conn) Open(ctx context.Context, body []byte) (transport.Stream, error) {
	return c.OpenParts(ctx, [][]byte{body})
}

// OpenParts is [Conn.Open] with the body in parts, in order, sent as they
// lie (a 120 MiB item of the history is not copied to be sent).
func (c *Conn) OpenParts(ctx context.Context, body [][]byte) (transport.Stream, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if c.Broken() {
		<-c.sem
		return nil, &transport.ReadError{Err: errors.New("websocket connection already closed")}
	}
	frame, err := createFrame(body)
	if err != nil {
		<-c.sem
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	w := liveness.Start(cancel, c.opts.IdleTimeout, c.opts.ProgressTimeout)
	s := &stream{c: c, ctx: ctx, sctx: sctx, cancel: cancel, w: w, dec: c.opts.Decoder.NewStream()}
	c.mu.Lock()
	c.active = w
	c.mu.Unlock()
	if err := s.send(frame); err != nil {
		s.fail(&transport.ReadError{Err: fmt.Errorf("send response.create: %w", err)})
		return nil, s.err
	}
	return s, nil
}

// chunk is how much of a message is moved between two liveness marks.
const chunk = 32 << 10

// send writes the parts of frame as one text message, telling the
// watchdog as each chunk leaves: an upload in progress is not idle.
func (s *stream) send(parts [][]byte) error {
	wr, err := s.c.c.Writer(s.sctx, websocket.MessageText)
	if err != nil {
		return err
	}
	// Frames of up to chunk bytes, however small the parts (a long
	// history is 100,000 items).
	r, buf := transport.PartsReader(parts), make([]byte, chunk)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if _, werr := wr.Write(buf[:n]); werr != nil {
				_ = wr.Close()
				return werr
			}
			s.w.Active()
		}
		if err != nil { // io.EOF or io.ErrUnexpectedEOF: all of it sent
			return wr.Close()
		}
	}
}

// errIgnored is read's report of a message the decoder drops.
var errIgnored = errors.New("ignored message")

// read reads one message, telling the watchdog about every chunk that
// arrives (a large event on a slow link is not idle), and enforcing
// MaxMessageSize. The message is read into full-size pieces, reused from
// message to message, and returned as a string of its own, copied once;
// a message the decoder drops (IgnoredPieces) is not copied at all. A
// text message longer than a piece goes through the decoder's Cutter as
// it is read, when it has one: a piece none of which is kept is read
// into again at once.
func (s *stream) read() (websocket.MessageType, string, error) {
	typ, r, err := s.c.c.Reader(s.sctx)
	if err != nil {
		return typ, "", err
	}
	s.w.Active()
	limit := s.c.opts.MaxMessageSize
	s.releasePieces()
	size := int64(0)
	var cut *transport.Cutter
	var kept [][]byte // what cut kept
	for {
		if n := len(s.pieces); n == 0 || len(s.pieces[n-1]) == cap(s.pieces[n-1]) {
			if n == 1 && cut == nil && typ == websocket.MessageText {
				cut = s.newCutter(func(b []byte, _ bool) { kept = append(kept, b) })
			}
			if cut != nil && !cut.Feed(s.pieces[n-1]) {
				s.spare = append(s.spare, s.pieces[n-1]) // taken back just below
				s.pieces = s.pieces[:n-1]
			}
			s.pieces = append(s.pieces, s.piece())
		}
		last := &s.pieces[len(s.pieces)-1]
		n, err := r.Read((*last)[len(*last):cap(*last)])
		if n > 0 {
			s.w.Active()
			if size += int64(n); size > limit {
				return typ, "", &transport.EventTooLargeError{Limit: limit}
			}
			*last = (*last)[:len(*last)+n]
		}
		if err == io.EOF {
			parts := s.pieces
			if cut != nil {
				cut.Feed(*last)
				cut.End()
				parts = kept
			}
			if typ == websocket.MessageText && s.dec.IgnoredPieces(parts) {
				s.releasePieces()
				return typ, "", errIgnored
			}
			size = 0
			for _, p := range parts {
				size += int64(len(p))
			}
			var sb strings.Builder
			sb.Grow(int(size))
			for _, p := range parts {
				_ = bigcopy.Write(&sb, p)
			}
			s.releasePieces()
			return typ, sb.String(), nil
		}
		if err != nil {
			return typ, "", err
		}
	}
}

// newCutter is the decoder's Cutter for a message, or nil.
func (s *stream) newCutter(keep func(b []byte, fed bool)) *transport.Cutter {
	if c, ok := s.dec.(interface {
		NewCutter(name string, keep func(b []byte, fed bool)) *transport.Cutter
	}); ok {
		return c.NewCutter("", keep)
	}
	return nil
}

// maxSpare is how many full pieces (1 MiB) a stream keeps for the next
// message. The rest of a long message's pieces are let go of once it is
// joined (or dropped) and collected at once ([bigcopy.Dropped]): kept,
// the pieces of a 120 MiB call's arguments stayed live beside its data,
// the decoded arguments and the next request's body (issue 42).
const maxSpare = 16

// releasePieces takes the current message's pieces back: spare up to
// maxSpare, the rest let go of and, when large, collected.
func (s *stream) releasePieces() {
	dropped := 0
	for _, p := range s.pieces {
		if len(s.spare) < maxSpare {
			s.spare = append(s.spare, p)
		} else {
			dropped += cap(p)
		}
	}
	clear(s.pieces)
	s.pieces = s.pieces[:0]
	bigcopy.Dropped(dropped)
}

// piece is an empty full-size piece to read into, a spare one if any.
func (s *stream) piece() []byte {
	if n := len(s.spare); n > 0 {
		p := s.spare[n-1][:0]
		s.spare = s.spare[:n-1]
		return p
	}
	return make([]byte, 0, pieceSize)
}

// pieceSize is the size of the pieces a message is read into.
const pieceSize = 64 << 10

// createFrame prefixes a JSON object, in parts, with
// "type":"response.create": the frame is a head then the parts, the first
// without its opening brace (a 10 MiB body is not copied to be sent).
func createFrame(body [][]byte) ([][]byte, error) {
	var rest [][]byte
	for i, p := range body {
		if p = bytes.TrimLeft(p, " \t\r\n"); len(p) > 0 {
			rest = append([][]byte{p}, body[i+1:]...)
			break
		}
	}
	if len(rest) == 0 || rest[0][0] != '{' {
		return nil, errors.New("ws: request body is not a JSON object")
	}
	rest[0] = rest[0][1:]
	head := []byte(`{"type":"response.create"`)
	for _, p := range rest {
		if p = bytes.TrimLeft(p, " \t\r\n"); len(p) > 0 {
			if p[0] != '}' {
				head = append(head, ',')
			}
			break
		}
	}
	return append([][]byte{head}, rest...), nil
}

// stream is one response being read from a Conn.
type stream struct {
	c      *Conn
	ctx    context.Context // the caller's, to tell cancellation apart
	sctx   context.Context
	cancel context.CancelFunc
	w      *liveness.Watchdog
	pieces [][]byte                // the message being read, in full-size pieces
	spare  [][]byte                // pieces to read the next message into
	dec    transport.StreamDecoder // the response's frames
	err    error
	done   bool
	closed bool
}

// Events reads the response's messages, handing each event to the
// caller's loop body as it is decoded.
func (s *stream) Events() iter.Seq[transport.Event] {
	return func(yield func(transport.Event) bool) {
		stopped := false
		emit := func(ev transport.Event) bool {
			if s.done || stopped { // a decoder that goes on after a stop
				return false
			}
			s.w.Progressed()
			if _, ok := ev.(transport.Completed); ok {
				s.done = true // the connection stays open for the next request
				s.release()
				yield(ev)
				return false
			}
			if !yield(ev) {
				stopped = true
				return false
			}
			return true
		}
		for !s.done && !stopped {
			typ, data, err := s.read()
			if err == errIgnored {
				s.w.Progressed()
				continue
			}
			if errors.Is(err, transport.ErrEventTooLarge) {
				s.fail(err)
				return
			}
			if err != nil {
				s.fail(readFact(err))
				return
			}
			if typ != websocket.MessageText {
				s.fail(transport.ErrUnexpectedBinary)
				return
			}
			if err := s.dec.Decode("", data, emit); err != nil && !s.done && !stopped {
				s.fail(err)
				return
			}
		}
	}
}

// readFact maps a read failure to a transport fact.
func readFact(err error) error {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return &transport.CloseError{Code: int(ce.Code), Reason: ce.Reason}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		// The connection ended without a close frame, as a cut SSE body does.
		return &transport.ReadError{Err: io.ErrUnexpectedEOF}
	}
	return &transport.ReadError{Err: err}
}

func (s *stream) fail(err error) {
	s.done = true
	s.err = s.w.Explain(s.ctx, err)
	s.c.markBroken()
	_ = s.c.c.CloseNow()
	s.release()
}

func (s *stream) release() {
	if s.closed {
		return
	}
	s.closed = true
	s.w.Stop()
	s.cancel()
	s.c.mu.Lock()
	s.c.active = nil
	s.c.mu.Unlock()
	<-s.c.sem
}

func (s *stream) Err() error { return s.err }

// Close ends the stream. Closing before response.completed breaks the
// connection (the rest of the response would arrive on it).
func (s *stream) Close() error {
	if !s.done {
		s.done = true
		s.c.markBroken()
		_ = s.c.c.CloseNow()
	}
	s.release()
	return nil
}
