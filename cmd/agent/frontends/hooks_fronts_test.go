package frontends

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/session/hooks"
)

// frontHooks writes, in home, trusted hooks every front end must run: a
// PreToolUse hook blocking rm, a UserPromptSubmit hook adding context, a
// SessionStart hook marking marks/start and a Stop hook answering garbage
// (a failure to name); it returns the [hooks.state] trusting them.
func frontHooks(t *testing.T, home, marks string) string {
	t.Helper()
	agenttest.HooksFile(t, home, map[hooks.Event]string{
		hooks.PreToolUse:       `echo "rm is not allowed here" >&2; exit 2`,
		hooks.UserPromptSubmit: `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-FROM-HOOK"}}'`,
		hooks.SessionStart:     "cat >> " + filepath.Join(marks, "start"),
		hooks.Stop:             `cat > /dev/null; echo '{not json'`,
	})
	return agenttest.TrustState(t, home)
}

// frontScript runs rm -rf build, then answers.
func frontScript() rt.Script {
	return rt.Script{
		rt.Stream(rt.Created("r1"), agenttest.ExecCallStep("rm -rf build"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "ok, not removing"),
	}
}

// checkFrontHooks: the hooks ran in the session of the front end: the
// command was blocked with the reason the model saw, the prompt's context
// was sent, SessionStart ran once.
func checkFrontHooks(t *testing.T, srv *rt.Server, marks string) {
	t.Helper()
	if got := agenttest.CallOutput(t, srv); got != "Command blocked by PreToolUse hook: rm is not allowed here. Command: rm -rf build" {
		t.Errorf("the model saw %q", got)
	}
	items := srv.Requests()[0].JSON["input"].([]any)
	if last, _ := json.Marshal(items[len(items)-1]); !strings.Contains(string(last), "CTX-FROM-HOOK") {
		t.Errorf("the UserPromptSubmit context is not the first request's last item: %s", last)
	}
	data, _ := os.ReadFile(filepath.Join(marks, "start"))
	if n := strings.Count(string(data), `"hook_event_name":"SessionStart"`); n != 1 {
		t.Errorf("SessionStart ran %d times; want 1", n)
	}
}

// TestACPHooks: `agent acp` sessions run the hooks (a blocking
// PreToolUse, UserPromptSubmit's context, SessionStart once), and name
// the hook that blocked and the one that answered garbage to the client
// (agent_thought_chunk updates), never skipping them silently.
func TestACPHooks(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, frontScript())
	home, marks, work := writeConfig(t, srv.URL, ""), t.TempDir(), t.TempDir()
	agenttest.AppendConfig(t, home, frontHooks(t, home, marks))
	p := startACP(t, bin, home, work, "-a", "never", "-s", "workspace-write")
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	p.response(t, 1)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+strconv.Quote(work)+`,"mcpServers":[]}}`)
	res, _ := p.response(t, 2)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"clean up"}]}}`)
	var thoughts strings.Builder
	p.next(t, "the prompt's response", func(m map[string]any) bool {
		params, _ := m["params"].(map[string]any)
		if u, _ := params["update"].(map[string]any); u["sessionUpdate"] == "agent_thought_chunk" {
			c, _ := u["content"].(map[string]any)
			fmt.Fprintln(&thoughts, c["text"])
		}
		return m["id"] == 3.0 && m["method"] == nil
	})
	checkFrontHooks(t, srv, marks)
	for _, want := range []string{"hook: PreToolUse Blocked: rm is not allowed here", "hook: Stop Failed: hook returned invalid Stop JSON output"} {
		if !strings.Contains(thoughts.String(), want) {
			t.Errorf("the client was not told %q; thoughts:\n%s", want, thoughts.String())
		}
	}
}

// TestAppServerHooks: app-server threads run the hooks, and each run is a
// hook/completed notification in Codex's shape (HookRunSummary: eventName,
// status, entries naming why), the blocked and the failed ones included.
func TestAppServerHooks(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, frontScript())
	home, marks, work := appServerConfig(t, srv.URL, false), t.TempDir(), t.TempDir()
	agenttest.AppendConfig(t, home, frontHooks(t, home, marks))
	url, _ := startAppServer(t, bin, home)
	c := dialAppServer(t, url)
	c.initialize()
	id := c.startThread(1, map[string]any{"cwd": work, "approvalPolicy": "never", "sandbox": "workspace-write"})
	c.call(2, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "clean up"}}})
	c.until(isMethod("turn/completed"))
	checkFrontHooks(t, srv, marks)
	runs := map[string]map[string]any{}
	for _, m := range c.seen {
		if m["method"] != "hook/completed" {
			continue
		}
		p := m["params"].(map[string]any)
		run, _ := p["run"].(map[string]any)
		if p["threadId"] != id || run == nil {
			t.Errorf("hook/completed %v", m)
			continue
		}
		runs[fmt.Sprint(run["eventName"])] = run
	}
	for ev, want := range map[string]string{"preToolUse": "blocked", "userPromptSubmit": "completed", "sessionStart": "completed", "stop": "failed"} {
		if runs[ev]["status"] != want {
			t.Errorf("hook/completed for %s: %v; want status %s", ev, runs[ev], want)
		}
	}
	for ev, want := range map[string]string{"preToolUse": "rm is not allowed here", "stop": "hook returned invalid Stop JSON output"} {
		if b, _ := json.Marshal(runs[ev]["entries"]); !strings.Contains(string(b), want) {
			t.Errorf("hook/completed for %s does not say %q: %s", ev, want, b)
		}
	}
}

// appendConfig appends text to home's config.toml.

// TestAppServerStartWhileTurnEnds: a prompt sent while a turn ends (its
// model done, a Stop hook still running) is the next turn, as in Codex:
// turn/steer says no turn takes input, and the turn/start Codex's TUI
// then sends waits for the ending turn instead of failing with "a turn
// in progress" (the message typed was lost, with an error on screen).
func TestAppServerStartWhileTurnEnds(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "done"), rt.Reply("r2", "m2", "second answer")})
	home, marks, work := appServerConfig(t, srv.URL, false), t.TempDir(), t.TempDir()
	stopping, release := filepath.Join(marks, "stopping"), filepath.Join(marks, "release")
	if err := syscall.Mkfifo(release, 0o600); err != nil {
		t.Fatal(err)
	}
	// The Stop hook holds the first turn's end until the test releases
	// it; the second turn's ends at once.
	agenttest.HooksFile(t, home, map[hooks.Event]string{hooks.Stop: "cat > /dev/null; [ -e " + stopping + " ] && exit 0; touch " + stopping + "; read line < " + release})
	agenttest.AppendConfig(t, home, agenttest.TrustState(t, home))
	url, stderr := startAppServer(t, bin, home)
	t.Cleanup(func() { // a hook still waiting (the test failed) is let go
		if f, err := os.OpenFile(release, os.O_RDWR, 0); err == nil {
			f.WriteString("go\n")
			f.Close()
		}
	})
	c := dialAppServer(t, url)
	c.initialize()
	id := c.startThread(1, map[string]any{"cwd": work, "approvalPolicy": "never"})
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	res := c.call(2, "turn/start", map[string]any{"threadId": id, "input": text("first")})
	first, _ := res["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	if !pollBackoff(20*time.Second, func() bool { _, err := os.Stat(stopping); return err == nil }) {
		t.Fatalf("the Stop hook did not run\nagent:\n%s", stderr)
	}
	if code, msg := errorOf(c.call(3, "turn/steer", map[string]any{"threadId": id, "expectedTurnId": first, "input": text("second")})); code != -32600 || !strings.Contains(msg, "no active turn") {
		t.Errorf("turn/steer of an ending turn: %v %q; want Codex's -32600 no active turn", code, msg)
	}
	c.send(map[string]any{"id": 4, "method": "turn/start", "params": map[string]any{"threadId": id, "input": text("second")}})
	f, err := os.OpenFile(release, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
	if res := c.until(isID(float64(4))); res["result"] == nil {
		t.Fatalf("turn/start while the turn ended: %v", res)
	}
	c.until(func(m map[string]any) bool {
		if m["method"] != "turn/completed" {
			return false
		}
		tu, _ := m["params"].(map[string]any)["turn"].(map[string]any)
		return tu["id"] != first
	})
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests; want 2", len(reqs))
	}
	if b, _ := json.Marshal(reqs[1].JSON["input"]); !strings.Contains(string(b), `"second"`) {
		t.Errorf("the second turn's request does not carry the prompt: %s", b)
	}
}
