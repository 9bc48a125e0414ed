package modelclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/transport"
)

// Retry layers, as reported in [Retry] notices and logs. Every retry
// spends the budget of exactly one of them.
const (
	// LayerHTTP retries a request that failed before its first byte
	// (request_max_retries): 5xx, timeouts, connect and network errors.
	LayerHTTP = "http"
	// LayerStream retries the whole sampling request (stream_max_retries):
	// cut or failed streams, WebSocket handshakes, 429 and overload.
	LayerStream = "stream"
	// LayerOverload is the stream layer's separate, long schedule for a
	// model at capacity.
	LayerOverload = "overload"
	// LayerConnection retries a sampling request that cannot connect, up
	// to a total wait (unbounded in the chat).
	LayerConnection = "connection"
)

// Retry describes one retry that is about to wait: which budget it spends
// and what is left of it.
type Retry struct {
	// Layer is the budget spent: LayerHTTP, LayerStream, LayerOverload,
	// LayerConnection, or a caller's ("continue", "compact").
	Layer string
	// Class is the failure's retry class.
	Class string
	// Attempt is the 1-based retry number within its budget (retries
	// spent, this one included).
	Attempt int
	// Max is the budget's count; -1 means unbounded.
	Max int
	// Left is the number of retries still allowed after this one; -1
	// means unbounded (MaxWait may still end it).
	Left int
	// Delay is the wait before the retry.
	Delay time.Duration
	// Waited is the budget's total wait, this one included; MaxWait its
	// bound (zero: none).
	Waited, MaxWait time.Duration
	// Failure is what went wrong.
	Failure Failure
}

// Reason is the failure's short description.
func (r Retry) Reason() string { return r.Failure.Reason() }

// RetryOf turns a driver wait into the [Retry] notice of the failure it
// retries.
func RetryOf(w retry.Wait) Retry {
	f := Classify(w.Err)
	return Retry{Layer: w.Layer, Class: f.Class(), Attempt: w.Attempt, Max: w.Max, Left: w.Left,
		Delay: w.Delay, Waited: w.Waited, MaxWait: w.MaxWait, Failure: f}
}

// pause returns the [EndWait] outcome of a failure whose server delay
// is beyond its class's cap, else nil.
func (c *Client) pause(f Failure, pol retry.Policy) *Outcome {
	if !pol.Pauses(f.Delay) {
		return nil
	}
	return &Outcome{Failure: f, End: EndWait, Until: c.opts.Now().Add(f.Delay)}
}

// delay is the wait before retry n of f: the server's delay wins.
func (c *Client) delay(f Failure, pol retry.Policy, n int) time.Duration {
	return pol.Backoff(n, f.Delay, c.opts.Rand)
}

// fit is dec within the turn's time bound w: its wait shortened to end
// inside it (a wait the server named is kept), or, when no retry fits
// any more, the turn paused ([EndPaused], not continued by itself),
// naming the bound and how to wait longer.
func fit(w *retry.Window, dec retry.Decision, f Failure, err error) retry.Decision {
	if dec.Budget == nil || dec.Budget.Exhausted() {
		return dec
	}
	d, ok := w.Fit(dec.Delay, f.Delay > 0)
	if !ok {
		return retry.Decision{Final: &Outcome{Failure: Classify(err), End: EndPaused, Reason: GaveUpBound(w)}}
	}
	dec.Delay = d
	return dec
}

// GaveUpBound is the reason of a turn whose failure outlasted its time
// bound w ([retry] max_wait_ms): the one message naming the bound and
// how to wait longer.
func GaveUpBound(w *retry.Window) string {
	return fmt.Sprintf("gave up after waiting %s in all to retry, the bound of [retry] max_wait_ms = %d "+
		"(raise it in config.toml, or pass -c retry.max_wait_ms=%d, to wait longer)",
		w.Waited().Round(time.Second), w.Bound.Milliseconds(), 4*w.Bound.Milliseconds())
}

// recoveryError is a 401 recovery that failed: the request ends with it.
type recoveryError struct{ err error }

func (e *recoveryError) Error() string { return "recover from 401: " + e.err.Error() }
func (e *recoveryError) Unwrap() error { return e.err }

// httpLayer is the judgement of the HTTP layer over one request's
// attempts: the budget it spends and the 401 recovery it runs.
type httpLayer struct {
	c        *Client
	budget   *retry.Budget
	auth     authRecovery
	sent     http.Header // the headers of the last attempt
	fallback func(Fallback)
	// alone says no stream layer is above (compaction): the classes
	// the stream layer alone retries are retried here, but for the
	// overload schedule.
	alone bool
	// connection says the connection layer is on above: connect failures
	// over HTTPS are its alone, so every wait for a connection counts
	// against connection_max_wait.
	connection bool
	// window is the turn's time bound (nil: none, as for compaction).
	window *retry.Window
}

