package retry

import (
	"context"
	"errors"
	"time"
)

// Budget is the retry allowance of one layer: a number of retries and,
// optionally, a total time those retries may wait. Every retry spends one
// unit of exactly one budget. A Budget is not safe for concurrent use; it
// belongs to the loop that spends it.
type Budget struct {
	// Layer names the layer the budget belongs to ("http", "stream",
	// "connection", "continue", "proxy", ...), for notices and logs.
	Layer string
	// Max is the number of retries allowed; negative means no count limit.
	Max int
	// MaxWait bounds the sum of the waits; zero means no limit. The wait
	// that reaches the bound is shortened to end exactly on it.
	MaxWait time.Duration

	spent  int
	waited time.Duration
}

// NewBudget returns an unspent budget.
func NewBudget(layer string, max int, maxWait time.Duration) *Budget {
	return &Budget{Layer: layer, Max: max, MaxWait: maxWait}
}

// Spent is the number of retries taken so far.
func (b *Budget) Spent() int { return b.spent }

// Waited is the total wait of the retries taken so far.
func (b *Budget) Waited() time.Duration { return b.waited }

// Left is the number of retries still allowed, or -1 when the count is
// unbounded (a MaxWait may still end it).
func (b *Budget) Left() int {
	if b.Max < 0 {
		return -1
	}
	return max(b.Max-b.spent, 0)
}

// Exhausted reports whether no further retry fits.
func (b *Budget) Exhausted() bool {
	return b.Left() == 0 || (b.MaxWait > 0 && b.waited >= b.MaxWait)
}

// Reset makes the budget unspent again.
func (b *Budget) Reset() { b.spent, b.waited = 0, 0 }

// Take spends one retry that wants to wait d. It returns the wait to make
// (d, or what is left of MaxWait) and false when the budget is exhausted.
func (b *Budget) Take(d time.Duration) (time.Duration, bool) {
	if b.Exhausted() {
		return 0, false
	}
	if b.MaxWait > 0 {
		d = min(d, b.MaxWait-b.waited)
	}
	d = max(d, 0)
	b.spent++
	b.waited += d
	return d, true
}

// Wait describes one retry the driver is about to wait for.
type Wait struct {
	// Layer is the budget's layer.
	Layer string
	// Attempt is the retry's number within its budget (1-based).
	Attempt int
	// Max is the budget's count; -1 means unbounded.
	Max int
	// Left is the number of retries still allowed after this one; -1
	// means unbounded.
	Left int
	// Delay is the wait before the retry.
	Delay time.Duration
	// Waited is the budget's total wait, this one included; MaxWait its
	// bound (zero: none).
	Waited, MaxWait time.Duration
	// Err is the failure being retried.
	Err error
}

// Decision is what a layer says about one failed attempt.
type Decision struct {
	// Budget is the budget the retry spends, with Delay the wait it
	// wants. Nil means: do not retry.
	Budget *Budget
	Delay  time.Duration
	// Again retries at once, spending no budget and waiting nothing (a
	// credential recovery, a switch of transport). The layer must bound
	// how often it says so.
	Again bool
	// Final, when set, is returned instead of the attempt's error when
	// the driver stops (a pause, a reason not to continue).
	Final error
}

// Driver is the one retry loop every layer runs: it makes attempts, asks
// Decide about each failure, and waits on the injected clock. It holds no
// policy of its own.
type Driver struct {
	// Decide judges a failed attempt (required).
	Decide func(err error) Decision
	// Sleep waits between attempts; default [Sleep].
	Sleep Sleeper
	// Wait, when set, replaces Sleep and sees the whole [Wait] (for
	// waits shared with other clients).
	Wait func(ctx context.Context, w Wait) error
	// Notify hears about each retry before its wait; nil skips.
	Notify func(w Wait)
}

// Do runs op (attempt n = 1, 2, ...) until it succeeds, Decide says stop,
// the decided budget is exhausted, or ctx ends. It returns the last
// attempt's value and error (or the decision's Final error); a wait cut
// short by ctx returns the ctx error joined with the attempt's.
func Do[T any](ctx context.Context, d Driver, op func(ctx context.Context, n int) (T, error)) (T, error) {
	sleep := d.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	for n := 1; ; n++ {
		v, err := op(ctx, n)
		if err == nil || ctx.Err() != nil {
			return v, err
		}
		dec := d.Decide(err)
		if dec.Again {
			continue
		}
		var delay time.Duration
		ok := dec.Budget != nil
		if ok {
			delay, ok = dec.Budget.Take(dec.Delay)
		}
		if !ok {
			if dec.Final != nil {
				return v, dec.Final
			}
			return v, err
		}
		b := dec.Budget
		w := Wait{Layer: b.Layer, Attempt: b.spent, Max: b.Max, Left: b.Left(), Delay: delay,
			Waited: b.waited, MaxWait: b.MaxWait, Err: err}
		if d.Notify != nil {
			d.Notify(w)
		}
		var serr error
		if d.Wait != nil {
			serr = d.Wait(ctx, w)
		} else {
			serr = sleep(ctx, delay)
		}
		if serr != nil {
			return v, errors.Join(serr, err)
		}
	}
}
