package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	gosse "github.com/tmaxmax/go-sse"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/transport"
)

// peekLimit bounds the bytes held back before the commit decision: the
// lifecycle events of a stream, or a non-streamed body inspected for an
// error object. Past it the proxy commits.
const peekLimit = 1 << 20

// errorBodyLimit bounds the start of an error body read to classify it;
// the rest is relayed unread.
const errorBodyLimit = 64 << 10

// errShuttingDown: the proxy is shutting down and sends nothing new.
var errShuttingDown = fmt.Errorf("proxy: shutting down: %w", context.Canceled)

// errTooLarge: the request body exceeds MaxBodyBytes.
var errTooLarge = errors.New("proxy: request body too large")

// attempt is one upstream try, up to the commit decision.
type attempt struct {
	// resp is the upstream answer; nil when the round trip failed.
	resp *http.Response
	// head holds the body bytes already read, to be relayed first.
	head []byte
	// readErr is the error that ended reading head early: relay head,
	// then cut the client off.
	readErr error
	// failure is the classification; Err == nil means success.
	failure modelclient.Failure
}

// discard releases an attempt that will not be relayed.
func (a *attempt) discard() {
	if a.resp != nil {
		_ = a.resp.Body.Close()
	}
}

// forward sends a retried POST upstream until an attempt succeeds, fails
// for good or the budget runs out, and relays that attempt.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, res *result) {
	body, err := readBody(r.Body, p.opts.MaxBodyBytes)
	switch {
	case errors.Is(err, errTooLarge):
		res.status = http.StatusRequestEntityTooLarge
		res.failure = modelclient.Failure{Kind: modelclient.KindInvalidRequest, Status: res.status, Err: err}
		writeError(w, res, "invalid_request_error", "request_too_large",
			fmt.Sprintf("agent proxy: request body exceeds %d bytes", p.opts.MaxBodyBytes))
		return
	case err != nil:
		res.status = http.StatusBadRequest
		res.failure = modelclient.ClassifyRoundTrip(err)
		writeError(w, res, "invalid_request_error", "request_body_unreadable", "agent proxy: cannot read the request body")
		return
	}
	br, body, ok := p.bridged(w, r, res, body)
	if !ok {
		return
	}
	ctx := r.Context()
	wctx, endWaits := p.waitContext(ctx)
	defer endWaits()
	// The proxy's one layer runs through the shared retry driver: the
	// budget is max_retries, the delay the class's (the server's wins).
	budget := retry.NewBudget("proxy", p.opts.MaxRetries, 0)
	var (
		last    attempt
		waiting bool  // the last attempt was discarded for a retry
		stopped error // the gate refused a re-send
	)
	d := retry.Driver{
		// A rate limit or overload delay is a cooldown of the whole gate:
		// every client sharing it (with a machine-wide gate, every agent
		// process of this AGENT_HOME) waits it out too.
		Wait: func(_ context.Context, w retry.Wait) error {
			return p.gate.Backoff(wctx, w.Delay, last.failure.Cooldown(), p.opts.Sleep)
		},
		Decide: func(error) retry.Decision {
			f := last.failure
			pol := p.policy(f.Class())
			n := budget.Spent() + 1
			if !f.Retryable() || !pol.Allows(n, -1) || pol.Pauses(f.Delay) {
				// A server delay beyond the class's cap is relayed at
				// once (with its Retry-After) rather than cut short.
				return retry.Decision{}
			}
			return retry.Decision{Budget: budget, Delay: pol.Backoff(n, f.Delay, p.opts.Rand)}
		},
		Notify: func(w retry.Wait) {
			last.discard()
			waiting = true
			p.logRetry(ctx, res, w.Attempt, w.Delay, last.failure)
		},
	}
	_, err = retry.Do(ctx, d, func(ctx context.Context, n int) (struct{}, error) {
		res.attempts, waiting = n, false
		release, err := p.gate.Enter(wctx, n > 1) // a re-send takes a slot
		if err == nil && p.stopping.Err() != nil {
			// The gate may open as shutdown ends the cooldown that held
			// it: send nothing new upstream once shutting down.
			release()
			err = errShuttingDown
		}
		if err != nil {
			stopped = err
			return struct{}{}, nil
		}
		last = p.try(ctx, r, body, br)
		release()
		return struct{}{}, last.failure.Err
	})
	switch {
	case stopped != nil:
		p.giveUp(w, r, res, stopped)
	case waiting: // the wait for a retry ended: the client left, or shutdown
		p.giveUp(w, r, res, err)
	case last.resp == nil && ctx.Err() != nil: // the attempt was cut short with ctx
		p.giveUp(w, r, res, ctx.Err())
	default:
		if last.failure.Err != nil {
			res.failure = last.failure
		}
		if br != nil && last.failure.Err == nil && last.resp != nil && isEventStream(last.resp.Header) {
			br.relay(p, w, r, last, res)
			return
		}
		p.relay(w, r, last, res)
	}
}

