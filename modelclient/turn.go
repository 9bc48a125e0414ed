package modelclient

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/transport"
)

// TurnOptions configure a [Turn].
type TurnOptions struct {
	// Settings are the turn's model settings, sent with each of its
	// requests.
	Settings Settings
	// Connection turns the connection layer on: a sampling request that
	// cannot connect is retried (5 s doubling to 60 s) without spending
	// the stream budget, until ConnectionMaxWait is waited in all (zero:
	// until ctx ends).
	Connection        bool
	ConnectionMaxWait time.Duration
	// Wake ends a retry wait of the turn early (a person asked to retry
	// now: the chat's Ctrl+R); nil: no wait is cut short.
	Wake *retry.Waker
	// Window is the turn's time bound, shared with its continuations
	// (the session's); nil: a window of the turn's own, of the provider's
	// RetryMaxWait ([Client.NewWindow]).
	Window *retry.Window
}

// Turn is one turn's use of a [Client]: the per-turn session the client
// hands out ([Client.NewTurn]). It owns the turn's retry budgets, its
// request count, its WebSocket chain (what the last completed request
// established, for previous_response_id); what outlives
// the turn (the transport choice, the sticky fallback, the cached
// connection, credentials and 401 recovery) stays on the Client. A Turn
// is not safe for concurrent use: its requests run one after another.
type Turn struct {
	c    *Client
	opts TurnOptions
	// sleep is the client's sleep, woken by opts.Wake.
	sleep retry.Sleeper

	stream, overload, connection *retry.Budget
	byClass                      map[string]int
	// spent says a sampling request failed retryably since the last
	// success: the next one is a single attempt.
	spent    bool
	requests int
	// chain is the last completed WebSocket request, the one the next
	// request may extend; it starts as the client's cached one.
	chain *wsLast
	// window bounds the time a failure is retried (opts.Window).
	window *retry.Window
	// unhold opens the gate this turn closed ([gate.Gate.Hold]) on an
	// answer asking the account to slow down, once its cooldown begins;
	// nil: none held.
	unhold func()
}

// hold closes the gate at once when err asks the account to slow down
// (a rate limit, an overload): until this turn's cooldown begins, no
// other request sharing the gate goes out.
func (t *Turn) hold(err error) {
	if err == nil || !Classify(err).Cooldown() || t.unhold != nil {
		return
	}
	t.unhold = t.c.opts.Gate.Hold()
}

// releaseHold opens what [Turn.hold] closed.
func (t *Turn) releaseHold() {
	if t.unhold != nil {
		t.unhold()
		t.unhold = nil
	}
}

// NewWindow returns a closed time bound of the provider's RetryMaxWait
// ([retry] max_wait_ms), for a turn and its continuations to share.
func (c *Client) NewWindow() *retry.Window {
	return &retry.Window{Bound: c.opts.Provider.RetryMaxWait}
}

// Window is the turn's time bound.
func (t *Turn) Window() *retry.Window { return t.window }

// NewTurn returns a turn with fresh budgets. A sampling request that
// succeeds renews them for the next one (a tool follow-up), and one that
// failed does not, so a turn continued after its budgets ran out gets one
// request per continuation, never a fresh nested budget.
func (c *Client) NewTurn(o TurnOptions) *Turn {
	t := &Turn{
		c:        c,
		opts:     o,
		sleep:    o.Wake.Sleeper(c.opts.Sleep),
		stream:   retry.NewBudget(LayerStream, c.opts.Provider.StreamMaxRetries, 0),
		overload: retry.NewBudget(LayerOverload, c.Policy(provider.ClassOverloaded).MaxRetries, 0),
		byClass:  map[string]int{},
		chain:    c.cache.get(),
		window:   o.Window,
	}
	if t.window == nil {
		t.window = c.NewWindow()
	}
	if o.Connection {
		t.connection = retry.NewBudget(LayerConnection, -1, o.ConnectionMaxWait)
	}
	return t
}

