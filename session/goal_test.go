package session_test

import (
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// withGoals turns goals on with limits l.
func withGoals(l session.GoalLimits) option {
	return func(_ *provider.Info, o *session.Options) { l.Enabled = true; o.Goals = l }
}

func goalMessages(h *harness) []string {
	var out []string
	for _, ev := range h.events {
		if g, ok := ev.(session.GoalUpdated); ok && g.Message != "" {
			out = append(out, g.Message)
		}
	}
	return out
}

// TestGoalEndsWhenTheModelMarksItDone: a goal set by the user is pursued
// turn after turn with its continuation prompt, the goal tools offered,
// until the model calls update_goal complete; a resumed session has the
// goal, as it was.
func TestGoalEndsWhenTheModelMarksItDone(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Reply("r1", "m1", "working"),
		rt.Stream(rt.Created("r2"), rt.FunctionCallDone("g1", "c1", "update_goal", `{"status":"complete"}`), rt.Completed("r2")),
		rt.Reply("r3", "m3", "done"),
	}, withTools(t, t.TempDir(), tools.PolicyNever, nil), withGoals(session.GoalLimits{}))
	g, err := h.sess.SetGoal("make the tests pass", 0)
	if err != nil || g.TokenBudget != session.DefaultGoalTokens || g.TurnBudget != session.DefaultGoalTurns || g.TimeBudget != session.DefaultGoalWallTime {
		t.Fatalf("SetGoal = %+v, %v; want the default budgets", g, err)
	}
	if err := h.sess.Pursue(t.Context(), func(ev session.Event) { h.events = append(h.events, ev) }); err != nil {
		t.Fatal(err)
	}
	got := h.sess.Goal()
	if got == nil || got.Status != session.GoalComplete || got.TurnsUsed != 2 {
		t.Fatalf("goal after pursuit: %+v", got)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	body := string(reqs[0].Body)
	for _, want := range []string{"Continue working toward the goal: make the tests pass", `"name":"update_goal"`, `"name":"create_goal"`, `"name":"get_goal"`, "goal_state"} {
		if !strings.Contains(body, want) {
			t.Errorf("the first goal request lacks %q", want)
		}
	}
	if msgs := goalMessages(h); len(msgs) != 1 || !strings.Contains(msgs[0], "Goal complete") {
		t.Errorf("goal messages %q", msgs)
	}
	history := h.sess.History()
	resumed := newHarness(t, rt.Script{}, withGoals(session.GoalLimits{}), func(_ *provider.Info, o *session.Options) { o.Resumed = history }).sess
	if rg := resumed.Goal(); rg == nil || rg.Objective != "make the tests pass" || rg.Status != session.GoalComplete || rg.TurnsUsed != 2 {
		t.Fatalf("resumed goal %+v", rg)
	}
}

// TestGoalStopsAtItsBudgets: a goal that never ends is stopped by its
// turn budget, then (resumed by the user) by its token budget, each time
// with a message naming the budget, the goal kept and resumable; the
// model's create_goal is capped by the configured token maximum.
func TestGoalStopsAtItsBudgets(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Reply("r1", "m1", "still going"),
		rt.Reply("r2", "m2", "still going"),
		rt.Stream(rt.Created("r3"), rt.MessageDone("m3", "big"), rt.CompletedUsage("r3", 900, 0, 100, 0)),
	}, withTools(t, t.TempDir(), tools.PolicyNever, nil), withGoals(session.GoalLimits{Turns: 2, Tokens: 500}))
	if _, err := h.sess.SetGoal("never ends", 0); err != nil {
		t.Fatal(err)
	}
	emit := func(ev session.Event) { h.events = append(h.events, ev) }
	if err := h.sess.Pursue(t.Context(), emit); err != nil {
		t.Fatal(err)
	}
	g := h.sess.Goal()
	if g.Status != session.GoalBudgetLimited || g.TurnsUsed != 2 || len(h.srv.Requests()) != 2 {
		t.Fatalf("after the turn budget: %+v, %d requests", g, len(h.srv.Requests()))
	}
	if msgs := goalMessages(h); len(msgs) != 1 || !strings.Contains(msgs[0], "turn budget (2 turns)") {
		t.Fatalf("messages %q", msgs)
	}
	if again, _ := h.sess.SetGoalStatus(session.GoalActive); again.TurnBudget != 4 {
		t.Fatalf("resumed with turn budget %d, want 4", again.TurnBudget)
	}
	if err := h.sess.Pursue(t.Context(), emit); err != nil {
		t.Fatal(err)
	}
	g = h.sess.Goal()
	if g.Status != session.GoalBudgetLimited || len(h.srv.Requests()) != 3 {
		t.Fatalf("after the token budget: %+v, %d requests", g, len(h.srv.Requests()))
	}
	if msgs := goalMessages(h); len(msgs) != 2 || !strings.Contains(msgs[1], "token budget (500 tokens)") {
		t.Fatalf("messages %q", msgs)
	}
}

// TestGoalUsageLimitPauses: a usage limit does not end the goal: it is
// paused as usageLimited, to go on after the reset.
func TestGoalUsageLimitPauses(t *testing.T) {
	h := newHarness(t, rt.Script{rt.Error(429, "usage_limit_reached", "", "limit")},
		withTools(t, t.TempDir(), tools.PolicyNever, nil), withGoals(session.GoalLimits{}))
	if _, err := h.sess.SetGoal("objective", 0); err != nil {
		t.Fatal(err)
	}
	if err := h.sess.Pursue(t.Context(), func(ev session.Event) { h.events = append(h.events, ev) }); err == nil {
		t.Fatal("the failed turn's error was not returned")
	}
	if g := h.sess.Goal(); g.Status != session.GoalUsageLimited {
		t.Fatalf("goal %+v; want usageLimited", g)
	}
	if msgs := goalMessages(h); len(msgs) != 1 || !strings.Contains(msgs[0], "usage limit") {
		t.Fatalf("messages %q", msgs)
	}
}

// TestModelCreatesAGoal: create_goal sets the goal (its token budget
// capped by the maximum), get_goal reports it; without goals enabled the
// tools are not offered.
func TestModelCreatesAGoal(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("g1", "c1", "create_goal", `{"objective":"ship it","token_budget":99999999}`),
			rt.FunctionCallDone("g2", "c2", "get_goal", `{}`), rt.Completed("r1")),
		rt.Reply("r2", "m2", "ok"),
	}, withTools(t, t.TempDir(), tools.PolicyNever, nil), withGoals(session.GoalLimits{Tokens: 1000}))
	if err := h.turn(t, "set a goal"); err != nil {
		t.Fatal(err)
	}
	g := h.sess.Goal()
	if g == nil || g.Objective != "ship it" || g.TokenBudget != 1000 || g.Status != session.GoalActive {
		t.Fatalf("goal %+v", g)
	}
	if out := outputOf(t, h.srv.Requests()[1], "c2"); !strings.Contains(out, `"objective":"ship it"`) || !strings.Contains(out, `"tokenBudget":1000`) {
		t.Errorf("get_goal said %q", out)
	}
	off := newHarness(t, rt.Script{rt.Reply("r1", "m1", "ok")}, withTools(t, t.TempDir(), tools.PolicyNever, nil))
	if err := off.turn(t, "hi"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(off.srv.Requests()[0].Body), "create_goal") {
		t.Error("goal tools offered with goals off")
	}
}