// bridged returns the bridge r goes through (nil: none) and the body to
// send: a Responses request to an upstream of another wire is translated
// (and its stream translated back); any other is relayed as it is. A
// request the bridge cannot translate is answered 400 here (ok false).
func (p *Proxy) bridged(w http.ResponseWriter, r *http.Request, res *result, body []byte) (_ *bridge, _ []byte, ok bool) {
	if p.bridge == nil || route(r.URL.Path) != "/responses" {
		return nil, body, true
	}
	out, err := p.bridge.body(body)
	if err != nil {
		res.status = http.StatusBadRequest
		res.failure = modelclient.Failure{Kind: modelclient.KindInvalidRequest, Status: res.status, Err: err}
		writeError(w, res, "invalid_request_error", "bridge_unsupported_request", "agent proxy: "+err.Error())
		return nil, nil, false
	}
	return p.bridge, out, true
}

// giveUp ends a request that stopped before an answer to relay: its
// client left (nothing to answer); the proxy is shutting down, which it
// answers 503 proxy_shutting_down so the client can send it again; or
// the retry gate failed (a lock file it could not use), answered 503 too.
func (p *Proxy) giveUp(w http.ResponseWriter, r *http.Request, res *result, err error) {
	if p.clientGone(r) {
		res.gone = goneClosed
		return
	}
	res.status = http.StatusServiceUnavailable
	res.failure = modelclient.Classify(err)
	msg := "agent proxy: cannot retry: " + err.Error()
	res.failure.Code = "proxy_retry_unavailable"
	if p.stopping.Err() != nil {
		msg = "agent proxy: shutting down; this request was not answered, send it again"
		res.failure.Code = "proxy_shutting_down"
		w.Header().Set("Connection", "close")
	}
	writeError(w, res, "server_error", res.failure.Code, msg)
}

// try makes one upstream attempt and reads as much of the answer as the
// commit decision needs.
func (p *Proxy) try(ctx context.Context, r *http.Request, body []byte, br *bridge) attempt {
	resp, err := p.opts.Transport.RoundTrip(p.upstreamRequest(ctx, r, body, br))
	if err != nil {
		return attempt{failure: modelclient.ClassifyRoundTrip(err)}
	}
	a := attempt{resp: resp}
	switch {
	case resp.StatusCode >= http.StatusBadRequest:
		a.head, _, a.readErr = readUpTo(resp.Body, errorBodyLimit)
		a.failure = modelclient.ClassifyResponseAt(resp.StatusCode, resp.Header, a.head, p.opts.Keywords, p.opts.Now)
	case isEventStream(resp.Header):
		p.peekStream(&a)
	default:
		var complete bool
		a.head, complete, a.readErr = readUpTo(resp.Body, peekLimit)
		switch {
		case a.readErr != nil:
			a.failure = modelclient.Classify(&transport.ReadError{Err: a.readErr})
		case complete:
			a.failure = modelclient.ClassifyResponseAt(resp.StatusCode, resp.Header, a.head, p.opts.Keywords, p.opts.Now)
		}
	}
	return a
}

// upstreamRequest builds the upstream request for one attempt; through
// a bridge, to its wire's endpoint with the headers the wire wants.
func (p *Proxy) upstreamRequest(ctx context.Context, r *http.Request, body []byte, br *bridge) *http.Request {
	u := r.URL
	if br != nil {
		u = &url.URL{Path: br.path, RawQuery: r.URL.RawQuery}
	}
	out := &http.Request{
		Method:        r.Method,
		URL:           p.upstreamURL(u),
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        r.Header.Clone(),
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		GetBody:       func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil },
	}
	removeHopHeaders(out.Header)
	out.Header.Del("Expect") // the whole body is in hand
	// Let the transport negotiate compression and decompress, so the
	// proxy can read errors and events; the client gets identity bytes.
	out.Header.Del("Accept-Encoding")
	for k, v := range p.opts.Header {
		out.Header[k] = append([]string(nil), v...)
	}
	if br != nil {
		out.Header = br.header(out.Header)
	}
	return out.WithContext(ctx)
}