func (l *httpLayer) decide(ctx context.Context) func(error) retry.Decision {
	c := l.c
	return func(err error) retry.Decision {
		f := Classify(err)
		if f.Kind == KindAuth && f.Status == http.StatusUnauthorized && c.opts.Auth != nil {
			again, aerr := c.recoverAuth(ctx, &l.auth, l.sent, f)
			if aerr != nil {
				return retry.Decision{Final: classified(&recoveryError{err: aerr}, c.opts.Now)}
			}
			return retry.Decision{Again: again}
		}
		if c.fallBackOn(ctx, err, false, l.fallback) {
			return retry.Decision{Again: true}
		}
		if c.behindRetryingProxy(ctx, err) {
			return retry.Decision{} // the proxy spent its own budget on it
		}
		if f.Unreachable() && l.connection && !c.WebSocketActive() {
			return retry.Decision{}
		}
		var he *transport.HandshakeError
		pol, does := c.Policy(f.Class()), f.Behaviour()
		here := does.HTTP || (l.alone && !does.Overload)
		if !f.Retryable() || !here || errors.As(err, &he) || c.pause(f, pol) != nil {
			return retry.Decision{}
		}
		return fit(l.window, retry.Decision{Budget: l.budget, Delay: c.delay(f, pol, l.budget.Spent()+1)}, f, err)
	}
}

// wait makes the wait before a retry, honouring ctx. With an
// [Options].Gate and a failure that asks the account to slow down
// ([Failure.Cooldown]) the wait is a cooldown of the whole gate: no client
// sharing it sends anything until the wait ends, so parallel jobs honour
// the provider's delay together.
func (c *Client) wait(ctx context.Context, w retry.Wait) error {
	return c.backoff(ctx, w, c.opts.Sleep)
}

// backoff is wait on sleep.
func (c *Client) backoff(ctx context.Context, w retry.Wait, sleep retry.Sleeper) error {
	return c.opts.Gate.Backoff(ctx, w.Delay, Classify(w.Err).Cooldown(), sleep)
}

// Cooldown reports whether f asks the whole account to slow down (a rate
// limit, an overloaded model: the retry policy table's
// [provider.ClassBehaviour].Cooldown): its retry wait is a cooldown of the
// retry gate.
func (f Failure) Cooldown() bool { return f.Behaviour().Cooldown }

// notify returns the driver's notice hook: one log line, then report.
func (c *Client) notify(ctx context.Context, operation string, report func(Retry)) func(retry.Wait) {
	return func(w retry.Wait) {
		r := RetryOf(w)
		c.LogRetry(ctx, operation, r)
		if report != nil {
			report(r)
		}
	}
}

// LogRetry writes the one structured log line a retry gets.
func (c *Client) LogRetry(ctx context.Context, operation string, r Retry) {
	c.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "retry",
		slog.String("layer", r.Layer),
		slog.String("operation", operation),
		slog.String("class", r.Class),
		slog.Int("attempt", r.Attempt),
		slog.Int("max", r.Max),
		slog.Int("left", r.Left),
		slog.Int64("delay_ms", r.Delay.Milliseconds()),
		slog.Int64("waited_ms", r.Waited.Milliseconds()),
		slog.Int("status", r.Failure.Status),
		slog.String("request_id", r.Failure.RequestID),
		slog.String("reason", r.Reason()),
		slog.String("provider", c.opts.Provider.ID),
	)
}

// behindRetryingProxy reports whether err is an answer a retrying proxy
// (agent proxy) gave after its own retries. Such a failure is not retried
// here, in neither the HTTP nor the stream layer: the proxy owns the
// retries before the stream, so the two never multiply. A stream the
// proxy relayed and that broke later is still retried by the stream
// layer. The first such answer is logged once.
func (c *Client) behindRetryingProxy(ctx context.Context, err error) bool {
	if !transport.RetriedByProxy(err) {
		return false
	}
	if c.proxied.CompareAndSwap(false, true) {
		c.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "behind a retrying proxy: its answers are final before the stream",
			slog.String("provider", c.opts.Provider.ID))
	}
	return true
}

// eventLimit classifies an event larger than the limit with advice naming
// the client's provider's key; other errors are returned as they are.
func (c *Client) eventLimit(err error) error {
	var tooLarge *transport.EventTooLargeError
	if !errors.As(err, &tooLarge) {
		return err
	}
	id := c.opts.Provider.ID
	advice := fmt.Sprintf("raise model_providers.%s.stream_max_event_bytes in config.toml (now %d), or pass -c model_providers.%s.stream_max_event_bytes=%d",
		id, tooLarge.Limit, id, 2*tooLarge.Limit)
	return &classifiedError{f: Failure{Kind: KindPermanent, Message: err.Error(), Advice: advice, Err: err}}
}
