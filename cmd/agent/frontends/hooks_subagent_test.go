package frontends

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
)

// TestACPSubagentHookRuns: `agent acp` names a subagent's blocked and
// failed hooks, and whose they are, to the client (agent_thought_chunk).
func TestACPSubagentHookRuns(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	ps := agenttest.NewPromptServer(t, agenttest.ChildScripts())
	home, work := writeConfig(t, ps.URL, ""), t.TempDir()
	agenttest.AppendConfig(t, home, agenttest.ChildHooks(t, home))
	p := startACP(t, bin, home, work, "-a", "never", "-s", "workspace-write")
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	p.response(t, 1)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+strconv.Quote(work)+`,"mcpServers":[]}}`)
	res, _ := p.response(t, 2)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"parent task"}]}}`)
	var thoughts strings.Builder
	p.next(t, "the prompt's response", func(m map[string]any) bool {
		params, _ := m["params"].(map[string]any)
		if u, _ := params["update"].(map[string]any); u["sessionUpdate"] == "agent_thought_chunk" {
			c, _ := u["content"].(map[string]any)
			fmt.Fprintln(&thoughts, c["text"])
		}
		return m["id"] == 3.0 && m["method"] == nil
	})
	for _, want := range []string{"hook of subagent Euclid (explorer): PreToolUse Blocked: rm is not allowed here",
		"hook of subagent Euclid (explorer): SubagentStop Failed: ", "audit log unavailable"} {
		if !strings.Contains(thoughts.String(), want) {
			t.Errorf("the client was not told %q; thoughts:\n%s", want, thoughts.String())
		}
	}
}

// TestAppServerSubagentHookRuns: the app-server tells its client of a
// subagent's hook runs as hook/completed of the child's thread (as Codex,
// where the hook ran), the failed SubagentStop with its error.
func TestAppServerSubagentHookRuns(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	ps := agenttest.NewPromptServer(t, agenttest.ChildScripts())
	home, work := appServerConfig(t, ps.URL, false), t.TempDir()
	agenttest.AppendConfig(t, home, agenttest.ChildHooks(t, home))
	url, _ := startAppServer(t, bin, home)
	c := dialAppServer(t, url)
	c.initialize()
	id := c.startThread(1, map[string]any{"cwd": work, "approvalPolicy": "never", "sandbox": "workspace-write"})
	c.call(2, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "parent task"}}})
	c.until(isMethod("turn/completed"))
	runs := map[string]map[string]any{}
	threads := map[string]any{}
	for _, m := range c.seen {
		if m["method"] != "hook/completed" {
			continue
		}
		p := m["params"].(map[string]any)
		run, _ := p["run"].(map[string]any)
		ev := fmt.Sprint(run["eventName"])
		runs[ev], threads[ev] = run, p["threadId"]
	}
	for ev, want := range map[string][2]string{"preToolUse": {"blocked", "rm is not allowed here"}, "subagentStop": {"failed", "audit log unavailable"}} {
		b, _ := json.Marshal(runs[ev]["entries"])
		if runs[ev]["status"] != want[0] || !strings.Contains(string(b), want[1]) {
			t.Errorf("hook/completed for %s: %v; want status %s saying %q", ev, runs[ev], want[0], want[1])
		}
		if th, _ := threads[ev].(string); th == "" || th == id {
			t.Errorf("hook/completed for %s has threadId %v; want the child's thread, not the parent's %s", ev, threads[ev], id)
		}
	}
}
