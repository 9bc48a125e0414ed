// Package sse is the HTTP transport: one POST per request, the answer
// read as Server-Sent Events (see [eventReader]), each event handed to
// the wire's [transport.Decoder] (Options.Decoder), which it does not
// otherwise know.
package sse

import (
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"time"

	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/internal/liveness"
)

// maxErrorBody bounds how much of a non-2xx body is kept for the error.
const maxErrorBody = 64 << 10

// Options configure a [Transport]. The zero value is usable.
type Options struct {
	// HTTPClient sends the requests. Default: a client with
	// http.DefaultTransport's settings and no overall timeout (a timeout
	// would kill long streams; the idle timers below bound them instead).
	HTTPClient *http.Client
	// IdleTimeout ends a stream that delivers no bytes at all (not even
	// keep-alive comments) for this long, with [transport.ErrStreamIdle].
	// It also bounds the wait for the response headers, counted from when
	// the request was sent and taken by the server (see [uploadWatch]).
	// Zero disables it.
	IdleTimeout time.Duration
	// ProgressTimeout ends a stream that stays alive (bytes arrive) but
	// delivers no event for this long, with [transport.ErrNoProgress].
	// Zero disables it.
	ProgressTimeout time.Duration
	// MaxEventSize bounds one event; default [transport.MaxEventSize]. A
	// larger event fails the stream with [transport.ErrEventTooLarge].
	MaxEventSize int
	// ReadBatch, when positive, is how long a stream waits before reading
	// again after a read that found less than a batch of bytes (it has
	// caught up with the server), so that the events arriving meanwhile
	// are read together: one wake-up and read per batch instead of one per
	// event, which on a busy machine costs more than the events themselves.
	// An event is delayed at most ReadBatch. Zero reads as soon as bytes
	// arrive.
	ReadBatch time.Duration
	// Decoder turns the events of each stream into [transport.Event]s:
	// the wire's. Nil: [transport.ResponsesDecoder].
	Decoder transport.Decoder
}

// Transport is the SSE transport. It is safe for concurrent use.
type Transport struct {
	client         *http.Client
	idle, progress time.Duration
	maxEventSize   int
	readBatch      time.Duration
	decoder        transport.Decoder
}

var _ transport.Transport = (*Transport)(nil)

// New returns a Transport with opts (nil means defaults).
func New(opts *Options) *Transport {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.MaxEventSize <= 0 {
		o.MaxEventSize = transport.MaxEventSize
	}
	if o.Decoder == nil {
		o.Decoder = transport.ResponsesDecoder{}
	}
	return &Transport{
		client:       o.HTTPClient,
		idle:         o.IdleTimeout,
		progress:     o.ProgressTimeout,
		maxEventSize: o.MaxEventSize,
		readBatch:    o.ReadBatch,
		decoder:      o.Decoder,
	}
}

// Open POSTs req and returns its event stream. The stream is bound to ctx;
// the caller must Close it. A non-2xx answer is a [*transport.HTTPError], a
// failure to connect a [*transport.ConnectError], a stall before the
// headers [transport.ErrStreamIdle]; ctx errors stay in the chain.
func (t *Transport) Open(ctx context.Context, req *transport.Request) (transport.Stream, error) {
	sctx, cancel := context.WithCancel(ctx)
	w := liveness.Start(cancel, t.idle, t.progress)
	// The upload counts as activity too: a large request on a slow link
	// is not idle while its bytes leave.
	parts := req.Payload()
	hreq, err := http.NewRequestWithContext(sctx, http.MethodPost, req.URL, &activityReader{r: transport.PartsReader(parts), w: w})
	if err != nil {
		w.Stop()
		cancel()
		return nil, err
	}
	hreq.ContentLength = 0
	for _, p := range parts {
		hreq.ContentLength += int64(len(p))
	}
	hreq.GetBody = func() (io.ReadCloser, error) {
		return io.NopCloser(&activityReader{r: transport.PartsReader(parts), w: w}), nil
	}
	hreq.Header = req.Header.Clone()
	if hreq.Header == nil {
		hreq.Header = http.Header{}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")

	if t.idle > 0 {
		u, trace := watchUpload(w, uploadTick(t.idle))
		hreq = hreq.WithContext(httptrace.WithClientTrace(hreq.Context(), trace))
		defer u.stop()
	}
	resp, err := t.client.Do(hreq)
	if err != nil {
		w.Stop()
		cancel()
		return nil, w.Explain(ctx, connectOrRead(err))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		w.Stop()
		cancel()
		return nil, &transport.HTTPError{StatusCode: resp.StatusCode, Header: resp.Header, Body: body}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" {
		// A login page of a proxy or network in the way, or a base_url
		// that is a web site: no event stream will come of it.
		page, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		w.Stop()
		cancel()
		return nil, &transport.PageError{StatusCode: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: page}
	}
	var body io.Reader = &activityReader{r: resp.Body, w: w, events: true}
	if t.readBatch > 0 {
		body = &batchReader{r: body, wait: t.readBatch}
	}
	s := &stream{ctx: ctx, cancel: cancel, body: resp.Body, w: w, r: body, maxEventSize: t.maxEventSize, dec: t.decoder.NewStream()}
	return s, nil
}

// connectOrRead sorts a client.Do failure into the facts the classifier needs.
func connectOrRead(err error) error {
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &dns) || (errors.As(err, &op) && op.Op == "dial") {
		return &transport.ConnectError{Err: err}
	}
	return &transport.ReadError{Err: err}
}

