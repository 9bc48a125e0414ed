package frontends

import (
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// goalOf is the goal in a thread/goal/* result or notification.
func goalOf(t *testing.T, m map[string]any, key string) map[string]any {
	t.Helper()
	p, _ := m[key].(map[string]any)
	g, _ := p["goal"].(map[string]any)
	if g == nil {
		t.Fatalf("no goal in %v", m)
	}
	return g
}

// TestAppServerGoals: Codex 0.171's thread/goal/set, get and clear, every
// message checked against the schema Codex generates. A goal set by the
// client is continued at once, each continuation a turn of its own
// (turn/started … turn/completed) whose request is the goal's prompt,
// until the model marks it complete; thread/goal/updated tells of each
// change (the model's create_goal within its turn, with its turnId), and
// a goal the model creates in a turn the client started is continued
// after it too; clear sends thread/goal/cleared; changing a goal the
// thread does not have is an error naming it.
func TestAppServerGoals(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		agenttest.CompleteGoal("r1"), rt.Reply("r2", "m2", "shipped"),
		agenttest.CreateGoal("r3", "document it"), rt.Reply("r4", "m4", "goal made"),
		agenttest.CompleteGoal("r5"), rt.Reply("r6", "m6", "documented"),
	})
	url, stderr := startAppServer(t, bin, appServerConfig(t, srv.URL, false))
	c := dialAppServer(t, validating(t, url))
	c.initialize()
	id := c.startThread(1, map[string]any{"cwd": t.TempDir()})

	if g := c.call(2, "thread/goal/get", map[string]any{"threadId": id}); g["result"].(map[string]any)["goal"] != nil {
		t.Fatalf("a new thread has a goal: %v", g)
	}
	res := c.call(3, "thread/goal/set", map[string]any{"threadId": id, "objective": "ship it", "tokenBudget": 100000})
	if g := goalOf(t, res, "result"); g["status"] != "active" || g["objective"] != "ship it" || g["tokenBudget"] != 100000.0 || g["tokensUsed"] != 0.0 {
		t.Fatalf("thread/goal/set: %v", res)
	}
	c.until(isMethod("thread/goal/updated"))
	c.until(isMethod("turn/started"))
	c.until(func(m map[string]any) bool {
		return m["method"] == "thread/goal/updated" && goalOf(t, m, "params")["status"] == "complete"
	})
	c.until(isMethod("turn/completed"))
	if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), "Continue working toward the goal: ship it") {
		t.Fatalf("%d requests; want the goal's continuation, then its answer\n%s", len(reqs), stderr)
	}
	if g := goalOf(t, c.call(4, "thread/goal/get", map[string]any{"threadId": id}), "result"); g["status"] != "complete" || g["tokensUsed"].(float64) <= 0 || g["threadId"] != id {
		t.Errorf("thread/goal/get after completion: %v; want complete, with the tokens its turn used", g)
	}

	c.call(5, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "make documenting it a goal"}}})
	first := c.until(isMethod("turn/started"))["params"].(map[string]any)["turn"].(map[string]any)["id"]
	made := c.until(isMethod("thread/goal/updated"))["params"].(map[string]any)
	if made["turnId"] != first || goalOf(t, map[string]any{"p": made}, "p")["objective"] != "document it" {
		t.Errorf("the model's create_goal: %v; want it told within turn %v", made, first)
	}
	c.until(isMethod("turn/completed"))
	second := c.until(isMethod("turn/started"))["params"].(map[string]any)["turn"].(map[string]any)["id"]
	c.until(isMethod("turn/completed"))
	if second == first || len(srv.Requests()) != 6 {
		t.Errorf("the model's goal was not continued in a turn of its own: turns %v, %v; %d requests", first, second, len(srv.Requests()))
	}

	if res := c.call(6, "thread/goal/clear", map[string]any{"threadId": id}); res["result"].(map[string]any)["cleared"] != true {
		t.Errorf("thread/goal/clear: %v", res)
	}
	c.until(isMethod("thread/goal/cleared"))
	res = c.call(7, "thread/goal/set", map[string]any{"threadId": id, "status": "paused"})
	if code, msg := errorOf(res); code == 0 || !strings.Contains(msg, "thread/goal/set") || !strings.Contains(msg, "no goal") {
		t.Errorf("pausing a goal the thread does not have: %v", res)
	}
	if res := c.call(8, "thread/goal/clear", map[string]any{"threadId": id}); res["result"].(map[string]any)["cleared"] != false {
		t.Errorf("clearing again: %v", res)
	}
}
