package proxy

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentcli/agent/modelclient"
)

// Stats are the proxy's counters since it started. Finished requests are
// counted once each, when they end; the stats endpoint itself is not
// counted.
type Stats struct {
	// Requests is the number of finished requests; OK + Failed +
	// ClientGone.
	Requests int64 `json:"requests"`
	// OK counts requests relayed with a status below 400 whose body, if
	// streamed, arrived whole.
	OK int64 `json:"ok"`
	// Failed counts the failures: an error status relayed, an upstream
	// that could not be reached, a stream broken (or ended early) by the
	// upstream after the commit, a request answered 503 at shutdown. A
	// stream relayed up to its final event (response.completed) is OK
	// even when the client then closes the connection without waiting
	// for the end of the body.
	Failed int64 `json:"failed"`
	// FailedAfterCommit counts the failures of a stream cut after its
	// first bytes were relayed: the proxy could not retry them (the
	// client saw part of the answer), the client's own retries must.
	FailedAfterCommit int64 `json:"failed_after_commit"`
	// Retries is the number of re-sends.
	Retries int64 `json:"retries"`
	// RetrySuccesses counts OK requests that needed at least one retry.
	RetrySuccesses int64 `json:"retry_successes"`
	// ClientGone counts requests whose client went away before its answer
	// ended: it hung up, or stopped reading for WriteTimeout and was cut
	// off. They are not upstream failures; their upstream request was
	// cancelled.
	ClientGone int64 `json:"client_gone"`
	// ByClass breaks retries and failures down by retry class
	// (transport, server_error, rate_limit, overloaded, idle); failures
	// that are not retryable are under their kind (auth,
	// invalid_request, ...).
	ByClass map[string]ClassStats `json:"by_class"`
	// InFlight is the number of requests being handled now.
	InFlight int64 `json:"in_flight"`
	// Retrying is the number of re-sends holding a gate slot now.
	Retrying int64 `json:"retrying"`
	// Waiting is the number of requests the gate holds now: re-sends
	// waiting for a slot, any request waiting out a cooldown.
	Waiting int64 `json:"waiting"`
}

// ClassStats are the counters of one class or kind.
type ClassStats struct {
	// Retries counts re-sends after a failure of this class.
	Retries int64 `json:"retries"`
	// Failures counts requests whose final failure was of this class
	// or kind.
	Failures int64 `json:"failures"`
}

// counters accumulates [Stats].
type counters struct {
	inFlight atomic.Int64

	mu sync.Mutex
	s  Stats
}

func newCounters() *counters {
	return &counters{s: Stats{ByClass: map[string]ClassStats{}}}
}

func (c *counters) retry(class string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.s.Retries++
	cs := c.s.ByClass[class]
	cs.Retries++
	c.s.ByClass[class] = cs
}

// finish counts a finished request and returns the new request count.
func (c *counters) finish(ok, gone, committed bool, attempts int, key string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.s.Requests++
	switch {
	case gone:
		c.s.ClientGone++
	case ok:
		c.s.OK++
		if attempts > 1 {
			c.s.RetrySuccesses++
		}
	default:
		c.s.Failed++
		if committed {
			c.s.FailedAfterCommit++
		}
		cs := c.s.ByClass[key]
		cs.Failures++
		c.s.ByClass[key] = cs
	}
	return c.s.Requests
}

// Stats returns a snapshot of the counters. It is safe for concurrent use.
func (p *Proxy) Stats() Stats {
	p.stats.mu.Lock()
	s := p.stats.s
	s.ByClass = maps.Clone(s.ByClass)
	p.stats.mu.Unlock()
	s.InFlight = p.stats.inFlight.Load()
	gs := p.gate.Stats()
	s.Retrying, s.Waiting = int64(gs.Resending), int64(gs.Waiting)
	return s
}

func (p *Proxy) serveStats(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set(HeaderProxy, "1")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(p.Stats())
}

// result is what one request came to, for its log line and the counters.
type result struct {
	id       int64
	method   string
	path     string
	start    time.Time
	attempts int
	// status is the status sent to the client, 0 if none was.
	status int
	// failure is the final classified failure, Err == nil if none.
	failure modelclient.Failure
	// streamErr ended the relay of a committed answer early.
	streamErr error
	// final says the relayed stream carried its final event
	// (response.completed, failed or incomplete): what came after it, a
	// client closing at once included, does not make the request fail.
	final bool
	// gone says why the client went away before the answer ended
	// (goneClosed, goneStalled), "" if it did not.
	gone string
}

