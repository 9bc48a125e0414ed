package modelclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentcli/agent/provider"
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
	return Retry{Layer: w.Layer, Class: f.Class, Attempt: w.Attempt, Max: w.Max, Left: w.Left,
		Delay: w.Delay, Waited: w.Waited, MaxWait: w.MaxWait, Failure: f}
}

// Budgets are the retry budgets of a turn's sampling requests. A turn
// creates one ([Client.NewBudgets]) and passes it to every [Client.Sample]
// call: a sampling request that succeeds renews them for the next one (a
// tool follow-up), and one that failed does not, so a turn continued after
// its budgets ran out gets one request per continuation, never a fresh
// nested budget. Budgets also count the turn's requests.
type Budgets struct {
	stream, overload, connection *retry.Budget
	byClass                      map[string]int
	spent                        bool // a sampling request failed retryably since the last success
	requests                     int
}

// NewBudgets returns fresh budgets for one turn. The connection layer is
// on when connection is set; maxWait bounds its total wait (zero: until
// the turn is cancelled).
func (c *Client) NewBudgets(connection bool, maxWait time.Duration) *Budgets {
	b := &Budgets{
		stream:   retry.NewBudget(LayerStream, c.opts.Provider.StreamMaxRetries, 0),
		overload: retry.NewBudget(LayerOverload, c.Policy(provider.ClassOverloaded).MaxRetries, 0),
		byClass:  map[string]int{},
	}
	if connection {
		b.connection = retry.NewBudget(LayerConnection, -1, maxWait)
	}
	return b
}

// Requests is the number of requests (POSTs and WebSocket handshakes or
// messages) the turn has sent.
func (b *Budgets) Requests() int { return b.requests }

func (b *Budgets) renew() {
	b.stream.Reset()
	b.overload.Reset()
	if b.connection != nil {
		b.connection.Reset()
	}
	clear(b.byClass)
	b.spent = false
}

// Sampling is what [Client.Sample] needs from its caller.
type Sampling struct {
	// Prompt rebuilds the request from recorded history; it is called
	// before every attempt, so a retry carries what was recorded.
	Prompt func() *Prompt
	// Consume reads one open stream. It returns nil once
	// response.completed was seen, else why the attempt failed.
	Consume func(ctx context.Context, s transport.Stream) error
	// Retry hears about each retry (any layer) before its wait.
	Retry func(Retry)
	// Fallback hears about the switch from WebSocket to HTTPS.
	Fallback func(Fallback)
}

// PausedError is a failure whose server asked for a wait beyond what the
// failure's class allows: no request is made before Until. The turn
// pauses at once instead of retrying early.
type PausedError struct {
	// Until is when the server will take requests again.
	Until time.Time
	// Err is the classified failure.
	Err error
}

func (e *PausedError) Error() string {
	return fmt.Sprintf("the server asked to wait until %s: %v", e.Until.UTC().Format("15:04:05 MST"), e.Err)
}

func (e *PausedError) Unwrap() error { return e.Err }

// decodeRetries is the counter, among the per-class ones, of retries of a
// final event that could not be decoded.
const decodeRetries = "decode"

// GaveUpError is a retryable failure that more attempts are known not to
// cure: the connection layer's total wait (connection_max_wait) ran out,
// or the final event could not be decoded twice in a row. The turn ends
// and is not continued.
type GaveUpError struct {
	// Layer is LayerConnection (Waited says how long) or LayerStream (an
	// undecodable final event).
	Layer  string
	Waited time.Duration
	Err    error
}

func (e *GaveUpError) Error() string {
	if e.Layer == LayerConnection {
		return fmt.Sprintf("gave up after waiting %s for a connection: %v", e.Waited.Round(time.Second), e.Err)
	}
	return fmt.Sprintf("the final event could not be decoded twice in a row: %v", e.Err)
}

func (e *GaveUpError) Unwrap() error { return e.Err }

