// Package liveness enforces the two stream timers shared by the SSE and
// WebSocket transports: an idle timer (no event and no data moving either
// way: the stream is dead; it is Codex's stream_idle_timeout_ms, so
// keep-alive comments and pings do not count, but transports mark every
// chunk of data read or written, not only completed events, so a large
// event or upload on a slow link is alive) and a progress timer (data
// arrives, but no complete event: the stream is alive yet stuck). When one fires it cancels the stream's
// context and remembers which, so the transport can report
// [transport.ErrStreamIdle] or [transport.ErrNoProgress] instead of the read
// error the cancellation caused.
package liveness

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentcli/agent/transport"
)

// Watchdog watches one stream. Activity is recorded as a timestamp and the
// timers re-arm themselves lazily, so the hot read path costs one clock read
// and one atomic store. Its methods are safe for concurrent use.
type Watchdog struct {
	cancel              context.CancelFunc
	lastByte, lastEvent atomic.Int64
	fired               atomic.Pointer[error]
	mu                  sync.Mutex // guards the timers against their own callbacks
	idleT, progT        *time.Timer
	stopped             bool
}

// Start returns a running Watchdog that calls cancel when no activity is
// seen for idle, or no progress for progress (zero disables a timer).
func Start(cancel context.CancelFunc, idle, progress time.Duration) *Watchdog {
	w := &Watchdog{cancel: cancel}
	now := time.Now().UnixNano()
	w.lastByte.Store(now)
	w.lastEvent.Store(now)
	w.mu.Lock()
	defer w.mu.Unlock()
	if idle > 0 {
		w.idleT = time.AfterFunc(idle, func() { w.check(&w.idleT, &w.lastByte, idle, transport.ErrStreamIdle) })
	}
	if progress > 0 {
		w.progT = time.AfterFunc(progress, func() { w.check(&w.progT, &w.lastEvent, progress, transport.ErrNoProgress) })
	}
	return w
}

func (w *Watchdog) check(t **time.Timer, last *atomic.Int64, limit time.Duration, reason error) {
	if w.fired.Load() != nil {
		return
	}
	quiet := time.Duration(time.Now().UnixNano() - last.Load())
	if quiet < limit {
		w.mu.Lock()
		if !w.stopped {
			(*t).Reset(limit - quiet)
		}
		w.mu.Unlock()
		return
	}
	if w.fired.CompareAndSwap(nil, &reason) {
		w.cancel()
	}
}

// Active records that bytes moved (read or written) or a ping arrived.
func (w *Watchdog) Active() { w.lastByte.Store(time.Now().UnixNano()) }

// Progressed records that an event arrived.
func (w *Watchdog) Progressed() {
	now := time.Now().UnixNano()
	w.lastEvent.Store(now)
	w.lastByte.Store(now)
}

// Stop stops both timers for good.
func (w *Watchdog) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.idleT != nil {
		w.idleT.Stop()
	}
	if w.progT != nil {
		w.progT.Stop()
	}
}

// Explain replaces err with the real reason a stream ended: the timer that
// fired, or the end of the caller's ctx.
func (w *Watchdog) Explain(ctx context.Context, err error) error {
	if p := w.fired.Load(); p != nil {
		return *p
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}