// Why a client went away, the reason of a GONE line.
const (
	goneClosed  = "closed"  // it hung up
	goneStalled = "stalled" // it stopped reading for WriteTimeout and was cut off
)

// finish logs the request's line (OK, FAILED or GONE), counts it, and
// every StatsEvery requests logs a STATS line.
func (p *Proxy) finish(res *result) {
	if res.gone != "" && !res.final {
		p.finishGone(res)
		return
	}
	f := res.failure
	if f.Err == nil && res.streamErr != nil && !res.final {
		f = modelclient.Classify(res.streamErr)
	}
	committed := f.Err != nil && res.streamErr != nil && !res.final
	ok := f.Err == nil && res.status > 0 && res.status < http.StatusBadRequest
	if f.Err == nil && !ok {
		f = modelclient.ClassifyResponse(res.status, nil, nil, modelclient.Keywords{})
	}
	attrs := []slog.Attr{
		slog.Int64("id", res.id),
		slog.String("method", res.method),
		slog.String("path", res.path),
		slog.Int("status", res.status),
		slog.Int("attempts", res.attempts),
		slog.Duration("duration", time.Since(res.start).Round(time.Millisecond)),
	}
	key := f.Class()
	if key == "" {
		key = f.Kind.String()
	}
	msg := "OK"
	if !ok {
		msg = "FAILED"
		attrs = append(attrs, slog.String("kind", f.Kind.String()), slog.String("class", f.Class()),
			slog.String("code", f.Code), slog.Bool("committed", committed))
	}
	ctx := context.Background()
	p.opts.Logger.LogAttrs(ctx, slog.LevelInfo, msg, attrs...)
	if !ok && f.Message != "" {
		// The server's message comes from a response body: only at debug.
		p.opts.Logger.LogAttrs(ctx, slog.LevelDebug, "FAILED detail", slog.Int64("id", res.id), slog.String("message", f.Message))
	}
	p.count(ctx, ok, false, committed, res.attempts, key)
}

// finishGone logs and counts a request whose client went away: a GONE
// line, apart from the upstream's failures.
func (p *Proxy) finishGone(res *result) {
	ctx := context.Background()
	p.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "GONE",
		slog.Int64("id", res.id),
		slog.String("method", res.method),
		slog.String("path", res.path),
		slog.Int("status", res.status),
		slog.Int("attempts", res.attempts),
		slog.Duration("duration", time.Since(res.start).Round(time.Millisecond)),
		slog.String("reason", res.gone),
		slog.Bool("committed", res.status > 0),
	)
	p.count(ctx, false, true, false, res.attempts, "")
}

// count adds a finished request to the counters and every StatsEvery
// requests logs a STATS line.
func (p *Proxy) count(ctx context.Context, ok, gone, committed bool, attempts int, key string) {
	n := p.stats.finish(ok, gone, committed, attempts, key)
	if every := int64(p.opts.StatsEvery); every > 0 && n%every == 0 {
		p.logStats(ctx)
	}
}

// logRetry logs the RETRY line of retry n of res after failure f.
func (p *Proxy) logRetry(ctx context.Context, res *result, n int, delay time.Duration, f modelclient.Failure) {
	p.stats.retry(f.Class())
	p.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "RETRY",
		slog.Int64("id", res.id),
		slog.String("path", res.path),
		slog.Int("retry", n),
		slog.Int("max", p.opts.MaxRetries),
		slog.Duration("delay", delay),
		slog.String("class", f.Class()),
		slog.String("kind", f.Kind.String()),
		slog.Int("status", f.Status),
		slog.String("code", f.Code),
	)
	if f.Message != "" {
		p.opts.Logger.LogAttrs(ctx, slog.LevelDebug, "RETRY detail", slog.Int64("id", res.id), slog.String("message", f.Message))
	}
}

func (p *Proxy) logStats(ctx context.Context) {
	s := p.Stats()
	attrs := []slog.Attr{
		slog.Int64("requests", s.Requests),
		slog.Int64("ok", s.OK),
		slog.Int64("failed", s.Failed),
		slog.Int64("failed_after_commit", s.FailedAfterCommit),
		slog.Int64("retries", s.Retries),
		slog.Int64("retry_successes", s.RetrySuccesses),
		slog.Int64("client_gone", s.ClientGone),
	}
	for _, k := range slices.Sorted(maps.Keys(s.ByClass)) {
		cs := s.ByClass[k]
		attrs = append(attrs, slog.Group(k, slog.Int64("retries", cs.Retries), slog.Int64("failures", cs.Failures)))
	}
	p.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "STATS", attrs...)
}
