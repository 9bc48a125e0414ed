// Package retry is the one retry loop of the module and its policy: [Do]
// runs attempts under a [Driver] (a layer's Decide, a [Budget] per retry,
// the injected clock), and [Policy] says how long to wait before retry n.
// It performs no I/O of its own and inspects no errors; deciding what is
// retryable belongs to modelclient's classifier, deciding which budget a
// failure spends to the layer's Decide. Time and randomness are supplied by
// the caller ([Sleeper], a float in [0,1)), so every schedule is exactly
// testable.
package retry

import (
	"context"
	"math"
	"time"
)

// Policy is the schedule of one class of failures.
type Policy struct {
	// MaxRetries is the number of retries after the first attempt; a
	// negative value means the caller's layer budget alone applies.
	MaxRetries int
	// Base is the first delay; delay n is Base·2^(n-1).
	Base time.Duration
	// Max caps every delay, server hints included. Zero means no cap.
	Max time.Duration
	// Jitter scales a delay by U(1-Jitter, 1+Jitter), or by U(1, 1+Jitter)
	// when UpOnly is set.
	Jitter float64
	// UpOnly makes jitter only lengthen delays.
	UpOnly bool
	// Delays, when set, replaces the exponential schedule: retry n waits
	// Delays[n-1] (the last entry repeats).
	Delays []time.Duration
}

// Delay returns the wait before retry n (n ≥ 1) given r drawn from U[0,1).
func (p Policy) Delay(n int, r float64) time.Duration {
	n = max(n, 1)
	var d float64
	if len(p.Delays) > 0 {
		d = float64(p.Delays[min(n, len(p.Delays))-1])
	} else {
		d = float64(p.Base) * math.Pow(2, float64(n-1))
	}
	lo, hi := 1-p.Jitter, 1+p.Jitter
	if p.UpOnly {
		lo = 1
	}
	d *= lo + (hi-lo)*r
	if d >= 1<<62 || math.IsNaN(d) {
		return p.Cap(1 << 62) // ~146 years: effectively forever, never overflows
	}
	return p.Cap(time.Duration(d))
}

// Backoff is the wait before retry n (n ≥ 1) of a failure whose server
// asked for server (zero: it gave no delay): the server's delay wins,
// capped by Max; without one, the schedule's [Policy.Delay] with a
// jitter draw of rand (called only then). Every retry layer (the model
// client's, agent proxy's) waits this.
func (p Policy) Backoff(n int, server time.Duration, rand func() float64) time.Duration {
	if server > 0 {
		return p.Cap(server)
	}
	return p.Delay(n, rand())
}

// Pauses reports whether a server delay is beyond the cap: the caller
// must not retry before it, nor cut it short. The model client pauses the
// turn until then; agent proxy relays the answer at once.
func (p Policy) Pauses(server time.Duration) bool {
	return server > 0 && p.Max > 0 && server > p.Max
}

// Cap bounds d by p.Max.
func (p Policy) Cap(d time.Duration) time.Duration {
	if p.Max > 0 && d > p.Max {
		return p.Max
	}
	return max(d, 0)
}

// Allows reports whether retry n (n ≥ 1) fits within budget and the
// policy's own MaxRetries.
func (p Policy) Allows(n, budget int) bool {
	if p.MaxRetries >= 0 && n > p.MaxRetries {
		return false
	}
	return budget < 0 || n <= budget
}

// Reference-client connection schedule for the unbounded connection retries:
// 5 s doubling to 60 s, no jitter, no count limit.
const (
	ConnectionInitialDelay = 5 * time.Second
	ConnectionMaxDelay     = 60 * time.Second
)

// ConnectionDelay returns the wait before connection retry n (n ≥ 1).
func ConnectionDelay(n int) time.Duration {
	return Policy{Base: ConnectionInitialDelay, Max: ConnectionMaxDelay}.Delay(min(n, 32), 0.5)
}

// Sleeper waits for d or until ctx ends, returning ctx's error in that case.
type Sleeper func(ctx context.Context, d time.Duration) error

// Sleep is the real [Sleeper]: a timer that ctx can end.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
