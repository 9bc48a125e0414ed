package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/retry"
)

var errBoom = errors.New("boom")

// recorder is an injected sleeper that records every wait.
type recorder struct{ waits []time.Duration }

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return ctx.Err()
}

func TestDoSpendsOneBudgetAndStops(t *testing.T) {
	rec := &recorder{}
	b := retry.NewBudget("stream", 3, 0)
	var notes []retry.Wait
	calls := 0
	_, err := retry.Do(t.Context(), retry.Driver{
		Sleep:  rec.sleep,
		Decide: func(error) retry.Decision { return retry.Decision{Budget: b, Delay: time.Second} },
		Notify: func(w retry.Wait) { w.Err = nil; notes = append(notes, w) },
	}, func(context.Context, int) (int, error) { calls++; return 0, errBoom })
	if !errors.Is(err, errBoom) || calls != 4 {
		t.Fatalf("err %v after %d calls; want boom after 4", err, calls)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, time.Second, time.Second}, rec.waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	want := []retry.Wait{
		{Layer: "stream", Attempt: 1, Max: 3, Left: 2, Delay: time.Second, Waited: time.Second},
		{Layer: "stream", Attempt: 2, Max: 3, Left: 1, Delay: time.Second, Waited: 2 * time.Second},
		{Layer: "stream", Attempt: 3, Max: 3, Left: 0, Delay: time.Second, Waited: 3 * time.Second},
	}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}

func TestDoMaxWaitTrimsTheLastWait(t *testing.T) {
	rec := &recorder{}
	b := retry.NewBudget("connection", -1, 25*time.Second)
	calls := 0
	_, err := retry.Do(t.Context(), retry.Driver{
		Sleep:  rec.sleep,
		Decide: func(error) retry.Decision { return retry.Decision{Budget: b, Delay: 10 * time.Second} },
	}, func(context.Context, int) (struct{}, error) { calls++; return struct{}{}, errBoom })
	if !errors.Is(err, errBoom) || calls != 4 {
		t.Fatalf("err %v after %d calls; want boom after 4", err, calls)
	}
	if diff := cmp.Diff([]time.Duration{10 * time.Second, 10 * time.Second, 5 * time.Second}, rec.waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestDoAgainFinalAndSuccess(t *testing.T) {
	rec := &recorder{}
	final := errors.New("paused")
	calls := 0
	v, err := retry.Do(t.Context(), retry.Driver{
		Sleep: rec.sleep,
		Decide: func(err error) retry.Decision {
			if calls == 1 {
				return retry.Decision{Again: true}
			}
			return retry.Decision{Final: final}
		},
	}, func(context.Context, int) (int, error) { calls++; return calls, errBoom })
	if err != final || v != 2 || len(rec.waits) != 0 {
		t.Fatalf("got %d, %v, waits %v; want 2, paused, none", v, err, rec.waits)
	}
	v, err = retry.Do(t.Context(), retry.Driver{Sleep: rec.sleep, Decide: func(error) retry.Decision { return retry.Decision{} }},
		func(_ context.Context, n int) (int, error) { return n, nil })
	if err != nil || v != 1 {
		t.Fatalf("got %d, %v; want 1, nil", v, err)
	}
}

func TestDoCancelledWait(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	b := retry.NewBudget("http", 4, 0)
	_, err := retry.Do(ctx, retry.Driver{
		Sleep:  func(context.Context, time.Duration) error { cancel(); return context.Canceled },
		Decide: func(error) retry.Decision { return retry.Decision{Budget: b, Delay: time.Second} },
	}, func(context.Context, int) (int, error) { return 0, errBoom })
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errBoom) {
		t.Fatalf("err = %v; want canceled joined with boom", err)
	}
	if b.Spent() != 1 {
		t.Errorf("spent %d; want 1", b.Spent())
	}
}
