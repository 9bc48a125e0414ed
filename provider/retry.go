package provider

import "time"

// Retry classes: every retryable failure falls into exactly one, and each has
// its own [ClassPolicy]. The classifier in modelclient assigns them.
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

// Classes lists every retry class in a stable order.
func Classes() []string {
	return []string{ClassTransport, ClassServerError, ClassRateLimit, ClassOverloaded, ClassIdle}
}

// ClassPolicy is the retry policy of one class.
type ClassPolicy struct {
	// MaxRetries caps the retries of this class within a turn; -1 means the
	// layer's budget (request_max_retries or stream_max_retries) alone applies.
	MaxRetries int
	// BaseDelay is the first backoff delay; later ones double.
	BaseDelay time.Duration
	// MaxDelay caps every delay of this class, server hints included.
	MaxDelay time.Duration
	// Jitter scales each delay by U(1-Jitter, 1+Jitter); for the overloaded
	// class by U(1, 1+Jitter), so a crowd never comes back early.
	Jitter float64
	// Delays is a fixed schedule (overloaded only); nil elsewhere.
	Delays []time.Duration
}

// DefaultRetry returns the default policy of every class. The transport and
// server_error classes match the reference client (200 ms doubling, ±10%).
func DefaultRetry() map[string]ClassPolicy {
	exp := func(base time.Duration) ClassPolicy {
		return ClassPolicy{MaxRetries: -1, BaseDelay: base, MaxDelay: time.Minute, Jitter: 0.1}
	}
	return map[string]ClassPolicy{
		ClassTransport:   exp(200 * time.Millisecond),
		ClassServerError: exp(200 * time.Millisecond),
		ClassRateLimit:   {MaxRetries: -1, BaseDelay: time.Second, MaxDelay: 2 * time.Minute, Jitter: 0.1},
		ClassIdle:        exp(200 * time.Millisecond),
		ClassOverloaded: {
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
	}
}
