package retry

import "time"

// WindowReserve is the part of a [Window] kept for the attempts
// themselves: the waits of one failure add up to at most
// Bound - WindowReserve, so the attempts between them (a failure that
// answers at once) end inside the bound.
const WindowReserve = 5 * time.Second

// Window is the one time bound of a failure that does not clear: the
// waits before the retries of every layer (and the turn's continuations)
// share Bound, after which the failure is final. A wait is shortened to
// end inside the window, and a retry that cannot wait inside it is not
// made. A wait the server named (Retry-After) is not shortened: it is
// made, and counted. A request that succeeds closes the window (its count
// starts again at the next failure). The zero Bound means no bound.
//
// The window counts the waits the layers decide, not the clock: what a
// user waits for a failure that answers at once is those waits, and a
// test that injects a sleep bounds the same turn the same way. An
// attempt that itself takes long (a stream that stalls until its idle
// timeout) adds its own time. A Window is not safe for concurrent use: it
// belongs to one turn, whose requests run one after another.
type Window struct {
	// Bound is the time a failure may wait to clear; zero: no bound.
	Bound time.Duration

	waited time.Duration
}

// Spent reports whether the window has no time left for a wait it would
// shorten.
func (w *Window) Spent() bool {
	return w != nil && w.Bound > 0 && w.waited >= w.Bound-WindowReserve
}

// Close closes the window: a request succeeded.
func (w *Window) Close() {
	if w != nil {
		w.waited = 0
	}
}

// Waited is the total of the waits made since the window opened.
func (w *Window) Waited() time.Duration {
	if w == nil {
		return 0
	}
	return w.waited
}

// Fit returns the wait to make instead of d so that it ends inside the
// window, counting it, and false when no retry fits any more. A
// serverNamed wait is kept whole.
func (w *Window) Fit(d time.Duration, serverNamed bool) (time.Duration, bool) {
	if w == nil || w.Bound <= 0 {
		return d, true
	}
	if !serverNamed {
		left := w.Bound - WindowReserve - w.waited
		if left <= 0 {
			return 0, false
		}
		d = min(d, left)
	}
	w.waited += d
	return d, true
}
