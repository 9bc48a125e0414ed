package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/hooks"
)

// logHook is a hook command appending its stdin, one line, to dir/name
// and then running more (may be "").
func logHook(dir, name, more string) string {
	return "in=$(cat); printf '%s\\n' \"$in\" >> " + filepath.Join(dir, name) + "; " + more
}

// hookLog reads the stdin lines a logHook wrote.
func hookLog(t *testing.T, dir, name string) []map[string]any {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(dir, name))
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v: %s", name, err, line)
		}
		out = append(out, m)
	}
	return out
}

// TestSubagentHooks: a child spawned with spawn_agent runs Codex's
// thread-spawn hooks (codex-rs core/src/hook_runtime.rs): SubagentStart
// instead of SessionStart, matched on its agent_type, its
// additionalContext in the child's first request only; SubagentStop
// instead of Stop, whose block sends the child back to work with the
// reason (stop_hook_active the second time); agent_id and agent_type on
// the child's other events; session_id the root's on all of them
// (Codex's hook session id); no SessionEnd of its own.
func TestSubagentHooks(t *testing.T) {
	ts := newTaskServer(t, map[string]rt.Script{
		"parent task": {
			call("p1", "c1", "spawn_agent", `{"message":"child task","agent_type":"worker"}`),
			call("p2", "c2", "wait_agent", `{"targets":["Euclid"],"timeout_ms":600000}`),
			rt.Reply("p3", "m3", "parent done"),
		},
		"child task":     {rt.Reply("k1", "km1", "child done first")},
		"CHILD-CONTINUE": {rt.Reply("k2", "km2", "child done final")},
	})
	a, home := testApp(t, fakeConfig(ts.URL, false), false)
	a.bypassHookTrust = true
	logs := t.TempDir()
	subagentHooksFile(t, home, logs)
	p, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	relayed := ""
	if err := p.Turn(t.Context(), "parent task", func(ev session.Event) {
		switch r, ok := ev.(session.HookRun); {
		case ok && r.Agent != "":
			relayed += r.Notice() + "\n" // the child's, shown where the parent's turn is
		case ok && r.Notable():
			t.Errorf("a hook failed or blocked in the parent: %s", r.Notice())
		}
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(relayed, "hook of subagent Euclid (worker): SubagentStop Blocked: CHILD-CONTINUE") {
		t.Errorf("the parent's turn was not told of the child's SubagentStop block:\n%s", relayed)
	}
	kids := ts.requests("child task")
	if len(kids) != 1 || len(ts.requests("CHILD-CONTINUE")) != 1 {
		t.Fatalf("%d + %d child requests; want 1 + 1 (SubagentStop sends the child back once)", len(kids), len(ts.requests("CHILD-CONTINUE")))
	}
	childID := kids[0].Header.Get("session-id")
	childPath := p.Agents.List()[0].Path
	if !strings.Contains(string(kids[0].Body), "SUBAGENT-START-CTX") {
		t.Error("the SubagentStart hook's context is not in the child's first request")
	}
	for _, r := range ts.requests("parent task") {
		if strings.Contains(string(r.Body), "SUBAGENT-START-CTX") {
			t.Error("the SubagentStart hook's context reached the parent")
		}
	}
	p.Close()

	checkSubagentStart(t, logs, p, childID, childPath)
	checkSubagentStop(t, logs, p, childID, childPath)
	prompts := hookLog(t, logs, "prompt")
	if len(prompts) != 2 {
		t.Fatalf("UserPromptSubmit ran %d times; want 2 (parent, child)", len(prompts))
	}
	for _, in := range prompts {
		child := in["prompt"] == "child task"
		if in["session_id"] != p.ID || (in["agent_id"] == childID) != child || (in["agent_type"] == "worker") != child {
			t.Errorf("UserPromptSubmit stdin %v: want session_id %s, agent_id/agent_type only for the child", in, p.ID)
		}
	}
	for name, want := range map[string]int{"session_start": 1, "stop": 1, "session_end": 1, "explorer_start": 0} {
		got := hookLog(t, logs, name)
		if len(got) != want {
			t.Errorf("%s ran %d times; want %d (the parent's only): %v", name, len(got), want, got)
		}
		for _, in := range got {
			if in["session_id"] != p.ID || in["agent_id"] != nil {
				t.Errorf("%s stdin %v: want the parent's", name, in)
			}
		}
	}
}

// subagentHooksFile writes home's hooks.json for [TestSubagentHooks]:
// each hook logs its stdin in logs; the worker's SubagentStart adds
// context, SubagentStop sends the child back once.
func subagentHooksFile(t *testing.T, home, logs string) {
	t.Helper()
	group := func(matcher, cmd string) map[string]any {
		g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 20}}}
		if matcher != "" {
			g["matcher"] = matcher
		}
		return g
	}
	file := map[string]any{"hooks": map[string]any{
		"SessionStart": []any{group("", logHook(logs, "session_start", ""))},
		"SubagentStart": []any{
			group("worker", logHook(logs, "subagent_start", `echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"SUBAGENT-START-CTX"}}'`)),
			group("explorer", logHook(logs, "explorer_start", "")),
		},
		"UserPromptSubmit": []any{group("", logHook(logs, "prompt", ""))},
		"SubagentStop": []any{group("", logHook(logs, "subagent_stop",
			`case "$in" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"CHILD-CONTINUE"}';; esac`))},
		"Stop":       []any{group("", logHook(logs, "stop", ""))},
		"SessionEnd": []any{group("", logHook(logs, "session_end", ""))},
	}}
	b, _ := json.Marshal(file)
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func checkSubagentStart(t *testing.T, logs string, p *Thread, childID, childPath string) {
	t.Helper()
	starts := hookLog(t, logs, "subagent_start")
	if len(starts) != 1 {
		t.Fatalf("SubagentStart ran %d times; want 1", len(starts))
	}
	in := starts[0]
	for k, want := range map[string]any{"hook_event_name": "SubagentStart", "session_id": p.ID, "agent_id": childID,
		"agent_type": "worker", "transcript_path": childPath, "cwd": p.Workspace().Cwd, "model": "model-a", "permission_mode": "default"} {
		if in[k] != want {
			t.Errorf("SubagentStart stdin %s = %v; want %v", k, in[k], want)
		}
	}
	if id, _ := in["turn_id"].(string); id == "" {
		t.Errorf("SubagentStart stdin has no turn_id: %v", in)
	}
}

