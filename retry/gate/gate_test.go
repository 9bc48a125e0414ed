package gate_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/retry/gate"
)

// recorder is a Trace that logs, in order, what the gate reported, and
// signals each Blocked call so tests can wait for a caller to be held.
type recorder struct {
	mu      sync.Mutex
	log     []string
	blocked chan bool
}

func newRecorder() *recorder { return &recorder{blocked: make(chan bool, 16)} }

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

func (r *recorder) events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

func kind(resend bool) string {
	if resend {
		return "acquire"
	}
	return "wait"
}

func (r *recorder) ctx(ctx context.Context) context.Context {
	return gate.WithTrace(ctx, &gate.Trace{
		Blocked: func(resend bool) {
			r.add("blocked " + kind(resend))
			r.blocked <- resend
		},
		Unblocked: func(resend bool, err error) {
			if err != nil {
				r.add("gave up " + kind(resend))
				return
			}
			r.add("unblocked " + kind(resend))
		},
		Passed:   func(resend bool) { r.add("passed " + kind(resend)) },
		Cooldown: func(d time.Duration) { r.add("cooldown " + d.String()) },
	})
}

// heldSleep is a sleep function that records its durations and returns
// only when the test releases it.
type heldSleep struct {
	mu      sync.Mutex
	got     []time.Duration
	started chan time.Duration
	release chan struct{}
}

func newHeldSleep() *heldSleep {
	return &heldSleep{started: make(chan time.Duration, 4), release: make(chan struct{})}
}

