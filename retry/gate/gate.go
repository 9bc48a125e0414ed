// Package gate coordinates the retries of many concurrent requests to
// one provider account, so that parallel jobs back off together instead of
// each hammering the provider on its own schedule.
//
// A [Gate] does two things:
//
//   - It bounds re-sends: at most N requests that repeat a failed one are
//     being sent at once ([Gate.Acquire]). First attempts take no slot.
//   - It shares cooldowns: when the provider answers rate_limit or
//     overloaded, the job that got the answer waits its retry delay through
//     [Gate.Cooldown], and until that wait ends no re-send and no first
//     attempt passes the gate ([Gate.Acquire], [Gate.Wait]). The gate
//     closes the moment the answer arrives ([Gate.Hold]), not only when
//     the wait begins, so no other request slips out in between.
//   - It probes after a cooldown a caller held it for: when the last
//     cooldown ends, one request passes alone; the others follow once its
//     answer is in and it was not another rate limit (which holds the gate
//     again). Jobs sharing the gate thus send, while the provider keeps
//     refusing, what one job alone would: one request per cooldown. (The
//     model client holds; agent proxy, which does not, lets its re-send
//     slots go together after a cooldown.)
//
// The gate holds no clock. A cooldown is the waiting job's own sleep, made
// through the sleep function the caller passes (the real [time]-based one,
// or a test's recorder), and the gate is closed exactly while one or more
// cooldown sleeps are in progress: overlapping cooldowns add up to their
// union, so the gate opens at the latest "not before" any of them set.
// Every wait honours ctx.
//
// A nil *Gate is valid and does nothing: every call returns at once.
package gate

import (
	"context"
	"sync"
	"time"
)

// Gate is the process-wide retry gate. It is safe for concurrent use.
type Gate struct {
	slots chan struct{} // one token per re-send in flight

	mu      sync.Mutex
	cooling int           // cooldown sleeps and holds in progress
	open    chan struct{} // closed while the gate is open: nothing cooling, no probe out
	waiting int           // callers blocked in Acquire or Wait
	// held says a caller closed the gate at an answer ([Gate.Hold]):
	// when the cooldowns end the gate settles. settling says the next
	// caller through is a probe; probing that a probe is out: everyone
	// else waits for its answer.
	held, settling, probing bool

	machine *machine // the machine-wide part ([Open] with a Dir); nil: this process only
}

// New returns a gate that lets at most maxResends re-sends through at
// once; values below 1 mean 1.
func New(maxResends int) *Gate {
	open := make(chan struct{})
	close(open)
	return &Gate{slots: make(chan struct{}, max(maxResends, 1)), open: open}
}

// Stats is a snapshot of a gate, for progress displays.
type Stats struct {
	// Resending is the number of re-sends holding a slot.
	Resending int
	// Waiting is the number of callers blocked in Acquire or Wait.
	Waiting int
	// CoolingDown reports whether a cooldown is in progress.
	CoolingDown bool
}

