package frontends

import (
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatHookFailed: in the real chat a hook that fails is named on
// screen, the session's own and a subagent's (with whose it is): a
// UserPromptSubmit hook exiting 1 on the parent's prompt and on the
// explorer's task.
func TestE2EChatHookFailed(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	fc := func(resp, id, name, args string) rt.Attempt {
		return rt.Stream(rt.Created(resp), rt.FunctionCallDone("fc-"+id, id, name, args), rt.Completed(resp))
	}
	ps := agenttest.NewPromptServer(t, map[string]rt.Script{
		"parent task": {
			fc("p1", "c1", "spawn_agent", `{"message":"child task","agent_type":"explorer"}`),
			fc("p2", "c2", "wait_agent", `{"targets":["Euclid"],"timeout_ms":600000}`),
			rt.Reply("p3", "m3", "all done"),
		},
		"child task": {rt.Reply("k1", "km1", "found 3 files")},
	})
	home := writeConfig(t, ps.URL, "")
	agenttest.AppendConfig(t, home, agenttest.WriteHooks(t, home, map[string]any{
		"UserPromptSubmit": agenttest.HookGroup("", `cat > /dev/null; echo "prompt log unavailable" >&2; exit 1`),
	}))
	c := startChat(t, bin, home, t.TempDir())
	c.send("parent task")
	c.waitFor("hook: UserPromptSubmit Failed: hook exited with code 1: prompt log unavailable",
		"hook of subagent Euclid (explorer): UserPromptSubmit Failed", "all done")
	c.waitIdle()
	c.keys("C-d")
}