// Requests is the number of requests (POSTs and WebSocket handshakes or
// messages) the turn has sent.
func (t *Turn) Requests() int { return t.requests }

func (t *Turn) renew() {
	t.stream.Reset()
	t.overload.Reset()
	if t.connection != nil {
		t.connection.Reset()
	}
	clear(t.byClass)
	t.spent = false
	t.window.Close()
}

// Sampling is what [Turn.Sample] needs from its caller.
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

// decodeRetries is the counter, among the per-class ones, of retries of a
// final event that could not be decoded.
const decodeRetries = "decode"

// Sample runs one sampling request under every layer the model client
// owns: the HTTP layer inside each attempt, then the stream layer (with
// its overload schedule and the connection layer) around whole attempts,
// and the sticky WebSocket-to-HTTPS fallback. Budgets are the turn's; a
// request made while they are spent (a continuation of a failed turn) is
// one attempt, with no retry at any layer. It returns nil once a stream
// completed, else the one [*Outcome] of the request.
func (t *Turn) Sample(ctx context.Context, s Sampling) *Outcome {
	c := t.c
	single := t.spent // a continuation of requests whose budgets ran out
	d := retry.Driver{
		Decide: func(err error) retry.Decision { return t.decideStream(ctx, single, err, s.Fallback) },
		Wait:   t.wait,
		Notify: c.notify(ctx, "sampling", s.Retry),
	}
	defer t.releaseHold() // the request ends without waiting: nothing held
	_, err := retry.Do(ctx, d, func(ctx context.Context, n int) (struct{}, error) {
		st, err := t.open(ctx, s, single, n > 1 || single)
		if err != nil {
			return struct{}{}, err
		}
		defer st.Close()
		err = classified(c.eventLimit(s.Consume(ctx, st)), c.opts.Now)
		t.hold(err)
		return struct{}{}, err
	})
	if err == nil {
		t.renew()
		return nil
	}
	o := OutcomeOf(err)
	if o.Failure.Retryable() {
		t.spent = true // a request failed after its budgets: the next is one attempt
	}
	return o
}

// decideStream is the stream layer's judgement of a failed attempt.
func (t *Turn) decideStream(ctx context.Context, single bool, err error, fallback func(Fallback)) retry.Decision {
	c := t.c
	if o, ok := errors.AsType[*Outcome](err); ok && o.End == EndPaused {
		return retry.Decision{Final: o} // the HTTP layer spent the time bound
	}
	f := Classify(err)
	if !f.Retryable() || c.behindRetryingProxy(ctx, err) {
		return retry.Decision{}
	}

	pol := c.Policy(f.Class())
	if p := c.pause(f, pol); p != nil {
		return retry.Decision{Final: p}
	}
	if f.WebSocketUnavailable() && c.fallBackOn(ctx, err, false, fallback) {
		return retry.Decision{Again: true} // a close the transport caused (1009): HTTPS at once
	}
	if single {
		return retry.Decision{}
	}
	if f.Local != "" {
		// Nothing listens at this machine's address: a few quick tries
		// in case it is starting, then say so; waiting for the network
		// will not start it.
		if t.stream.Exhausted() {
			return retry.Decision{Final: gaveUp(err, f.Advice)}
		}
		return fit(t.window, retry.Decision{Budget: t.stream, Delay: c.delay(f, pol, t.stream.Spent()+1)}, f, err)
	}
	if f.Unreachable() && t.connection != nil && !c.WebSocketActive() {
		if t.connection.Exhausted() {
			return retry.Decision{Final: gaveUp(err, gaveUpWaiting(t.connection.Waited()))}
		}
		return retry.Decision{Budget: t.connection, Delay: retry.ConnectionDelay(t.connection.Spent() + 1)}
	}
	var de *transport.DecodeError
	if errors.As(err, &de) {
		// The final event could not be decoded: once more may be a
		// glitch, twice is the server's way of answering.
		if t.byClass[decodeRetries] > 0 {
			return retry.Decision{Final: gaveUp(err, undecodable)}
		}
		t.byClass[decodeRetries]++
	}
	if f.Behaviour().Overload {
		return fit(t.window, retry.Decision{Budget: t.overload, Delay: c.delay(f, pol, t.overload.Spent()+1)}, f, err)
	}
	if t.stream.Exhausted() || !pol.Allows(t.byClass[f.Class()]+1, -1) {
		// The stream budget ran out on WebSocket: switch the session to
		// HTTPS, renew the counter and send the same prompt again. A
		// failed credential recovery or a rate limit says nothing about
		// the transport.
		if c.fallBackOn(ctx, err, true, fallback) {
			t.stream.Reset()
			clear(t.byClass)
			return retry.Decision{Again: true}
		}
		return retry.Decision{}
	}
	dec := fit(t.window, retry.Decision{Budget: t.stream, Delay: c.delay(f, pol, t.stream.Spent()+1)}, f, err)
	if dec.Budget != nil {
		t.byClass[f.Class()]++
	}
	return dec
}