// stream is one SSE response being read.
type stream struct {
	ctx          context.Context // the caller's ctx, to tell cancellation apart
	cancel       context.CancelFunc
	body         io.ReadCloser
	w            *liveness.Watchdog
	r            io.Reader // body as it is read: activity counted, reads batched
	maxEventSize int
	dec          transport.StreamDecoder

	err     error
	started bool // Events has been ranged over
	closed  bool
}

// Events reads the stream with [eventReader]: each event is decoded by
// the stream's decoder and handed to the caller's loop body on the
// reading goroutine.
func (s *stream) Events() iter.Seq[transport.Event] {
	return func(yield func(transport.Event) bool) {
		if s.started || s.closed {
			return
		}
		s.started = true
		done := false // the stream ended here: completed, stopped, or a frame failed
		er := newEventReader(s.r, s.maxEventSize)
		er.drop = func(typ string, first []byte) bool {
			// An event nobody reads is progress, dropped uncopied.
			if !s.dec.Ignored(typ, first) {
				return false
			}
			s.w.Progressed()
			return true
		}
		if c, ok := s.dec.(cutterMaker); ok {
			er.cutter = c.NewCutter
		}
		emit := func(ev transport.Event) bool {
			if done { // a decoder that goes on after a stop
				return false
			}
			s.w.Progressed()
			if _, ok := ev.(transport.Completed); ok {
				// Success ends here; do not wait for EOF.
				s.release()
				yield(ev)
				done = true
				return false
			}
			if !yield(ev) {
				done = true
				return false
			}
			return true
		}
		err := er.each(func(typ, data string) bool {
			if err := s.dec.Decode(typ, data, emit); err != nil && !done {
				s.finish(err)
				done = true
			}
			return !done
		})
		switch {
		case done:
		case err != nil:
			s.finish(s.readFact(err))
		default:
			// The input ended (an unterminated last event is discarded)
			// before response.completed.
			s.finish(transport.Incomplete(s.dec))
		}
	}
}

// readFact maps a failure of the event reader to a transport fact.
func (s *stream) readFact(err error) error {
	if errors.Is(err, transport.ErrEventTooLarge) {
		return err
	}
	return &transport.ReadError{Err: err}
}

// finish records why the stream stopped, preferring the watchdog's and the
// caller's reasons over the read error they caused.
func (s *stream) finish(err error) {
	s.err = s.w.Explain(s.ctx, err)
	s.release()
}

func (s *stream) Err() error { return s.err }

func (s *stream) release() {
	if s.closed {
		return
	}
	s.closed = true
	s.w.Stop()
	s.cancel()
	s.body.Close()
}

func (s *stream) Close() error {
	s.release()
	return nil
}

// activityReader tells the watchdog about the bytes that move (read from
// the answer, or read from the request body to be sent). Of an event
// stream (events), comment lines (keep-alives) do not count: the idle
// timer is Codex's stream_idle_timeout_ms, time without an event or its
// data.
type activityReader struct {
	r      io.Reader
	w      *liveness.Watchdog
	events bool
	// midLine says the last read ended inside a line, comment tells
	// whether that line is a comment.
	midLine, comment bool
}

func (a *activityReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 && (!a.events || a.data(p[:n])) {
		a.w.Active()
	}
	return n, err
}

// data reports whether b, the next bytes of the stream, holds anything
// but comment lines and line ends, keeping track of the line it ends in.
func (a *activityReader) data(b []byte) bool {
	found := false
	for len(b) > 0 {
		if !a.midLine {
			if b[0] == '\n' || b[0] == '\r' {
				b = b[1:]
				continue
			}
			a.midLine, a.comment = true, b[0] == ':'
		}
		found = found || !a.comment
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return found
		}
		a.midLine, b = false, b[i+1:]
		if found {
			// Only the state at the end matters now.
			if j := bytes.LastIndexByte(b, '\n'); j >= 0 {
				b = b[j+1:]
			}
			if len(b) > 0 && b[0] != '\r' {
				a.midLine, a.comment = true, b[0] == ':'
			}
			return true
		}
	}
	return found
}

// batchReader waits before reading again once a read found less than
// batchBytes (the stream has caught up with the server), so that the
// events arriving meanwhile are read together (Options.ReadBatch).
type batchReader struct {
	r        io.Reader
	wait     time.Duration
	caughtUp bool
}

// batchBytes is what a read must find for the stream not to be taken as
// caught up with the server: more than a few events.
const batchBytes = 2 << 10

func (b *batchReader) Read(p []byte) (int, error) {
	if b.caughtUp {
		time.Sleep(b.wait)
	}
	n, err := b.r.Read(p)
	b.caughtUp = n < batchBytes && n < len(p)
	return n, err
}

// cutterMaker is a stream decoder that can leave part of a large frame
// out while it is read ([transport.FrameDecoder.NewCutter]).
type cutterMaker interface {
	NewCutter(name string, keep func(b []byte, fed bool)) *transport.Cutter
}
