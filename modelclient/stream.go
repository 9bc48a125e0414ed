package modelclient

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

// Retry layers, as reported in [Retry] notices and logs.
const (
	LayerHTTP       = "http"
	LayerStream     = "stream"
	LayerConnection = "connection"
)

// Retry describes one retry that is about to wait.
type Retry struct {
	// Layer is LayerHTTP, LayerStream or LayerConnection.
	Layer string
	// Class is the failure's retry class.
	Class string
	// Attempt is the 1-based retry number within its layer and counter.
	Attempt int
	// Max is the budget of that counter; -1 means unbounded.
	Max int
	// Delay is the wait before the retry.
	Delay time.Duration
	// Failure is what went wrong.
	Failure Failure
}

// Reason is the failure's short description.
func (r Retry) Reason() string { return r.Failure.Reason() }

// RetryOn selects which failure classes the HTTP layer retries, as the
// reference client's RetryOn{retry_429, retry_5xx, retry_transport}.
// Overloaded answers are left to the stream layer's long schedule.
type RetryOn struct {
	RateLimit, ServerError, Transport bool
}

func (r RetryOn) covers(f Failure) bool {
	if !f.Retryable {
		return false
	}
	switch f.Class {
	case provider.ClassRateLimit:
		return r.RateLimit
	case provider.ClassServerError:
		return r.ServerError
	case provider.ClassTransport, provider.ClassIdle:
		return r.Transport
	}
	return false
}

// Hooks receive what happens inside [Client.Stream]. Nil fields are skipped.
type Hooks struct {
	// Retry hears about each HTTP-layer retry before its wait.
	Retry func(Retry)
	// Fallback hears about the switch from WebSocket to HTTPS.
	Fallback func(Fallback)
	// Resend marks the call as the re-send of a request that already
	// failed (a stream-layer retry): its first attempt, not only its
	// HTTP-layer retries, then takes a slot of [Options].Gate.
	Resend bool
}

// Stream sends p and returns the open event stream, over WebSocket while
// [Client.WebSocketActive], else over HTTPS (SSE). Failures before the
// first byte are retried within the provider's request_max_retries (the
// HTTP layer); the request and its headers are rebuilt on every attempt. A
// WebSocket handshake answered 426 (or by something that does not upgrade)
// switches the session to HTTPS at once, spending no budget. A 401 (on the
// POST or the handshake) runs the credentials' recovery ([Reloader], then
// [Refresher]), each step at most once per call, and retries at once,
// also spending no budget. With an [Options].Gate, every attempt first
// waits out the gate's cooldowns, and re-sends (see [Hooks].Resend) hold
// one of its slots until they are answered. The stream is
// bound to ctx; the caller must Close it. The last attempt's error is
// returned unchanged, for [Classify].
func (c *Client) Stream(ctx context.Context, p *Prompt, hooks Hooks) (transport.Stream, error) {
	var body []byte
	var auth authRecovery // 401 recovery: outside the budget, no wait
	budget := c.opts.Provider.RequestMaxRetries
	for n := 1; ; n++ {
		release, err := c.enterGate(ctx, hooks.Resend || n > 1)
		if err != nil {
			return nil, err
		}
		h, err := c.header(ctx)
		if err != nil {
			release()
			return nil, err
		}
		var s transport.Stream
		if c.WebSocketActive() {
			s, err = c.openWS(ctx, p, h)
			if err != nil && wsUnavailable(err) {
				release()
				reason := Classify(err).Reason()
				if c.FallBack(ctx, reason) && hooks.Fallback != nil {
					hooks.Fallback(Fallback{Reason: reason})
				}
				n--
				continue
			}
		} else {
			if body == nil {
				if body, err = c.Body(p); err != nil {
					release()
					return nil, err
				}
			}
			s, err = c.transport.Open(ctx, &transport.Request{URL: c.url, Header: h, Body: body})
		}
		release() // the attempt is decided: a long stream holds no slot
		if err == nil {
			return s, nil
		}
		f := Classify(err)
		if f.Kind == KindAuth && f.Status == http.StatusUnauthorized && c.opts.Auth != nil {
			retry, aerr := c.recoverAuth(ctx, &auth, h, f)
			if aerr != nil {
				return nil, fmt.Errorf("recover from 401: %w", aerr)
			}
			if retry {
				n--
				continue
			}
		}
		pol := c.Policy(f.Class)
		if !c.opts.RetryOn.covers(f) || !pol.Allows(n, budget) {
			return nil, err
		}
		r := Retry{Layer: LayerHTTP, Class: f.Class, Attempt: n, Max: budget, Failure: f}
		if f.Delay > 0 {
			r.Delay = pol.Cap(f.Delay)
		} else {
			r.Delay = pol.Delay(n, c.opts.Rand())
		}
		c.LogRetry(ctx, "request", r)
		if hooks.Retry != nil {
			hooks.Retry(r)
		}
		if err := c.Backoff(ctx, r); err != nil {
			return nil, err
		}
	}
}

// enterGate passes [Options].Gate before an attempt: a re-send takes a
// slot, to give back once the attempt is decided; a first attempt only
// waits out cooldowns. Without a gate it returns at once.
func (c *Client) enterGate(ctx context.Context, resend bool) (release func(), err error) {
	if resend {
		return c.opts.Gate.Acquire(ctx)
	}
	return func() {}, c.opts.Gate.Wait(ctx)
}

// Backoff waits r.Delay before retry r, honouring ctx. With an
// [Options].Gate and a rate_limit or overloaded failure the wait is a
// cooldown of the whole gate: no client sharing it sends anything until
// the wait ends, so parallel jobs honour the provider's delay together.
func (c *Client) Backoff(ctx context.Context, r Retry) error {
	if c.opts.Gate != nil && (r.Class == provider.ClassRateLimit || r.Class == provider.ClassOverloaded) {
		return c.opts.Gate.Cooldown(ctx, r.Delay, c.opts.Sleep)
	}
	return c.opts.Sleep(ctx, r.Delay)
}

// LogRetry writes the one structured log line a retry gets.
func (c *Client) LogRetry(ctx context.Context, operation string, r Retry) {
	c.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "retry",
		slog.String("layer", r.Layer),
		slog.String("operation", operation),
		slog.String("class", r.Class),
		slog.Int("attempt", r.Attempt),
		slog.Int("max", r.Max),
		slog.Int64("delay_ms", r.Delay.Milliseconds()),
		slog.Int("status", r.Failure.Status),
		slog.String("request_id", r.Failure.RequestID),
		slog.String("reason", r.Reason()),
		slog.String("provider", c.opts.Provider.ID),
	)
}
