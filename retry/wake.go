package retry

import "context"

// Waker ends one retry wait early: a person asked to retry now. A [Sleep]
// under a context made by [WithWaker] returns nil as soon as Wake is
// called; one Wake ends one wait (the next to start, if none is running),
// so a wait that polls (a machine-wide cooldown) is never turned into a
// busy loop. It is safe for concurrent use.
type Waker struct {
	ch chan struct{} // holds the pending wake, if any
}

// NewWaker returns a Waker with no wake pending.
func NewWaker() *Waker { return &Waker{ch: make(chan struct{}, 1)} }

// Arm drops a wake still pending from an earlier wait. Call it when a
// retry is announced, before its wait begins.
func (w *Waker) Arm() {
	select {
	case <-w.ch:
	default:
	}
}

// Wake ends the running wait, or the next one to start.
func (w *Waker) Wake() {
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// wakerKey carries the Waker of a context.
type wakerKey struct{}

// WithWaker returns a context whose retry waits w can end early.
func WithWaker(ctx context.Context, w *Waker) context.Context {
	return context.WithValue(ctx, wakerKey{}, w)
}

// wakeOf is the channel that ends one of ctx's waits, or nil (which never
// receives).
func wakeOf(ctx context.Context) <-chan struct{} {
	if w, _ := ctx.Value(wakerKey{}).(*Waker); w != nil {
		return w.ch
	}
	return nil
}