func checkSubagentStop(t *testing.T, logs string, p *Thread, childID, childPath string) {
	t.Helper()
	stops := hookLog(t, logs, "subagent_stop")
	if len(stops) != 2 {
		t.Fatalf("SubagentStop ran %d times; want 2", len(stops))
	}
	for i, in := range stops {
		want := map[string]any{"hook_event_name": "SubagentStop", "session_id": p.ID, "agent_id": childID, "agent_type": "worker",
			"transcript_path": p.Path(), "agent_transcript_path": childPath, "stop_hook_active": i == 1,
			"last_assistant_message": []string{"child done first", "child done final"}[i]}
		for k, w := range want {
			if in[k] != w {
				t.Errorf("SubagentStop %d stdin %s = %v; want %v", i+1, k, in[k], w)
			}
		}
		if id, _ := in["turn_id"].(string); id == "" {
			t.Errorf("SubagentStop stdin has no turn_id: %v", in)
		}
	}
}

// TestHooksCommandTrusts: the chat's /hooks ([App.HookLines]) lists a
// hook with its source and trust; an untrusted hook does not run and is
// named once per process (not again for the next session); "/hooks trust
// all" records its exact hash where Codex keeps it, the list then says
// trusted, and the next session of the same process (the chat's /new)
// runs it.
func TestHooksCommandTrusts(t *testing.T) {
	ts := newTaskServer(t, map[string]rt.Script{"hi": {rt.Reply("r1", "m1", "a"), rt.Reply("r2", "m2", "b"), rt.Reply("r3", "m3", "c")}})
	a, home := testApp(t, fakeConfig(ts.URL, false), false)
	marks := t.TempDir()
	file := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"cat > /dev/null; touch ` + filepath.Join(marks, "ran") + `"}]}]}}`
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	turn := func() (named int) {
		t.Helper()
		th, err := a.Open(t.Context(), Spec{})
		if err != nil {
			t.Fatal(err)
		}
		defer th.Close()
		if err := th.Turn(t.Context(), "hi", func(ev session.Event) {
			if w, ok := ev.(session.Warning); ok && strings.Contains(w.Message, "hook not run: SessionStart") && strings.Contains(w.Message, "/hooks") {
				named++
			}
		}); err != nil {
			t.Fatal(err)
		}
		return named
	}
	ran := func() bool { _, err := os.Stat(filepath.Join(marks, "ran")); return err == nil }
	if n := turn(); n != 1 || ran() {
		t.Fatalf("first session: the untrusted hook named %d times, ran %v; want 1, false", n, ran())
	}
	if n := turn(); n != 0 || ran() {
		t.Fatalf("second session: named %d times again, ran %v; want 0, false", n, ran())
	}
	cwd := a.Workspace().Cwd
	_, body, err := a.HookLines(cwd, "")
	if err != nil || !strings.Contains(strings.Join(body, "\n"), "SessionStart (every) [user, untrusted]") {
		t.Fatalf("/hooks: %v\n%s", err, strings.Join(body, "\n"))
	}
	_, body, err = a.HookLines(cwd, "trust all")
	text := strings.Join(body, "\n")
	if err != nil || !strings.Contains(text, "trusted SessionStart") || !strings.Contains(text, "SessionStart (every) [user, trusted]") {
		t.Fatalf("/hooks trust all: %v\n%s", err, text)
	}
	cfg, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	if want := hooks.Discover(hooks.Sources{Home: home}).All[0]; !strings.Contains(string(cfg), `trusted_hash = "`+want.Hash+`"`) {
		t.Fatalf("config.toml does not trust %s:\n%s", want.Hash, cfg)
	}
	turn()
	if !ran() {
		t.Fatal("the next session did not run the hook trusted with /hooks")
	}
}

// TestHookEnvAndMasking: a hook runs with the environment policy's
// environment, without the provider's key, and what it prints is masked
// for secrets before anyone sees it.
func TestHookEnvAndMasking(t *testing.T) {
	const key = "sk-hookleak-0123456789abcdef"
	ts := newTaskServer(t, map[string]rt.Script{"hi": {rt.Reply("r1", "m1", "a")}})
	home, marks := t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf("model = \"model-a\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = %q\nenv_key = \"FAKE_KEY\"\n", ts.URL)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	file := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"env > ` + filepath.Join(marks, "env") +
		`; echo '{\"systemMessage\":\"the key is ` + key + `\"}'"}]}]}}`
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"AGENT_HOME": home, "FAKE_KEY": key, "PATH": os.Getenv("PATH"), "HOOK_VISIBLE": "yes"}
	env := setup.Env{Stderr: &strings.Builder{}, Getenv: func(k string) string { return vars[k] },
		Environ: func() []string {
			var out []string
			for k, v := range vars {
				out = append(out, k+"="+v)
			}
			return out
		},
		Sleep: func(context.Context, time.Duration) error { return nil }, Rand: func() float64 { return 0.5 }}
	a, err := New(t.Context(), Options{Env: env, Originator: "agent_cli", Cd: t.TempDir(), Flags: setup.Flags{BypassHookTrust: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	th, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	var said []string
	if err := th.Turn(t.Context(), "hi", func(ev session.Event) {
		if r, ok := ev.(session.HookRun); ok {
			said = append(said, r.Notice())
		}
	}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(marks, "env"))
	if strings.Contains(string(got), key) || !strings.Contains(string(got), "HOOK_VISIBLE=yes") {
		t.Errorf("the hook's environment: want the policy's (HOOK_VISIBLE) without the provider key:\n%s", got)
	}
	text := strings.Join(said, "\n")
	if strings.Contains(text, key) || !strings.Contains(text, "the key is ") {
		t.Errorf("the hook's systemMessage is not masked: %s", text)
	}
}
