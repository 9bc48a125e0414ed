package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/hooks"
	"github.com/agentcli/agent/tools"
)

// withHooks gives the session the hooks of a hooks.json written in a
// fresh home (trust bypassed: trust is the hooks package's and the app's),
// run in dir.
func withHooks(t *testing.T, dir string, events map[hooks.Event]string) option {
	t.Helper()
	home := t.TempDir()
	groups := map[string]any{}
	for ev, cmd := range events {
		groups[string(ev)] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 20}}}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": groups})
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	set := hooks.Discover(hooks.Sources{Home: home, BypassTrust: true})
	if len(set.Warnings) > 0 {
		t.Fatal(set.Warnings)
	}
	return func(_ *provider.Info, o *session.Options) {
		o.Hooks = &session.Hooks{Set: set, Runner: &hooks.Runner{}, SessionID: "sess-1", Cwd: dir, TranscriptPath: filepath.Join(dir, "rollout.jsonl")}
	}
}

func TestPreToolUseHookBlocksACommand(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("fc1", "call_1", "touch ran.txt"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "ok"),
	}, withTools(t, dir, tools.PolicyNever, nil),
		withHooks(t, dir, map[hooks.Event]string{hooks.PreToolUse: `cat > pre.json; echo "touching files is not allowed here" >&2; exit 2`}))
	if err := h.turn(t, "touch it"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
		t.Fatal("the blocked command ran")
	}
	got := outputOf(t, h.srv.Requests()[1], "call_1")
	want := "Command blocked by PreToolUse hook: touching files is not allowed here. Command: touch ran.txt"
	if got != want {
		t.Fatalf("the model saw %q, want %q", got, want)
	}
	var in map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, "pre.json"))
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err, string(data))
	}
	for k, want := range map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "call_1",
		"session_id": "sess-1", "cwd": dir, "model": "test-model", "permission_mode": "default"} {
		if in[k] != want {
			t.Errorf("stdin %s = %v, want %v", k, in[k], want)
		}
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "touch ran.txt" {
		t.Errorf("tool_input %v", in["tool_input"])
	}
	var blocked bool
	for _, ev := range h.events {
		if r, ok := ev.(session.HookRun); ok && r.Run.Status == hooks.Blocked {
			blocked = true
		}
	}
	if !blocked {
		t.Fatal("no HookRun event says the hook blocked")
	}
}

func TestPreToolUseHookRewritesTheCommand(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("fc1", "call_1", "echo model"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "ok"),
	}, withTools(t, dir, tools.PolicyNever, nil),
		withHooks(t, dir, map[hooks.Event]string{hooks.PreToolUse: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten"}}}'`}))
	if err := h.turn(t, "go"); err != nil {
		t.Fatal(err)
	}
	if got := outputOf(t, h.srv.Requests()[1], "call_1"); !strings.Contains(got, "rewritten") || strings.Contains(got, "model\n") {
		t.Fatalf("output %q", got)
	}
}

func TestUserPromptSubmitHookAddsContext(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, rt.Script{rt.Reply("r1", "m1", "ok")},
		withHooks(t, dir, map[hooks.Event]string{hooks.UserPromptSubmit: `cat > ups.json; echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-FROM-HOOK"}}'`}))
	if err := h.turn(t, "hello"); err != nil {
		t.Fatal(err)
	}
	items := h.srv.Requests()[0].JSON["input"].([]any)
	last := items[len(items)-1].(map[string]any)
	prev := items[len(items)-2].(map[string]any)
	if last["role"] != "developer" || !strings.Contains(string(mustJSON(last)), "CTX-FROM-HOOK") || prev["role"] != "user" {
		t.Fatalf("the context is not the developer message after the prompt: %v", items)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "ups.json"))
	if !strings.Contains(string(data), `"prompt":"hello"`) {
		t.Fatalf("stdin %s", data)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestUserPromptSubmitHookBlocksThePrompt(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, rt.Script{rt.Reply("r1", "m1", "ok")},
		withHooks(t, dir, map[hooks.Event]string{hooks.UserPromptSubmit: `echo "no secrets in prompts" >&2; exit 2`}))
	if err := h.turn(t, "my password is hunter2"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent for a blocked prompt", n)
	}
	for _, it := range h.sess.History() {
		if strings.Contains(it.Text(), "hunter2") {
			t.Fatal("the blocked prompt is in the history")
		}
	}
}

func TestSessionStartAndStopRunOnceEach(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, rt.Script{rt.Reply("r1", "m1", "first"), rt.Reply("r2", "m2", "second")},
		withHooks(t, dir, map[hooks.Event]string{
			hooks.SessionStart: `cat >> start.log; echo >> start.log`,
			hooks.Stop:         `cat >> stop.log; echo >> stop.log`,
			hooks.SessionEnd:   `cat >> end.log; echo >> end.log`,
		}))
	if err := h.turn(t, "one"); err != nil {
		t.Fatal(err)
	}
	lines := func(name string) []string {
		data, _ := os.ReadFile(filepath.Join(dir, name))
		return strings.Fields(strings.TrimSpace(string(data)))
	}
	if n := len(lines("start.log")); n != 1 {
		t.Fatalf("SessionStart ran %d times in one turn", n)
	}
	if err := h.turn(t, "two"); err != nil {
		t.Fatal(err)
	}
	start, stop := lines("start.log"), lines("stop.log")
	if len(start) != 1 || len(stop) != 2 {
		t.Fatalf("SessionStart ran %d times, Stop %d times in two turns", len(start), len(stop))
	}
	if !strings.Contains(start[0], `"source":"startup"`) || !strings.Contains(stop[1], `"last_assistant_message":"second"`) {
		t.Fatalf("stdin: %s / %s", start[0], stop[1])
	}
	h.sess.End(context.Background(), nil)
	h.sess.End(context.Background(), nil)
	if n := len(lines("end.log")); n != 1 {
		t.Fatalf("SessionEnd ran %d times", n)
	}
}

func TestStopHookSendsTheModelBack(t *testing.T) {
	dir := t.TempDir()
	// The first Stop blocks with a reason; the second (stop_hook_active)
	// lets the turn end.
	h := newHarness(t, rt.Script{rt.Reply("r1", "m1", "done?"), rt.Reply("r2", "m2", "now done")},
		withHooks(t, dir, map[hooks.Event]string{hooks.Stop: `grep -q '"stop_hook_active":true' && exit 0; echo '{"decision":"block","reason":"run the tests first"}'`}))
	if err := h.turn(t, "work"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	items := reqs[1].JSON["input"].([]any)
	last := items[len(items)-1].(map[string]any)
	if last["role"] != "user" || !strings.Contains(string(mustJSON(last)), "run the tests first") {
		t.Fatalf("the Stop reason is not the next prompt: %v", last)
	}
}