// open is the HTTP layer: it sends one sampling request, retrying what
// failed before the first byte within request_max_retries (none when
// single). Headers are rebuilt on every attempt. A WebSocket handshake
// refused as unavailable (426, or an answer from something that does not
// upgrade) switches the session to HTTPS at once; a 401 runs the
// credentials' recovery; neither spends a budget. Other handshake
// failures, 429 and overload are left to the stream layer.
func (t *Turn) open(ctx context.Context, s Sampling, single, resend bool) (transport.Stream, error) {
	c := t.c
	budget := retry.NewBudget(LayerHTTP, c.opts.Provider.RequestMaxRetries, 0)
	if single {
		budget.Max = 0
	}
	if c.wireErr != nil { // a wire_api agent does not speak: nothing is sent
		return nil, c.wireErr
	}
	p := s.Prompt()
	var body [][]byte
	l := &httpLayer{c: c, budget: budget, fallback: s.Fallback, connection: t.connection != nil, window: t.window}
	d := retry.Driver{Wait: t.wait, Notify: c.notify(ctx, "request", s.Retry), Decide: l.decide(ctx)}
	return retry.Do(ctx, d, func(ctx context.Context, n int) (transport.Stream, error) {
		release, err := c.opts.Gate.Enter(ctx, resend || n > 1)
		if err != nil {
			return nil, err
		}
		defer release() // the attempt is decided: a long stream holds no slot
		h, err := t.header(ctx)
		if err != nil {
			return nil, classified(err, c.opts.Now)
		}
		l.sent = h
		tr, req, wrap, err := t.transportFor(p, h, &body)
		if err != nil {
			return nil, err
		}
		t.requests++
		start := c.opts.Now()
		st, err := tr.Open(ctx, req)
		c.observe(ctx, n, start, err)
		if err != nil {
			err = classified(err, c.opts.Now)
			t.hold(err) // before the gate is left: nothing slips out before the cooldown
			return nil, err
		}
		if wrap != nil {
			st = wrap(st)
		}
		return st, nil
	})
}

// wait is the client's wait before a retry ([Client.wait]) on the
// turn's wakeable sleep.
func (t *Turn) wait(ctx context.Context, w retry.Wait) error {
	if t.unhold == nil {
		return t.c.backoff(ctx, w, t.sleep)
	}
	defer t.releaseHold()
	return t.c.backoff(ctx, w, func(ctx context.Context, d time.Duration) error {
		t.releaseHold() // the cooldown has begun: it holds the gate now
		return t.sleep(ctx, d)
	})
}

// header is the client's headers for one attempt.
func (t *Turn) header(ctx context.Context) (http.Header, error) { return t.c.header(ctx) }