// Stats returns the gate's current state.
func (g *Gate) Stats() Stats {
	if g == nil {
		return Stats{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return Stats{Resending: len(g.slots), Waiting: g.waiting, CoolingDown: g.cooling > 0}
}

// Acquire waits until no cooldown is in progress and a re-send slot is
// free, takes the slot and returns the function that gives it back. Call
// it just before sending a request that repeats a failed one, and call
// release once that attempt is decided (its response headers arrived or it
// failed), not at the end of a long stream. release is idempotent. Acquire
// returns ctx's cause if ctx ends first.
func (g *Gate) Acquire(ctx context.Context) (release func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	w := waiter{g: g, ctx: ctx, resend: true}
	defer w.done(&err)
	for {
		if err := w.waitOpen(); err != nil {
			return nil, err
		}
		if err := w.takeSlot(); err != nil {
			return nil, err
		}
		var releaseMachine func()
		if m := g.machine; m != nil {
			if err := m.waitCooldown(w.ctx, w.block); err != nil {
				<-g.slots
				return nil, err
			}
			if releaseMachine, err = m.takeSlot(w.ctx, w.block); err != nil {
				<-g.slots
				return nil, err
			}
		}
		// A cooldown may have begun while we waited for the slot: give the
		// slot back and wait it out too.
		if probe, ok := w.pass(); ok {
			var once sync.Once
			return func() {
				once.Do(func() {
					if releaseMachine != nil {
						releaseMachine()
					}
					<-g.slots
					if probe {
						g.endProbe()
					}
				})
			}, nil
		}
		if releaseMachine != nil {
			releaseMachine()
		}
		<-g.slots
	}
}

// Wait waits until no cooldown is in progress. Call it before a first
// attempt: a first attempt needs no slot, but it does not start while the
// provider has asked the account to slow down. It returns ctx's cause if
// ctx ends first.
func (g *Gate) Wait(ctx context.Context) error {
	probe, err := g.wait(ctx)
	if probe {
		g.endProbe() // nobody reports its answer: the probe ends at once
	}
	return err
}

// wait is Wait, reporting whether the caller passed as a probe.
func (g *Gate) wait(ctx context.Context) (probe bool, err error) {
	if g == nil {
		return false, nil
	}
	w := waiter{g: g, ctx: ctx}
	defer w.done(&err)
	for {
		if err := w.waitOpen(); err != nil {
			return false, err
		}
		if m := g.machine; m != nil {
			if err := m.waitCooldown(w.ctx, w.block); err != nil {
				return false, err
			}
		}
		if probe, ok := w.pass(); ok {
			return probe, nil
		}
	}
}

// Hold closes the gate at once, until release is called: the caller got
// an answer that asks the account to slow down and is about to wait its
// delay through [Gate.Cooldown] (call release once that has begun, or
// when it will not wait after all). Nothing passes in between. release is
// idempotent.
func (g *Gate) Hold() (release func()) {
	if g == nil {
		return func() {}
	}
	g.mu.Lock()
	g.cool(+1)
	g.held = true
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.cool(-1)
			g.mu.Unlock()
		})
	}
}

// cool changes the count of cooldowns and holds in progress; g.mu is
// held. When the last one ends after a hold, the gate settles: the next
// caller is a probe.
func (g *Gate) cool(delta int) {
	wasOpen := g.isOpen()
	g.cooling += delta
	if g.cooling == 0 && delta < 0 && g.held {
		g.settling, g.held = true, false
	}
	g.reopen(wasOpen)
}

// isOpen reports whether callers may pass; g.mu is held.
func (g *Gate) isOpen() bool { return g.cooling == 0 && !g.probing }

// reopen makes g.open agree with the gate's state after a change from
// wasOpen; g.mu is held.
func (g *Gate) reopen(wasOpen bool) {
	switch open := g.isOpen(); {
	case wasOpen && !open:
		g.open = make(chan struct{})
	case !wasOpen && open:
		close(g.open)
	}
}

// endProbe ends the probe out: its answer is in. Unless it started
// another cooldown (a rate limit again), the gate has settled and opens
// for everyone.
func (g *Gate) endProbe() {
	g.mu.Lock()
	defer g.mu.Unlock()
	wasOpen := g.isOpen()
	g.probing = false
	if g.cooling == 0 {
		g.settling = false
	}
	g.reopen(wasOpen)
}

// Cooldown waits d through sleep and, for as long as that takes, holds
// back every Acquire and Wait on g (and, for a gate made by [Open] with a
// Dir, on every process sharing it, until now+d on its clock). Call it instead of sleeping before the
// retry of a request the provider answered rate_limit or overloaded, with
// the delay that answer earned (the server's Retry-After when it gave
// one). The cooldown ends with the sleep, so if ctx ends the cooldown ends
// early; sleep's error is returned. A d ≤ 0 sleeps without a cooldown.
func (g *Gate) Cooldown(ctx context.Context, d time.Duration, sleep func(context.Context, time.Duration) error) error {
	if g == nil || d <= 0 {
		return sleep(ctx, d)
	}
	if m := g.machine; m != nil {
		// Other processes see the cooldown through the file; failing to
		// write it only loses the sharing, never the wait itself.
		_ = m.extend(ctx, m.now().Add(d))
	}
	g.mu.Lock()
	g.cool(+1)
	g.mu.Unlock()
	if t := traceFrom(ctx); t != nil && t.Cooldown != nil {
		t.Cooldown(d)
	}
	defer func() {
		g.mu.Lock()
		g.cool(-1)
		g.mu.Unlock()
	}()
	return sleep(ctx, d)
}

