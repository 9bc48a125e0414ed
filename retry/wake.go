package retry

import (
	"context"
	"errors"
	"time"
)

// Waker ends one retry wait early: a person asked to retry now. A
// [Sleeper] made by [Waker.Sleeper] returns nil as soon as Wake is called;
// one Wake ends one wait (the next to start, if none is running), so a
// wait that polls is never turned into a busy loop. It is passed
// explicitly to what waits, never carried in a context. It is safe for
// concurrent use; a nil *Waker never wakes.
type Waker struct {
	ch chan struct{} // holds the pending wake, if any
}

// NewWaker returns a Waker with no wake pending.
func NewWaker() *Waker { return &Waker{ch: make(chan struct{}, 1)} }

// Arm drops a wake still pending from an earlier wait. Call it when a
// retry is announced, before its wait begins.
func (w *Waker) Arm() {
	if w == nil {
		return
	}
	select {
	case <-w.ch:
	default:
	}
}

// Wake ends the running wait, or the next one to start.
func (w *Waker) Wake() {
	if w == nil {
		return
	}
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// errWoken is the cause of a wait w ended.
var errWoken = errors.New("retry now")

// Sleeper returns sleep made wakeable: a wait it makes ends at once,
// returning nil, when w is woken (a wake pending when it starts ends it
// before sleep is called). The wait's own error (ctx ended) is returned as
// sleep returns it. A nil w returns sleep itself.
func (w *Waker) Sleeper(sleep Sleeper) Sleeper {
	if w == nil {
		return sleep
	}
	return func(ctx context.Context, d time.Duration) error {
		select {
		case <-w.ch:
			return nil
		default:
		}
		wctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-w.ch:
				cancel(errWoken)
			case <-stop:
			}
		}()
		err := sleep(wctx, d)
		if ctx.Err() == nil && errors.Is(context.Cause(wctx), errWoken) {
			return nil
		}
		return err
	}
}
