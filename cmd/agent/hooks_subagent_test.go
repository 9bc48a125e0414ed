package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// hookGroup is one matcher group of hooks.json with one command hook.
func hookGroup(matcher, cmd string) []any {
	g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 20}}}
	if matcher != "" {
		g["matcher"] = matcher
	}
	return []any{g}
}

// writeHooks writes home's hooks.json with groups by event, and returns
// the [hooks.state] trusting them.
func writeHooks(t *testing.T, home string, groups map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"hooks": groups})
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return trustState(t, home)
}

// childHooks writes, in home, trusted hooks that only a subagent's turn
// runs: a PreToolUse hook on Bash blocking rm (the child runs rm, the
// parent runs no command) and a SubagentStop hook that fails; it returns
// the [hooks.state] trusting them.
func childHooks(t *testing.T, home string) string {
	t.Helper()
	return writeHooks(t, home, map[string]any{
		"PreToolUse":   hookGroup("Bash", `cat > /dev/null; echo "rm is not allowed here" >&2; exit 2`),
		"SubagentStop": hookGroup("", `cat > /dev/null; echo "audit log unavailable" >&2; exit 1`),
	})
}

// childScripts: the parent spawns an explorer (Euclid) and waits for it;
// the child tries rm -rf build, then answers.
func childScripts() map[string]rt.Script {
	fc := func(resp, id, name, args string) rt.Attempt {
		return rt.Stream(rt.Created(resp), rt.FunctionCallDone("fc-"+id, id, name, args), rt.Completed(resp))
	}
	return map[string]rt.Script{
		"parent task": {
			fc("p1", "c1", "spawn_agent", `{"message":"child task","agent_type":"explorer"}`),
			fc("p2", "c2", "wait_agent", `{"targets":["Euclid"],"timeout_ms":600000}`),
			rt.Reply("p3", "m3", "all done"),
		},
		"child task": {
			rt.Stream(rt.Created("k1"), execCallStep("rm -rf build"), rt.Completed("k1")),
			rt.Reply("k2", "km2", "found 3 files"),
		},
	}
}

// TestExecSubagentHookRuns: a subagent's hooks are shown where its
// parent's turn is: `agent exec --json` prints the child's blocked
// PreToolUse and failed SubagentStop as "hook" lines naming the child
// (agent, agent_id), and `agent exec` names them on stderr.
func TestExecSubagentHookRuns(t *testing.T) {
	t.Parallel()
	ps := newPromptServer(t, childScripts())
	home := t.TempDir()
	cfg := ps.config() + childHooks(t, home)
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

	ps = newPromptServer(t, childScripts())
	cfg = ps.config() + childHooks(t, home)
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

// TestACPSubagentHookRuns: `agent acp` names a subagent's blocked and
// failed hooks, and whose they are, to the client (agent_thought_chunk).
func TestACPSubagentHookRuns(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	ps := newPromptServer(t, childScripts())
	home, work := writeConfig(t, ps.URL, ""), t.TempDir()
	appendConfig(t, home, childHooks(t, home))
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
	ps := newPromptServer(t, childScripts())
	home, work := appServerConfig(t, ps.URL, false), t.TempDir()
	appendConfig(t, home, childHooks(t, home))
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

// TestExecJSONHookFailed: `agent exec --json` prints a failed hook as
// the documented line {"type":"hook","event":...,"status":"failed",
// "message":...,"hook":{"command","source","duration_ms"}}: one exiting
// 1 and a Stop hook answering garbage; the turn goes on.
func TestExecJSONHookFailed(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	trusted := writeHooks(t, home, map[string]any{
		"UserPromptSubmit": hookGroup("", `cat > /dev/null; echo "prompt log unavailable" >&2; exit 1`),
		"Stop":             hookGroup("", `cat > /dev/null; echo '{not json'`),
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