// Sample runs one sampling request under every layer the model client
// owns: the HTTP layer inside each attempt, then the stream layer (with
// its overload schedule and the connection layer) around whole attempts,
// and the sticky WebSocket-to-HTTPS fallback. Budgets are b's; a request
// made while b is already spent (a continuation of a failed turn) is one
// attempt, with no retry at any layer. The returned error is the last
// attempt's, classified ([Classify] reads it), or a [*PausedError].
func (c *Client) Sample(ctx context.Context, b *Budgets, s Sampling) error {
	single := b.spent // a continuation of requests whose budgets ran out
	d := retry.Driver{
		Decide: func(err error) retry.Decision { return c.decideStream(ctx, b, single, err, s.Fallback) },
		Wait:   c.wait,
		Notify: c.notify(ctx, "sampling", s.Retry),
	}
	_, err := retry.Do(ctx, d, func(ctx context.Context, n int) (struct{}, error) {
		st, err := c.open(ctx, b, s, single, n > 1 || single)
		if err != nil {
			return struct{}{}, err
		}
		defer st.Close()
		return struct{}{}, classified(s.Consume(ctx, st))
	})
	switch {
	case err == nil:
		b.renew()
	case Classify(err).Retryable:
		b.spent = true // a request failed after its budgets: the next is one attempt
	}
	return err
}

// decideStream is the stream layer's judgement of a failed attempt.
func (c *Client) decideStream(ctx context.Context, b *Budgets, single bool, err error, fallback func(Fallback)) retry.Decision {
	f := Classify(err)
	if !f.Retryable || c.behindRetryingProxy(ctx, err) {
		return retry.Decision{}
	}
	pol := c.Policy(f.Class)
	if p := c.pause(f, pol); p != nil {
		return retry.Decision{Final: p}
	}
	if single {
		return retry.Decision{}
	}
	if f.Kind == KindConnect && b.connection != nil && !c.WebSocketActive() {
		if b.connection.Exhausted() {
			return retry.Decision{Final: &GaveUpError{Layer: LayerConnection, Waited: b.connection.Waited(), Err: err}}
		}
		return retry.Decision{Budget: b.connection, Delay: retry.ConnectionDelay(b.connection.Spent() + 1)}
	}
	var de *transport.DecodeError
	if errors.As(err, &de) {
		// The final event could not be decoded: once more may be a
		// glitch, twice is the server's way of answering.
		if b.byClass[decodeRetries] > 0 {
			return retry.Decision{Final: &GaveUpError{Layer: LayerStream, Err: err}}
		}
		b.byClass[decodeRetries]++
	}
	if f.Class == provider.ClassOverloaded {
		return retry.Decision{Budget: b.overload, Delay: c.delay(f, pol, b.overload.Spent()+1)}
	}
	if b.stream.Exhausted() || !pol.Allows(b.byClass[f.Class]+1, -1) {
		// The stream budget ran out on WebSocket: switch the session to
		// HTTPS, renew the counter and send the same prompt again. A
		// failed credential recovery or a rate limit says nothing about
		// the transport.
		if c.fallBackOn(ctx, err, true, fallback) {
			b.stream.Reset()
			clear(b.byClass)
			return retry.Decision{Again: true}
		}
		return retry.Decision{}
	}
	b.byClass[f.Class]++
	return retry.Decision{Budget: b.stream, Delay: c.delay(f, pol, b.stream.Spent()+1)}
}

// pause returns the [*PausedError] of a failure whose server delay is
// beyond its class's cap, else nil.
func (c *Client) pause(f Failure, pol retry.Policy) error {
	if f.Delay <= 0 || pol.Max <= 0 || f.Delay <= pol.Max {
		return nil
	}
	return &PausedError{Until: c.opts.Now().Add(f.Delay), Err: f.Err}
}

// delay is the wait before retry n of f: the server's delay wins.
func (c *Client) delay(f Failure, pol retry.Policy, n int) time.Duration {
	if f.Delay > 0 {
		return pol.Cap(f.Delay)
	}
	return pol.Delay(n, c.opts.Rand())
}

