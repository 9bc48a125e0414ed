package retry_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcli/agent/retry"
)

func TestDelay(t *testing.T) {
	ms := time.Millisecond
	ref := retry.Policy{Base: 200 * ms, Jitter: 0.1}
	overload := retry.Policy{Jitter: 1, UpOnly: true, Delays: []time.Duration{time.Second, 5 * time.Second}}
	tests := []struct {
		name string
		p    retry.Policy
		n    int
		r    float64
		want time.Duration
	}{
		{"first, mid jitter", ref, 1, 0.5, 200 * ms},
		{"second, mid jitter", ref, 2, 0.5, 400 * ms},
		{"fifth, mid jitter", ref, 5, 0.5, 3200 * ms},
		{"low jitter is -10%", ref, 1, 0, 180 * ms},
		{"high jitter approaches +10%", ref, 2, 0.999999, 439999920 * time.Nanosecond},
		{"capped", retry.Policy{Base: time.Second, Max: 3 * time.Second}, 10, 0.5, 3 * time.Second},
		{"huge n does not overflow", retry.Policy{Base: time.Second, Max: time.Minute}, 4000, 0.5, time.Minute},
		{"schedule entry", overload, 2, 0, 5 * time.Second},
		{"schedule up-only jitter", overload, 1, 0.5, 1500 * ms},
		{"schedule repeats last", overload, 7, 0, 5 * time.Second},
		{"n below 1 is first", ref, 0, 0.5, 200 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Delay(tt.n, tt.r); got != tt.want {
				t.Errorf("Delay(%d, %v) = %v; want %v", tt.n, tt.r, got, tt.want)
			}
		})
	}
}

func TestConnectionDelay(t *testing.T) {
	want := []time.Duration{5, 10, 20, 40, 60, 60, 60}
	for i, w := range want {
		if got := retry.ConnectionDelay(i + 1); got != w*time.Second {
			t.Errorf("ConnectionDelay(%d) = %v; want %v", i+1, got, w*time.Second)
		}
	}
	if got := retry.ConnectionDelay(1 << 20); got != time.Minute {
		t.Errorf("ConnectionDelay(huge) = %v; want 1m", got)
	}
}

func TestAllows(t *testing.T) {
	tests := []struct {
		max, n, budget int
		want           bool
	}{
		{-1, 4, 4, true},
		{-1, 5, 4, false},
		{2, 3, 10, false},
		{2, 2, 10, true},
		{0, 1, 10, false},
		{3, 3, -1, true},
	}
	for _, tt := range tests {
		p := retry.Policy{MaxRetries: tt.max}
		if got := p.Allows(tt.n, tt.budget); got != tt.want {
			t.Errorf("Policy{MaxRetries:%d}.Allows(%d, %d) = %v; want %v", tt.max, tt.n, tt.budget, got, tt.want)
		}
	}
}

func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := retry.Sleep(context.Background(), 3*time.Second); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("slept %v; want 3s", got)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start = time.Now()
		if err := retry.Sleep(ctx, time.Hour); err != context.DeadlineExceeded {
			t.Errorf("Sleep with expiring ctx = %v; want DeadlineExceeded", err)
		}
		if got := time.Since(start); got != time.Second {
			t.Errorf("cancelled sleep took %v; want 1s", got)
		}
	})
}

// TestSleeperWakes: Wake ends one wait at once, without an error, whether
// it comes during the wait or before it; the next wait lasts again, Arm
// drops a wake nobody used, and the wait's own end (ctx) stays an error.
func TestSleeperWakes(t *testing.T) {
	w := retry.NewWaker()
	calls := 0
	block := func(ctx context.Context, _ time.Duration) error { calls++; <-ctx.Done(); return ctx.Err() }
	sleep := w.Sleeper(block)
	done := make(chan error)
	go func() { done <- sleep(context.Background(), time.Hour) }()
	w.Wake()
	if err := <-done; err != nil {
		t.Errorf("a woken wait = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("a second wait = %v, want its context's end (one wake, one wait)", err)
	}
	w.Wake()
	w.Arm()
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("after Arm, the wait = %v, want its context's end", err)
	}
	before := calls
	w.Wake()
	if err := sleep(context.Background(), time.Hour); err != nil || calls != before {
		t.Errorf("a wake pending before the wait: %v, slept %d times; want nil without sleeping", err, calls-before)
	}
	var none *retry.Waker
	if none.Sleeper(block) == nil {
		t.Error("a nil Waker's Sleeper is nil")
	}
	none.Wake()
	none.Arm()
}

// TestBackoffServerDelayWins: a server delay wins over the schedule (and
// draws no jitter), capped by Max; beyond the cap the caller pauses.
func TestBackoffServerDelayWins(t *testing.T) {
	p := retry.Policy{Base: 200 * time.Millisecond, Max: time.Minute, Jitter: 0.1}
	draws := 0
	rand := func() float64 { draws++; return 0.5 }
	tests := []struct {
		name   string
		server time.Duration
		want   time.Duration
		draws  int
		pauses bool
	}{
		{"no server delay: the schedule", 0, 400 * time.Millisecond, 1, false},
		{"server delay wins", 7 * time.Second, 7 * time.Second, 0, false},
		{"at the cap", time.Minute, time.Minute, 0, false},
		{"beyond the cap: capped, and it pauses", 2 * time.Minute, time.Minute, 0, true},
	}
	for _, tt := range tests {
		draws = 0
		if got := p.Backoff(2, tt.server, rand); got != tt.want || draws != tt.draws {
			t.Errorf("%s: Backoff = %v with %d draws; want %v with %d", tt.name, got, draws, tt.want, tt.draws)
		}
		if got := p.Pauses(tt.server); got != tt.pauses {
			t.Errorf("%s: Pauses = %v; want %v", tt.name, got, tt.pauses)
		}
	}
	if (retry.Policy{}).Pauses(time.Hour) {
		t.Error("a policy without a cap paused")
	}
}
