package frontends

import (
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatGoal: /goal OBJECTIVE sends the objective and pursues it
// turn after turn; [goals] max_goal_turns stops it with a message naming
// the budget, the goal kept; /goal resume gives it another budget and it
// goes on until the model marks it complete; /goal shows it.
func TestE2EChatGoal(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Reply("r1", "m1", "first step done"),
		rt.Reply("r2", "m2", "second step done"),
		rt.Stream(rt.Created("r3"), rt.FunctionCallDone("g1", "c1", "update_goal", `{"status":"complete"}`), rt.Completed("r3")),
		rt.Reply("r4", "m4", "all finished"),
	})
	home := writeConfig(t, srv.URL, "[goals]\nmax_goal_turns = 1\n")
	c := startChat(t, bin, home, t.TempDir())
	c.send("/goal write the release notes")
	c.waitFor("second step done", "Goal stopped: its turn budget (1 turns) is spent")
	c.waitIdle()
	c.send("/goal")
	c.waitFor("Goal (budgetLimited): write the release notes")
	c.send("/goal resume")
	c.waitFor("all finished", "Goal complete: write the release notes")
	c.waitIdle()
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), "write the release notes") || !strings.Contains(string(reqs[1].Body), "Continue working toward the goal: write the release notes") {
		t.Errorf("the goal's requests lack the objective or the continuation prompt")
	}
	c.keys("C-d")
}