// open is the HTTP layer: it sends one sampling request, retrying what
// failed before the first byte within request_max_retries (none when
// single). Headers are rebuilt on every attempt. A WebSocket handshake
// refused as unavailable (426, or an answer from something that does not
// upgrade) switches the session to HTTPS at once; a 401 runs the
// credentials' recovery; neither spends a budget. Other handshake
// failures, 429 and overload are left to the stream layer.
func (c *Client) open(ctx context.Context, b *Budgets, s Sampling, single, resend bool) (transport.Stream, error) {
	budget := retry.NewBudget(LayerHTTP, c.opts.Provider.RequestMaxRetries, 0)
	if single {
		budget.Max = 0
	}
	p := s.Prompt()
	var body []byte
	l := &httpLayer{c: c, budget: budget, fallback: s.Fallback}
	d := retry.Driver{Wait: c.wait, Notify: c.notify(ctx, "request", s.Retry), Decide: l.decide(ctx)}
	return retry.Do(ctx, d, func(ctx context.Context, n int) (transport.Stream, error) {
		release, err := c.enterGate(ctx, resend || n > 1)
		if err != nil {
			return nil, err
		}
		defer release() // the attempt is decided: a long stream holds no slot
		h, err := c.header(ctx)
		if err != nil {
			return nil, classified(err)
		}
		l.sent = h
		tr, req, wrap, err := c.transportFor(p, h, &body)
		if err != nil {
			return nil, err
		}
		b.requests++
		st, err := tr.Open(ctx, req)
		if err != nil {
			return nil, classified(err)
		}
		if wrap != nil {
			st = wrap(st)
		}
		return st, nil
	})
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
	// rateLimit retries 429 here too (a request with no stream layer
	// above it: compaction).
	rateLimit bool
}

func (l *httpLayer) decide(ctx context.Context) func(error) retry.Decision {
	c := l.c
	return func(err error) retry.Decision {
		f := Classify(err)
		if f.Kind == KindAuth && f.Status == http.StatusUnauthorized && c.opts.Auth != nil {
			again, aerr := c.recoverAuth(ctx, &l.auth, l.sent, f)
			if aerr != nil {
				return retry.Decision{Final: classified(&recoveryError{err: aerr})}
			}
			return retry.Decision{Again: again}
		}
		if c.fallBackOn(ctx, err, false, l.fallback) {
			return retry.Decision{Again: true}
		}
		if c.behindRetryingProxy(ctx, err) {
			return retry.Decision{} // the proxy spent its own budget on it
		}
		var he *transport.HandshakeError
		pol := c.Policy(f.Class)
		if !f.Retryable || errors.As(err, &he) || (f.Class == provider.ClassRateLimit && !l.rateLimit) ||
			f.Class == provider.ClassOverloaded || c.pause(f, pol) != nil {
			return retry.Decision{}
		}
		return retry.Decision{Budget: l.budget, Delay: c.delay(f, pol, l.budget.Spent()+1)}
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

// wait makes the wait before a retry, honouring ctx. With an
// [Options].Gate and a rate_limit or overloaded failure the wait is a
// cooldown of the whole gate: no client sharing it sends anything until
// the wait ends, so parallel jobs honour the provider's delay together.
func (c *Client) wait(ctx context.Context, w retry.Wait) error {
	if c.opts.Gate != nil {
		if cl := Classify(w.Err).Class; cl == provider.ClassRateLimit || cl == provider.ClassOverloaded {
			return c.opts.Gate.Cooldown(ctx, w.Delay, c.opts.Sleep)
		}
	}
	return c.opts.Sleep(ctx, w.Delay)
}

// Driver returns a [retry.Driver] on the client's clock for a caller's
// own layer (auto-continue): its retries are logged as operation and
// reported to notify (nil skips).
func (c *Client) Driver(ctx context.Context, operation string, decide func(error) retry.Decision, notify func(Retry)) retry.Driver {
	return retry.Driver{Decide: decide, Wait: c.wait, Notify: c.notify(ctx, operation, notify)}
}

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
