package gate

import (
	"context"
	"time"
)

// Trace observes the gate calls made with one context, as
// net/http/httptrace observes requests: tests use it to know when jobs are
// held back, progress displays to count them. Nil fields are skipped. The
// hooks are called synchronously and may run concurrently for different
// callers; they must not call back into the gate.
type Trace struct {
	// Blocked is called when an Acquire (resend true) or a Wait (resend
	// false) has to wait for a cooldown or a slot.
	Blocked func(resend bool)
	// Unblocked is called when that wait ends: err is nil when the caller
	// was let through, ctx's cause otherwise.
	Unblocked func(resend bool, err error)
	// Passed is called as an Acquire or Wait lets its caller through,
	// whether or not it waited. It is called with the gate locked, so no
	// Passed follows the start of a cooldown until that cooldown ends.
	Passed func(resend bool)
	// Cooldown is called when a cooldown of d begins.
	Cooldown func(d time.Duration)
}

type traceKey struct{}

// WithTrace returns a copy of ctx that reports the gate calls made with
// it, and with contexts derived from it, to t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

func traceFrom(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}
