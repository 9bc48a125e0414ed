package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestExecSubagentHookRuns: a subagent's hooks are shown where its
// parent's turn is: `agent exec --json` prints the child's blocked
// PreToolUse and failed SubagentStop as "hook" lines naming the child
// (agent, agent_id), and `agent exec` names them on stderr.
func TestExecSubagentHookRuns(t *testing.T) {
	t.Parallel()
	ps := agenttest.NewPromptServer(t, agenttest.ChildScripts())
	home := t.TempDir()
	cfg := ps.Config() + agenttest.ChildHooks(t, home)
	r := runCLI(t, nil, runOpts{home: home, config: cfg}, "exec", "--json", "parent task")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	hooksSeen := map[string]map[string]any{}
	child := ""
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		if it, _ := ev["item"].(map[string]any); it != nil && it["tool"] == "spawn_agent" && ev["type"] == "item.completed" {
			ids, _ := it["receiver_thread_ids"].([]any)
			if len(ids) == 1 {
				child, _ = ids[0].(string)
			}
		}
		if ev["type"] == "hook" {
			hooksSeen[ev["event"].(string)] = ev
		}
	}
	for event, want := range map[string][2]string{
		"PreToolUse":   {"blocked", "rm is not allowed here"},
		"SubagentStop": {"failed", "audit log unavailable"},
	} {
		ev := hooksSeen[event]
		msg, _ := ev["message"].(string)
		if ev["status"] != want[0] || !strings.Contains(msg, want[1]) || ev["agent"] != "Euclid (explorer)" || child == "" || ev["agent_id"] != child {
			t.Errorf("%s: %v; want status %s, a message with %q, agent Euclid (explorer), agent_id %s", event, ev, want[0], want[1], child)
		}
	}
	if !strings.Contains(r.stdout, `"text":"all done"`) {
		t.Errorf("no final answer:\n%s", r.stdout)
	}

	ps = agenttest.NewPromptServer(t, agenttest.ChildScripts())
	cfg = ps.Config() + agenttest.ChildHooks(t, home)
	r = runCLI(t, nil, runOpts{home: home, config: cfg}, "exec", "parent task")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"hook of subagent Euclid (explorer): PreToolUse Blocked: rm is not allowed here",
		"hook of subagent Euclid (explorer): SubagentStop Failed: ", "audit log unavailable"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestExecJSONHookFailed: `agent exec --json` prints a failed hook as
// the documented line {"type":"hook","event":...,"status":"failed",
// "message":...,"hook":{"command","source","duration_ms"}}: one exiting
// 1 and a Stop hook answering garbage; the turn goes on.
func TestExecJSONHookFailed(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	trusted := agenttest.WriteHooks(t, home, map[string]any{
		"UserPromptSubmit": agenttest.HookGroup("", `cat > /dev/null; echo "prompt log unavailable" >&2; exit 1`),
		"Stop":             agenttest.HookGroup("", `cat > /dev/null; echo '{not json'`),
	})
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "hi there")})
	r := runCLI(t, srv, runOpts{home: home, config: fakeConfig + trusted}, "exec", "--json", "hi")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	type hookLine struct {
		Type, Event, Status, Message string
		Hook                         *struct {
			Command, Source string
			DurationMS      *int64 `json:"duration_ms"`
		}
	}
	got := map[string]hookLine{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev hookLine
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not JSON: %s", line)
		}
		if ev.Type == "hook" {
			got[ev.Event] = ev
		}
	}
	for event, msg := range map[string]string{"UserPromptSubmit": "hook exited with code 1: prompt log unavailable",
		"Stop": "hook returned invalid Stop JSON output"} {
		ev := got[event]
		if ev.Status != "failed" || !strings.Contains(ev.Message, msg) || ev.Hook == nil || !strings.Contains(ev.Hook.Command, "cat > /dev/null") ||
			ev.Hook.Source != filepath.Join(home, "hooks.json") || ev.Hook.DurationMS == nil {
			t.Errorf("%s: %+v (hook %+v); want status failed saying %q, with the hook's command, source and duration", event, ev, ev.Hook, msg)
		}
	}
	if !strings.Contains(r.stdout, `"text":"hi there"`) {
		t.Errorf("the turn did not go on past the failed hooks:\n%s", r.stdout)
	}
}