// peekStream reads events until the first one that is not a lifecycle
// event and classifies it; every byte read is kept in a.head.
func (p *Proxy) peekStream(a *attempt) {
	rec := &recorder{r: a.resp.Body}
	parseErr := false
	for ev, err := range gosse.Read(rec, &gosse.ReadConfig{MaxEventSize: peekLimit}) {
		if err != nil {
			parseErr = rec.err == nil
			break
		}
		if isLifecycle(ev) && rec.buf.Len() < peekLimit {
			continue
		}
		a.head = rec.buf.Bytes()
		if f, isErr := modelclient.ClassifyEvent(ev.Type, []byte(ev.Data), p.opts.Keywords); isErr {
			a.failure = f
		}
		return
	}
	a.head = rec.buf.Bytes()
	switch {
	case rec.err != nil:
		a.readErr = rec.err
		a.failure = modelclient.Classify(&transport.ReadError{Err: rec.err})
	case !parseErr:
		// The stream ended before anything but lifecycle events: nothing
		// was shown, so asking again is safe.
		a.failure = modelclient.Classify(transport.ErrIncomplete)
	}
}

// isLifecycle reports whether ev only announces the response (created,
// in progress, queued; the Messages API's message_start and its pings)
// and so may be held back before the commit.
func isLifecycle(ev gosse.Event) bool {
	typ := ev.Type
	if typ == "" {
		var v struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(ev.Data), &v)
		typ = v.Type
	}
	switch typ {
	case "response.created", "response.in_progress", "response.queued", "message_start", "ping":
		return true
	}
	return false
}

// recorder keeps every byte read through it and the first read error
// other than io.EOF.
type recorder struct {
	r   io.Reader
	buf bytes.Buffer
	err error
}

func (c *recorder) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.buf.Write(b[:n])
	if err != nil && !errors.Is(err, io.EOF) && c.err == nil {
		c.err = err
	}
	return n, err
}

// relay writes a's status, headers and body to the client: the held-back
// head, then the rest of the upstream body as it arrives, flushing each
// chunk. An upstream that breaks mid-body, or ends a Responses stream
// cleanly before its final event, breaks the client's response too (the
// handler aborts), so a truncated stream never looks complete. A client
// that leaves (or stops reading) ends the relay and, with it, the
// upstream request.
func (p *Proxy) relay(w http.ResponseWriter, r *http.Request, a attempt, res *result) {
	if a.resp == nil {
		res.status = http.StatusBadGateway
		writeError(w, res, "server_error", "upstream_unavailable",
			"agent proxy: upstream unavailable: "+a.failure.Reason())
		return
	}
	defer a.resp.Body.Close()
	res.status = a.resp.StatusCode
	h := w.Header()
	for k, v := range a.resp.Header {
		h[k] = v
	}
	removeHopHeaders(h)
	h.Set(HeaderProxy, "1")
	h.Set(HeaderAttempts, strconv.Itoa(res.attempts))
	w.WriteHeader(a.resp.StatusCode)
	var fin finalWatch
	if isEventStream(a.resp.Header) {
		fin.on = true
		res.final = fin.saw(a.head)
	}
	if !p.send(w, res, a.head) {
		return
	}
	if a.readErr != nil {
		p.upstreamBroke(r, res, a.readErr)
		return
	}
	bp := relayBufs.Get().(*[]byte)
	defer relayBufs.Put(bp)
	buf := *bp
	for {
		n, err := a.resp.Body.Read(buf)
		if n > 0 {
			res.final = fin.saw(buf[:n]) || res.final
			if !p.send(w, res, buf[:n]) {
				return
			}
		}
		switch {
		case errors.Is(err, io.EOF) && fin.on && !res.final && (route(res.path) == "/responses" || route(res.path) == "/messages"):
			// A clean end before the final event is a truncated answer
			// all the same: cut it, so it never looks complete.
			p.upstreamBroke(r, res, transport.ErrIncomplete)
			return
		case errors.Is(err, io.EOF):
			return
		case err != nil:
			p.upstreamBroke(r, res, err)
			return
		}
	}
}

// relayBufs are the relay's read buffers, reused across requests: a
// fresh 32 KiB for every request was a third of what the proxy
// allocated under many keep-alive clients, and the collector's work with it.
var relayBufs = sync.Pool{New: func() any {
	b := make([]byte, 32<<10)
	return &b
}}

