package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

var errTransient = errors.New("transient")

// TestCoordinator covers the schedule, the budget, both predicates and
// the prompts sent, on a recording clock.
func TestCoordinator(t *testing.T) {
	pol := session.ContinuePolicy{Enabled: true, Delays: []time.Duration{10 * time.Second, 20 * time.Second, time.Minute}, Prompt: "go on"}
	tests := []struct {
		name     string
		policy   session.ContinuePolicy
		fails    int // attempts that fail before one succeeds
		canCont  error
		retry    bool
		prompts  []string
		sleeps   []time.Duration
		errCheck func(error) bool
	}{
		{"success first", pol, 0, nil, true, []string{"task"}, nil, func(e error) bool { return e == nil }},
		{"two failures then success", pol, 2, nil, true, []string{"task", "go on", "go on"},
			[]time.Duration{10 * time.Second, 20 * time.Second}, func(e error) bool { return e == nil }},
		{"schedule exhausted pauses", pol, 9, nil, true, []string{"task", "go on", "go on", "go on"},
			[]time.Duration{10 * time.Second, 20 * time.Second, time.Minute}, func(e error) bool {
				var o *modelclient.Outcome
				return errors.As(e, &o) && o.End == modelclient.EndPaused && errors.Is(e, errTransient)
			}},
		{"not retryable returns at once", pol, 9, nil, false, []string{"task"}, nil, func(e error) bool { return errors.Is(e, errTransient) }},
		{"cannot continue stops with the reason", pol, 9, errors.New("tool call in unknown state"), true, []string{"task"}, nil, func(e error) bool {
			var o *modelclient.Outcome
			return errors.As(e, &o) && o.End == modelclient.EndNotContinued && strings.Contains(e.Error(), "unknown state")
		}},
		{"disabled behaves as without it", session.ContinuePolicy{}, 9, nil, true, []string{"task"}, nil, func(e error) bool { return errors.Is(e, errTransient) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prompts []string
			var sleeps []time.Duration
			notified := 0
			c := &session.Coordinator{
				Policy:      tt.policy.Snapshot(),
				Sleep:       func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil },
				Retryable:   func(error) bool { return tt.retry },
				CanContinue: func() error { return tt.canCont },
				Notify:      func(int, time.Duration, error) { notified++ },
			}
			err := c.Run(context.Background(), "task", func(_ context.Context, p string) error {
				prompts = append(prompts, p)
				if len(prompts) <= tt.fails {
					return errTransient
				}
				return nil
			})
			if !tt.errCheck(err) {
				t.Errorf("err = %v", err)
			}
			if diff := cmp.Diff(tt.prompts, prompts); diff != "" {
				t.Errorf("prompts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.sleeps, sleeps); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			if notified != len(tt.sleeps) {
				t.Errorf("notified %d times; want %d", notified, len(tt.sleeps))
			}
		})
	}
}

func TestPolicySnapshotIsIndependent(t *testing.T) {
	p := session.DefaultContinuePolicy()
	snap := p.Snapshot()
	p.Delays[0] = time.Hour
	p.Prompt = "changed"
	if snap.Delays[0] != 10*time.Second || snap.Prompt != session.DefaultContinuePrompt {
		t.Errorf("snapshot changed with the config: %+v", snap)
	}
}

func withContinue(p session.ContinuePolicy) option {
	return func(_ *provider.Info, o *session.Options) { o.Continue = p }
}