func (h *heldSleep) sleep(ctx context.Context, d time.Duration) error {
	h.mu.Lock()
	h.got = append(h.got, d)
	h.mu.Unlock()
	h.started <- d
	select {
	case <-h.release:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func TestNilGateDoesNothing(t *testing.T) {
	var g *gate.Gate
	release, err := g.Acquire(t.Context())
	if err != nil {
		t.Fatalf("Acquire = %v", err)
	}
	release()
	if err := g.Wait(t.Context()); err != nil {
		t.Fatalf("Wait = %v", err)
	}
	var slept time.Duration
	if err := g.Cooldown(t.Context(), time.Second, func(_ context.Context, d time.Duration) error { slept = d; return nil }); err != nil || slept != time.Second {
		t.Fatalf("Cooldown slept %v, err %v; want 1s, nil", slept, err)
	}
	if got := g.Stats(); got != (gate.Stats{}) {
		t.Errorf("Stats = %+v", got)
	}
}

func TestAcquireBoundsResends(t *testing.T) {
	g := gate.New(2)
	rec := newRecorder()
	ctx := rec.ctx(t.Context())
	r1, err1 := g.Acquire(ctx)
	r2, err2 := g.Acquire(ctx)
	if err1 != nil || err2 != nil {
		t.Fatalf("Acquire = %v, %v", err1, err2)
	}
	if err := g.Wait(ctx); err != nil {
		t.Fatalf("Wait with every slot taken = %v; first attempts take no slot", err)
	}
	third := make(chan error)
	go func() {
		r3, err := g.Acquire(ctx)
		if err == nil {
			r3()
		}
		third <- err
	}()
	<-rec.blocked
	if got, want := g.Stats(), (gate.Stats{Resending: 2, Waiting: 1}); got != want {
		t.Errorf("Stats with the third blocked = %+v; want %+v", got, want)
	}
	r1()
	r1() // idempotent: must not free a second slot
	if err := <-third; err != nil {
		t.Fatalf("third Acquire = %v", err)
	}
	if got, want := g.Stats(), (gate.Stats{Resending: 1}); got != want {
		t.Errorf("Stats after = %+v; want %+v", got, want)
	}
	r2()
	want := []string{"passed acquire", "passed acquire", "passed wait", "blocked acquire", "passed acquire", "unblocked acquire"}
	if diff := cmp.Diff(want, rec.events()); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

func TestCooldownHoldsEveryone(t *testing.T) {
	g := gate.New(3)
	rec := newRecorder()
	ctx := rec.ctx(t.Context())
	hs := newHeldSleep()
	cooled := make(chan error)
	go func() { cooled <- g.Cooldown(ctx, 7*time.Second, hs.sleep) }()
	if d := <-hs.started; d != 7*time.Second {
		t.Fatalf("cooldown slept %v; want 7s", d)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Go(func() { errs <- g.Wait(ctx) })
	wg.Go(func() {
		release, err := g.Acquire(ctx)
		if err == nil {
			release()
		}
		errs <- err
	})
	<-rec.blocked
	<-rec.blocked
	if got, want := g.Stats(), (gate.Stats{Waiting: 2, CoolingDown: true}); got != want {
		t.Errorf("Stats during the cooldown = %+v; want %+v", got, want)
	}
	close(hs.release)
	if err := <-cooled; err != nil {
		t.Fatalf("Cooldown = %v", err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("held caller got %v", err)
		}
	}
	ev := rec.events()
	if ev[0] != "cooldown 7s" || ev[1] != "blocked wait" && ev[1] != "blocked acquire" {
		t.Errorf("trace starts %q; want the cooldown, then the callers blocked", ev)
	}
	for i, e := range ev[:3] {
		if e == "passed wait" || e == "passed acquire" {
			t.Errorf("event %d %q: a caller passed during the cooldown", i, e)
		}
	}
	if got := g.Stats(); got != (gate.Stats{}) {
		t.Errorf("Stats after = %+v", got)
	}
}

// TestCooldownsAddUp: two overlapping cooldowns keep the gate closed until
// the later one ends, not the first.
func TestCooldownsAddUp(t *testing.T) {
	g := gate.New(1)
	rec := newRecorder()
	ctx := rec.ctx(t.Context())
	first, second := newHeldSleep(), newHeldSleep()
	done1, done2 := make(chan error), make(chan error)
	go func() { done1 <- g.Cooldown(ctx, 2*time.Second, first.sleep) }()
	<-first.started
	go func() { done2 <- g.Cooldown(ctx, 5*time.Second, second.sleep) }()
	<-second.started
	waited := make(chan error)
	go func() { waited <- g.Wait(ctx) }()
	<-rec.blocked
	close(first.release)
	if err := <-done1; err != nil {
		t.Fatal(err)
	}
	if got, want := g.Stats(), (gate.Stats{Waiting: 1, CoolingDown: true}); got != want {
		t.Errorf("Stats after the first cooldown = %+v; want %+v (still closed)", got, want)
	}
	close(second.release)
	if err := <-done2; err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	want := []string{"cooldown 2s", "cooldown 5s", "blocked wait", "passed wait", "unblocked wait"}
	if diff := cmp.Diff(want, rec.events()); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// TestSlotWaiterWaitsOutCooldown: a re-send blocked on a slot when a
// cooldown begins does not slip through when the slot frees.
func TestSlotWaiterWaitsOutCooldown(t *testing.T) {
	g := gate.New(1)
	rec := newRecorder()
	ctx := rec.ctx(t.Context())
	holder, err := g.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	acquired := make(chan error)
	go func() {
		release, err := g.Acquire(ctx)
		if err == nil {
			release()
		}
		acquired <- err
	}()
	<-rec.blocked
	hs := newHeldSleep()
	cooled := make(chan error)
	go func() { cooled <- g.Cooldown(ctx, 3*time.Second, hs.sleep) }()
	<-hs.started
	holder()
	close(hs.release)
	if err := <-cooled; err != nil {
		t.Fatal(err)
	}
	if err := <-acquired; err != nil {
		t.Fatal(err)
	}
	want := []string{"passed acquire", "blocked acquire", "cooldown 3s", "passed acquire", "unblocked acquire"}
	if diff := cmp.Diff(want, rec.events()); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

func TestWaitHonoursContext(t *testing.T) {
	g := gate.New(1)
	rec := newRecorder()
	hs := newHeldSleep()
	go func() { _ = g.Cooldown(t.Context(), time.Minute, hs.sleep) }()
	<-hs.started
	defer close(hs.release)
	cause := errors.New("user pressed Ctrl-C")
	ctx, cancel := context.WithCancelCause(rec.ctx(t.Context()))
	errs := make(chan error, 2)
	go func() { errs <- g.Wait(ctx) }()
	go func() { _, err := g.Acquire(ctx); errs <- err }()
	<-rec.blocked
	<-rec.blocked
	cancel(cause)
	for range 2 {
		if err := <-errs; !errors.Is(err, cause) {
			t.Errorf("held caller = %v; want the context's cause", err)
		}
	}
	if got, want := g.Stats(), (gate.Stats{CoolingDown: true}); got != want {
		t.Errorf("Stats = %+v; want %+v", got, want)
	}
}

func TestCooldownWithoutDelaySleepsAlone(t *testing.T) {
	g := gate.New(1)
	var got []time.Duration
	err := g.Cooldown(t.Context(), 0, func(_ context.Context, d time.Duration) error {
		got = append(got, d)
		if s := g.Stats(); s.CoolingDown {
			t.Errorf("a zero cooldown closed the gate")
		}
		return nil
	})
	if err != nil || len(got) != 1 || got[0] != 0 {
		t.Errorf("Cooldown(0) slept %v, err %v", got, err)
	}
}

// TestNotBeforeOnTheClock runs the gate on the real sleep inside a
// synctest bubble: a cooldown of 7 s at t=0 and one of 7 s at t=5 s hold a
// first attempt that arrives at t=1 s until exactly t=12 s, the latest
// "not before" either set.
func TestNotBeforeOnTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := gate.New(3)
		ctx := t.Context()
		start := time.Now()
		var wg sync.WaitGroup
		wg.Go(func() { _ = g.Cooldown(ctx, 7*time.Second, retry.Sleep) })
		wg.Go(func() {
			_ = retry.Sleep(ctx, 5*time.Second)
			_ = g.Cooldown(ctx, 7*time.Second, retry.Sleep)
		})
		var passedAt time.Duration
		wg.Go(func() {
			_ = retry.Sleep(ctx, time.Second)
			if err := g.Wait(ctx); err != nil {
				t.Error(err)
			}
			passedAt = time.Since(start)
		})
		wg.Wait()
		if passedAt != 12*time.Second {
			t.Errorf("first attempt passed at %v; want 12s", passedAt)
		}
	})
}

// TestEnterAndBackoff: a re-send takes one of the slots, a first attempt
// takes none; a cooldown wait holds every entry back until it ends, a
// plain wait holds nobody.
func TestEnterAndBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := gate.New(1)
		ctx := t.Context()
		release, err := g.Enter(ctx, true)
		if err != nil || g.Stats().Resending != 1 {
			t.Fatalf("a re-send: err %v, %d slots taken; want one", err, g.Stats().Resending)
		}
		first, err := g.Enter(ctx, false)
		if err != nil || g.Stats().Resending != 1 {
			t.Fatalf("a first attempt beside it: err %v, %d slots taken; want still one", err, g.Stats().Resending)
		}
		first()
		release()
		if err := g.Backoff(ctx, time.Minute, false, retry.Sleep); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		go func() { _ = g.Backoff(ctx, time.Minute, true, retry.Sleep) }()
		synctest.Wait()
		if !g.Stats().CoolingDown {
			t.Fatal("a cooldown wait does not cool the gate down")
		}
		if _, err := g.Enter(ctx, false); err != nil || time.Since(start) != time.Minute {
			t.Errorf("a first attempt during the cooldown passed after %v (err %v); want 1m0s", time.Since(start), err)
		}
	})
	var none *gate.Gate // no gate: nothing to wait for, nothing shared
	if release, err := none.Enter(context.Background(), true); err != nil {
		t.Error(err)
	} else {
		release()
	}
}