// send writes b to the client and flushes it. A failed write means the
// client hung up or stopped reading (the write deadline passed), unless
// the proxy cut the request off at shutdown; send records which and
// reports false.
func (p *Proxy) send(w http.ResponseWriter, res *result, b []byte) bool {
	var err error
	if len(b) > 0 {
		_, err = w.Write(b)
	}
	if err == nil {
		err = flush(w)
	}
	if err == nil {
		return true
	}
	p.lostClient(res, err)
	return false
}

// lostClient records that writing to res's client failed with err: it
// hung up, or stopped reading until the write deadline passed, unless
// the proxy cut the request off at shutdown.
func (p *Proxy) lostClient(res *result, err error) {
	res.streamErr = err
	switch {
	case p.cut.Load():
	case errors.Is(err, os.ErrDeadlineExceeded):
		res.gone = goneStalled
	default:
		res.gone = goneClosed
	}
}

// upstreamBroke ends a relay whose upstream body failed with err after
// the commit: it aborts the handler, so net/http cuts the client's
// response instead of ending it cleanly. A read that failed because the
// client left (its request's context ended) is the client's doing.
func (p *Proxy) upstreamBroke(r *http.Request, res *result, err error) {
	if p.clientGone(r) {
		res.gone, res.streamErr = goneClosed, err
		return
	}
	res.streamErr = &transport.ReadError{Err: err}
	panic(http.ErrAbortHandler)
}

// finalWatch spots, in the bytes of an event stream as they are relayed,
// the final event of a response: a line "event: response.completed" (or
// failed, incomplete; the Messages API's message_stop), or a data line
// whose JSON starts with that type.
// A line can only start after a newline, and JSON text escapes newlines,
// so an answer that merely mentions the names does not match.
type finalWatch struct {
	on   bool
	tail []byte // the end of the bytes seen so far, for a match across chunks
}

var finalMarks = [][]byte{
	[]byte("\nevent: response.completed"), []byte("\nevent: response.failed"), []byte("\nevent: response.incomplete"),
	[]byte("\nevent:response.completed"),
	[]byte("\ndata: {\"type\":\"response.completed\""), []byte("\ndata: {\"type\":\"response.failed\""),
	[]byte("\ndata: {\"type\":\"response.incomplete\""),
	[]byte("\nevent: message_stop"), []byte("\nevent:message_stop"), []byte("\ndata: {\"type\":\"message_stop\""),
}

// saw reports whether b (following what was seen before) holds a final
// event's first line.
func (f *finalWatch) saw(b []byte) bool {
	if !f.on || len(b) == 0 {
		return false
	}
	if f.tail == nil {
		f.tail = []byte("\n") // the stream's start is a line start
	}
	buf := append(slices.Clone(f.tail), b...)
	found := false
	for _, m := range finalMarks {
		if bytes.Contains(buf, m) {
			found = true
			break
		}
	}
	const keep = 64
	f.tail = append(f.tail[:0], buf[max(0, len(buf)-keep):]...)
	return found
}

// readBody reads a request body of at most limit bytes.
func readBody(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

// readUpTo reads up to limit bytes of r. complete says r reached EOF
// within them; err is a read error other than EOF.
func readUpTo(r io.Reader, limit int) (b []byte, complete bool, err error) {
	b, err = io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return b, false, err
	}
	if len(b) > limit {
		// One byte too many was read to tell "exactly limit" from "more".
		return b, false, nil
	}
	return b, true, nil
}

// isEventStream reports whether h announces a server-sent event stream.
func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// hopHeaders are the hop-by-hop headers of RFC 9110 section 7.6.1, plus
// the legacy ones proxies drop.
func hopHeaders() []string {
	return []string{
		"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
		"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
	}
}

// removeHopHeaders deletes the hop-by-hop headers of h, including those
// its Connection header names.
func removeHopHeaders(h http.Header) {
	for _, v := range h["Connection"] {
		for name := range strings.SplitSeq(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopHeaders() {
		h.Del(name)
	}
}

// writeError answers res.status with an OpenAI-style JSON error the proxy
// made up itself (never one relayed from upstream).
func writeError(w http.ResponseWriter, res *result, typ, code, msg string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set(HeaderProxy, "1")
	h.Set(HeaderAttempts, strconv.Itoa(res.attempts))
	w.WriteHeader(res.status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "code": code, "param": nil,
	}})
}