// TestContinuationAfterRepeatedDeaths: the stream dies after three deltas,
// three times, with no stream budget left each time; continuations carry
// the continuation prompt and the full history, the partial text is
// retracted every time, and the final answer appears once.
func TestContinuationAfterRepeatedDeaths(t *testing.T) {
	dies := func(id string) rt.Attempt {
		return rt.Stream(rt.Created(id), rt.TextDelta("m"+id, "one "), rt.TextDelta("m"+id, "two "), rt.TextDelta("m"+id, "three "), rt.Drop())
	}
	pol := session.ContinuePolicy{Enabled: true, Delays: []time.Duration{10 * time.Second, 20 * time.Second, time.Minute}, Prompt: "continue please"}
	h := newHarness(t, rt.Script{dies("1"), dies("2"), dies("3"), rt.Reply("r4", "m4", "finished answer")},
		withStreamRetries(0), withContinue(pol), withRetryMaxWait(0)) // the whole schedule: no time bound
	if err := h.turn(t, "long task"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"finished answer"}, h.messages()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	// Live text: every fragment is retracted before the next attempt.
	var live []string
	for _, ev := range h.events {
		switch e := ev.(type) {
		case session.TextDelta:
			live = append(live, e.Delta)
		case session.Retracted:
			live = nil
		}
	}
	if got := strings.Join(live, ""); got != "finished answer" {
		t.Errorf("text left on screen = %q; want only the final answer", got)
	}
	var cont []time.Duration
	for _, r := range h.retries() {
		if r.Layer == session.LayerContinue {
			cont = append(cont, r.Delay)
		}
	}
	if diff := cmp.Diff(pol.Delays, cont); diff != "" {
		t.Errorf("continue waits (-want +got):\n%s", diff)
	}
	reqs := h.srv.Requests()
	for i, r := range reqs {
		in := r.JSON["input"].([]any)
		// The continuation prompt is recorded once: every continuation
		// carries the history with it exactly once.
		if n, want := len(in), min(i+1, 2); n != want {
			t.Errorf("request %d has %d input items; want %d", i, n, want)
		}
		if n := strings.Count(string(r.Body), "continue please"); n != min(i, 1) {
			t.Errorf("request %d carries the continuation prompt %d times; want %d", i, n, min(i, 1))
		}
		first := in[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
		if first != "long task" {
			t.Errorf("request %d starts with %v", i, first)
		}
		if i > 0 {
			lastMsg := in[len(in)-1].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
			if lastMsg != "continue please" {
				t.Errorf("request %d ends with %v; want the continuation prompt", i, lastMsg)
			}
		}
		if strings.Count(string(r.Body), "long task") != 1 {
			t.Errorf("request %d repeats the original prompt", i)
		}
	}
}

func TestContinuationPausesWhenScheduleRunsOut(t *testing.T) {
	cut := rt.Stream(rt.Created("r"), rt.TextDelta("m", "x"), rt.Drop())
	h := newHarness(t, rt.Script{cut, cut}, withStreamRetries(0),
		withContinue(session.ContinuePolicy{Enabled: true, Delays: []time.Duration{time.Second}}))
	err := h.turn(t, "task")
	var te *session.TurnError
	if !errors.As(err, &te) || !te.Paused() || !strings.Contains(err.Error(), "agent exec resume --last") {
		t.Errorf("err = %v; want a paused turn that says how to continue", err)
	}
}

// TestNoContinuationWithUnknownToolCall: a call of this turn started and
// its outcome is unknown (its output never recorded): the turn is not
// continued.
func TestNoContinuationWithUnknownToolCall(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r"), rt.TextDelta("m", "x"), rt.Drop()),
	}, withStreamRetries(0), withContinue(session.DefaultContinuePolicy()),
		withTools(t, t.TempDir(), tools.PolicyNever, nil))
	err := h.sess.Turn(t.Context(), "task", func(ev session.Event) {
		if _, ok := ev.(session.TextDelta); ok { // the call starts during this turn
			h.sess.Ledger().Restore([]session.LedgerEntry{{CallID: "now", Name: "exec_command", State: session.CallStarted}})
		}
	})
	var te *session.TurnError
	if !errors.As(err, &te) || te.Paused() || te.End != modelclient.EndNotContinued || !strings.Contains(te.Reason, "unknown") {
		t.Fatalf("err = %v; want not continued because of the unknown call", err)
	}
	if len(h.srv.Requests()) != 1 || len(h.sleeps) != 0 {
		t.Errorf("%d requests, sleeps %v; want 1 and none", len(h.srv.Requests()), h.sleeps)
	}
	if te.Failure.Kind != modelclient.KindTransport {
		t.Errorf("kind = %v", te.Failure.Kind)
	}
}

// TestEarlierUnknownToolCallDoesNotStopContinuation: a call of an earlier
// turn whose outcome is unknown stops that turn's auto-continue only.
func TestEarlierUnknownToolCallDoesNotStopContinuation(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r"), rt.TextDelta("m", "x"), rt.Drop()),
		rt.Reply("r2", "m2", "done"),
	}, withStreamRetries(0), withContinue(session.DefaultContinuePolicy()),
		withTools(t, t.TempDir(), tools.PolicyNever, nil))
	h.sess.Ledger().Restore([]session.LedgerEntry{{CallID: "old", Name: "exec_command", State: session.CallStarted}})
	if err := h.turn(t, "task"); err != nil {
		t.Fatalf("err = %v; want the turn continued and completed", err)
	}
	if diff := cmp.Diff([]time.Duration{10 * time.Second}, h.sleeps); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"done"}, h.messages()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}