// TestProbeAfterCooldown: when a cooldown a caller held the gate for
// ends, one caller passes alone (the probe); the others pass once its
// answer is in (release), unless that answer closed the gate again (Hold:
// another rate limit). A cooldown without a hold (agent proxy's) opens
// for all at once (TestCooldownHoldsEveryone).
func TestProbeAfterCooldown(t *testing.T) {
	g := gate.New(3)
	rec := newRecorder()
	ctx := rec.ctx(t.Context())
	hs := newHeldSleep()
	cooled := make(chan error)
	unhold0 := g.Hold() // a rate limit: the gate closes at the answer
	go func() { cooled <- g.Cooldown(ctx, 7*time.Second, hs.sleep) }()
	<-hs.started
	unhold0() // the cooldown has begun
	close(hs.release)
	if err := <-cooled; err != nil {
		t.Fatal(err)
	}
	probe, err := g.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan func())
	go func() {
		release, err := g.Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		second <- release
	}()
	<-rec.blocked      // the second waits for the probe's answer
	unhold := g.Hold() // the probe's answer: another rate limit
	probe()
	if s := g.Stats(); !s.CoolingDown || s.Waiting != 1 {
		t.Errorf("Stats while the probe's rate limit holds = %+v; want closed, one waiting", s)
	}
	unhold() // (its cooldown would begin here)
	// Settled again: the second is the next probe; its answer opens the gate.
	release := <-second
	release()
	first, err := g.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	third, err := g.Acquire(ctx) // open: no probe out any more
	if err != nil {
		t.Fatal(err)
	}
	first()
	third()
	want := []string{"cooldown 7s", "passed acquire", "blocked acquire", "passed acquire", "unblocked acquire", "passed acquire", "passed acquire"}
	if diff := cmp.Diff(want, rec.events()); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}