// Enter passes the gate before an attempt: a re-send (an attempt that
// repeats a failed one) takes a slot ([Gate.Acquire]), to give back with
// release once the attempt is decided; a first attempt only waits out
// cooldowns ([Gate.Wait]) and its release does nothing. Every retry layer
// that sends (the model client's, agent proxy's) enters so.
func (g *Gate) Enter(ctx context.Context, resend bool) (release func(), err error) {
	if resend {
		return g.Acquire(ctx)
	}
	probe, err := g.wait(ctx)
	if !probe {
		return func() {}, err
	}
	var once sync.Once
	return func() { once.Do(g.endProbe) }, err
}

// Backoff makes the wait d before a retry through sleep. When cooldown is
// set (the provider asked the account to slow down: a rate limit or an
// overload) the wait is a [Gate.Cooldown] of the whole gate, so every
// client sharing it honours the provider's delay together; otherwise it
// is the caller's own sleep and holds nobody back.
func (g *Gate) Backoff(ctx context.Context, d time.Duration, cooldown bool, sleep func(context.Context, time.Duration) error) error {
	if cooldown {
		return g.Cooldown(ctx, d, sleep)
	}
	return sleep(ctx, d)
}

// waiter is one caller's pass through Acquire or Wait.
type waiter struct {
	g       *Gate
	ctx     context.Context
	resend  bool
	blocked bool
}

// block records, once, that the caller has to wait.
func (w *waiter) block() {
	if w.blocked {
		return
	}
	w.blocked = true
	w.g.mu.Lock()
	w.g.waiting++
	w.g.mu.Unlock()
	if t := traceFrom(w.ctx); t != nil && t.Blocked != nil {
		t.Blocked(w.resend)
	}
}

// done undoes block once the caller stops waiting, successful or not.
func (w *waiter) done(err *error) {
	if !w.blocked {
		return
	}
	w.g.mu.Lock()
	w.g.waiting--
	w.g.mu.Unlock()
	if t := traceFrom(w.ctx); t != nil && t.Unblocked != nil {
		t.Unblocked(w.resend, *err)
	}
}

// waitOpen waits until no cooldown is in progress.
func (w *waiter) waitOpen() error {
	w.g.mu.Lock()
	open := w.g.open
	w.g.mu.Unlock()
	select {
	case <-open:
		return nil
	default:
	}
	w.block()
	select {
	case <-open:
		return nil
	case <-w.ctx.Done():
		return context.Cause(w.ctx)
	}
}

// takeSlot waits for a free re-send slot.
func (w *waiter) takeSlot() error {
	select {
	case w.g.slots <- struct{}{}:
		return nil
	default:
	}
	w.block()
	select {
	case w.g.slots <- struct{}{}:
		return nil
	case <-w.ctx.Done():
		return context.Cause(w.ctx)
	}
}

// pass lets the caller through unless a cooldown is in progress or a
// probe is out; the first caller after a cooldown passes as the probe.
// The check and the Passed trace happen under the gate's lock, so no
// caller is reported through after a cooldown began.
func (w *waiter) pass() (probe, ok bool) {
	g := w.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.isOpen() {
		return false, false
	}
	if g.settling {
		g.probing = true
		g.reopen(true)
	}
	if t := traceFrom(w.ctx); t != nil && t.Passed != nil {
		t.Passed(w.resend)
	}
	return g.probing, true
}
