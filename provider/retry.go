package provider

import "time"

// Retry classes: every retryable failure falls into exactly one, and each has
// its own [ClassPolicy] and [ClassBehaviour]. The classifier in modelclient
// assigns them.
const (
	// ClassTransport: connect failures, resets, a stream closed before
	// response.completed.
	ClassTransport = "transport"
	// ClassServerError: 5xx answers and retryable server-side stream errors.
	ClassServerError = "server_error"
	// ClassRateLimit: 429 and rate_limit_exceeded (not quota or usage limits).
	ClassRateLimit = "rate_limit"
	// ClassOverloaded: the model is at capacity (server_is_overloaded,
	// slow_down, 529); retried on its own long schedule.
	ClassOverloaded = "overloaded"
	// ClassIdle: a stream that stopped delivering data or progress.
	ClassIdle = "idle"
)

// ClassPolicy is the retry policy of one class: its schedule, which the
// configuration may tune ([retry.<class>]).
type ClassPolicy struct {
	// MaxRetries caps the retries of this class within a turn; -1 means the
	// layer's budget (request_max_retries or stream_max_retries) alone applies.
	MaxRetries int
	// BaseDelay is the first backoff delay; later ones double.
	BaseDelay time.Duration
	// MaxDelay caps every delay of this class, server hints included.
	MaxDelay time.Duration
	// Jitter scales each delay by U(1-Jitter, 1+Jitter); for a class on the
	// overload schedule ([ClassBehaviour].Overload) by U(1, 1+Jitter), so a
	// crowd never comes back early.
	Jitter float64
	// Delays is a fixed schedule (overloaded only); nil elsewhere.
	Delays []time.Duration
}

// ClassBehaviour is what a retry class does besides its schedule: which
// layers retry it and what its waits mean. Every layer asks it rather than
// naming a class; it is not configurable. The zero value is a class with
// no retry layer of its own and no special meaning.
type ClassBehaviour struct {
	// HTTP: the HTTP layer retries it before the first byte
	// (request_max_retries), the stream layer after. Otherwise only the
	// stream layer does, resending the whole request; a request with no
	// stream layer above it (compaction) retries such a class in its
	// HTTP layer, unless it is on the overload schedule.
	HTTP bool
	// Overload: the stream layer retries it on the overload schedule, a
	// budget of its own (the class's MaxRetries, layer "overload") with a
	// jitter that only lengthens delays; never the HTTP layer.
	Overload bool
	// Cooldown: the server asked the whole account to slow down, so each
	// wait before a retry is a cooldown of the machine's retry gate: no
	// process sharing the gate sends anything until it ends.
	Cooldown bool
	// TransportNeutral: it says nothing about the transport, so a stream
	// budget spent on it over WebSocket does not switch the session to
	// HTTPS.
	TransportNeutral bool
	// Firm: a person cannot cut its wait short (the chat's Ctrl+R, "retry
	// now"): the wait is the server's.
	Firm bool
}

// class is one row of the retry policy table.
type class struct {
	name   string
	does   ClassBehaviour
	policy ClassPolicy
}

// table is the one retry policy table: every class, in a stable order,
// with its behaviour and its default policy. The transport and
// server_error classes match the reference client (200 ms doubling,
// ±10%).
func table() []class {
	exp := func(base time.Duration) ClassPolicy {
		return ClassPolicy{MaxRetries: -1, BaseDelay: base, MaxDelay: time.Minute, Jitter: 0.1}
	}
	return []class{
		{ClassTransport, ClassBehaviour{HTTP: true}, exp(200 * time.Millisecond)},
		{ClassServerError, ClassBehaviour{HTTP: true}, exp(200 * time.Millisecond)},
		{
			ClassRateLimit, ClassBehaviour{Cooldown: true, TransportNeutral: true, Firm: true},
			ClassPolicy{MaxRetries: -1, BaseDelay: time.Second, MaxDelay: 2 * time.Minute, Jitter: 0.1},
		},
		{
			ClassOverloaded, ClassBehaviour{Overload: true, Cooldown: true, TransportNeutral: true, Firm: true},
			ClassPolicy{
				MaxRetries: 5,
				BaseDelay:  time.Second,
				MaxDelay:   10 * time.Minute,
				Jitter:     1,
				Delays: []time.Duration{
					// At most 2 s + 10 s + 60 s + 4 m + 8 m with the up-only
					// jitter: with the continuations, a turn on a model that
					// stays at capacity ends within 15 minutes.
					time.Second, 5 * time.Second, 30 * time.Second, 2 * time.Minute, 4 * time.Minute,
				},
			},
		},
		{ClassIdle, ClassBehaviour{HTTP: true}, exp(200 * time.Millisecond)},
	}
}

// Classes lists every retry class in a stable order.
func Classes() []string {
	var names []string
	for _, c := range table() {
		names = append(names, c.name)
	}
	return names
}

// DefaultRetry returns the default policy of every class.
func DefaultRetry() map[string]ClassPolicy {
	m := map[string]ClassPolicy{}
	for _, c := range table() {
		m[c.name] = c.policy
	}
	return m
}

// Behaviour returns the behaviour of class; the zero value for "" (a
// failure that is not retried) or a name that is no class.
func Behaviour(name string) ClassBehaviour {
	for _, c := range table() {
		if c.name == name {
			return c.does
		}
	}
	return ClassBehaviour{}
}
