package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/headless/mcpserver"
	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/session/hooks"
)

const fakeConfig = "model = \"test-model\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake\"\nbase_url = \"%URL%\"\nenv_key = \"FAKE_KEY\"\n"

// TestExecHooks: in exec, a trusted PreToolUse hook of the home blocks the
// model's command and the model sees why; a trusted UserPromptSubmit hook
// adds context; SessionStart and Stop run once; the hooks of an untrusted
// project do not run and are named; an untrusted hook of the home is named
// and does not run.
func TestExecHooks(t *testing.T) {
	t.Parallel()
	home, project, marks := t.TempDir(), t.TempDir(), t.TempDir()
	agenttest.HooksFile(t, home, map[hooks.Event]string{
		hooks.PreToolUse:       `echo "rm is not allowed here" >&2; exit 2`,
		hooks.UserPromptSubmit: `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-FROM-HOOK"}}'`,
		hooks.SessionStart:     "cat >> " + filepath.Join(marks, "start"),
		hooks.Stop:             "cat >> " + filepath.Join(marks, "stop"),
	})
	trusted := agenttest.TrustState(t, home)
	// Added after the trust was given: named, not run.
	agenttest.HooksFile(t, home, map[hooks.Event]string{
		hooks.PreToolUse:       `echo "rm is not allowed here" >&2; exit 2`,
		hooks.UserPromptSubmit: `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-FROM-HOOK"}}'`,
		hooks.SessionStart:     "cat >> " + filepath.Join(marks, "start"),
		hooks.Stop:             "cat >> " + filepath.Join(marks, "stop"),
		hooks.PostToolUse:      "touch " + filepath.Join(marks, "untrusted-ran"),
	})
	agenttest.HooksFile(t, filepath.Join(project, ".codex"), map[hooks.Event]string{hooks.SessionStart: "touch " + filepath.Join(marks, "project-ran")})

	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), agenttest.ExecCallStep("rm -rf build"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "ok, not removing"),
	})
	r := runCLI(t, srv, runOpts{home: home, config: fakeConfig + trusted}, "exec", "-C", project, "clean up")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := agenttest.CallOutput(t, srv); got != "Command blocked by PreToolUse hook: rm is not allowed here. Command: rm -rf build" {
		t.Fatalf("the model saw %q", got)
	}
	items := srv.Requests()[0].JSON["input"].([]any)
	if last, _ := json.Marshal(items[len(items)-1]); !strings.Contains(string(last), "CTX-FROM-HOOK") || !strings.Contains(string(last), `"developer"`) {
		t.Fatalf("the prompt's context is not the last item: %s", last)
	}
	for name, want := range map[string]int{"start": 1, "stop": 1} {
		data, _ := os.ReadFile(filepath.Join(marks, name))
		if n := strings.Count(string(data), `"hook_event_name"`); n != want {
			t.Errorf("%s ran %d times, want %d", name, n, want)
		}
	}
	for _, f := range []string{"project-ran", "untrusted-ran"} {
		if _, err := os.Stat(filepath.Join(marks, f)); err == nil {
			t.Errorf("%s: a hook that is not trusted ran", f)
		}
	}
	for _, want := range []string{"hook: PreToolUse Blocked: rm is not allowed here",
		"hook not run: PostToolUse hook", "is new and not trusted",
		filepath.Join(project, ".codex", "hooks.json") + " is not loaded: the project is not trusted"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}

	// Trusting the project loads its hooks (still needing their own trust:
	// --dangerously-bypass-hook-trust here).
	srv2 := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "hi")})
	cfg := fakeConfig + trusted + fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", project)
	r = runCLI(t, srv2, runOpts{home: home, config: cfg}, "--dangerously-bypass-hook-trust", "exec", "-C", project, "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(marks, "project-ran")); err != nil {
		t.Fatalf("a trusted project's hook did not run under --dangerously-bypass-hook-trust:\n%s", r.stderr)
	}
}

// TestHooksListAndTrust: `agent hooks list` names a hook with its source
// and trust; `agent hooks trust --all` trusts its exact hash, after which
// exec runs it.
func TestHooksListAndTrust(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	agenttest.HooksFile(t, home, map[hooks.Event]string{hooks.SessionStart: "touch " + filepath.Join(marks, "ran")})
	r := runCLI(t, nil, runOpts{home: home}, "hooks", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "SessionStart [user, untrusted]") || !strings.Contains(r.stdout, filepath.Join(home, "hooks.json")) {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, runOpts{home: home}, "hooks", "trust", "--all")
	if r.code != 0 || !strings.Contains(r.stdout, "trusted SessionStart") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	cfg, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	if !strings.Contains(string(cfg), "[hooks.state.") || !strings.Contains(string(cfg), "trusted_hash = \"sha256:") {
		t.Fatalf("config.toml:\n%s", cfg)
	}
	r = runCLI(t, nil, runOpts{home: home}, "hooks", "list")
	if !strings.Contains(r.stdout, "SessionStart [user, trusted]") {
		t.Fatalf("%s", r.stdout)
	}
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "hi")})
	r = runCLI(t, srv, runOpts{home: home, config: fakeConfig + "\n" + string(cfg)}, "exec", "hi")
	if _, err := os.Stat(filepath.Join(marks, "ran")); err != nil || r.code != 0 {
		t.Fatalf("the trusted hook did not run: exit %d\n%s", r.code, r.stderr)
	}
}

// TestProfileHooks: hooks declared inline in a profile file
// (NAME.config.toml, Codex's user layer of that profile) are the
// profile's: `agent -p work hooks list` names them from that file,
// `hooks trust --all` trusts them, and `agent -p work exec` runs them
// with the event on stdin; exec without the profile does not.
func TestProfileHooks(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	prompt := filepath.Join(marks, "prompt")
	profile := filepath.Join(home, "work.config.toml")
	text := fmt.Sprintf("[hooks]\nUserPromptSubmit = [{ hooks = [{ type = \"command\", command = %q }] }]\n", "cat >> "+prompt)
	if err := os.WriteFile(profile, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "hi"), rt.Reply("r2", "m2", "hi again")})
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(strings.ReplaceAll(fakeConfig, "%URL%", srv.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, runOpts{home: home}, "-p", "work", "hooks", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "UserPromptSubmit [user, untrusted]") || !strings.Contains(r.stdout, profile) {
		t.Fatalf("hooks list: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r = runCLI(t, nil, runOpts{home: home}, "-p", "work", "hooks", "trust", "--all"); r.code != 0 {
		t.Fatalf("hooks trust: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, nil, runOpts{home: home}, "exec", "without the profile")
	if _, err := os.Stat(prompt); r.code != 0 || err == nil {
		t.Fatalf("without -p work: exit %d, the profile's hook ran: %v\n%s", r.code, err == nil, r.stderr)
	}
	r = runCLI(t, nil, runOpts{home: home}, "-p", "work", "exec", "with the profile")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(prompt)
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil || in["hook_event_name"] != "UserPromptSubmit" || in["prompt"] != "with the profile" {
		t.Fatalf("the profile's hook got %q (%v); want the UserPromptSubmit event of the prompt", data, err)
	}
}

// frontEndHooks writes trusted hooks of home that log SessionStart's and
// UserPromptSubmit's stdin in marks and a Stop hook answering garbage (a
// failure the front end must name); it returns their [hooks.state].
func frontEndHooks(t *testing.T, home, marks string) string {
	t.Helper()
	agenttest.HooksFile(t, home, map[hooks.Event]string{
		hooks.SessionStart:     "cat >> " + filepath.Join(marks, "start"),
		hooks.UserPromptSubmit: "cat >> " + filepath.Join(marks, "prompt"),
		hooks.Stop:             `cat > /dev/null; echo '{not json'`,
	})
	return agenttest.TrustState(t, home)
}

// checkFrontEndHooks: SessionStart ran once and UserPromptSubmit got
// the prompt (containing want).
func checkFrontEndHooks(t *testing.T, marks, want string) {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(marks, "start"))
	if n := strings.Count(string(data), `"hook_event_name":"SessionStart"`); n != 1 {
		t.Errorf("SessionStart ran %d times; want 1", n)
	}
	var in map[string]any
	data, _ = os.ReadFile(filepath.Join(marks, "prompt"))
	if err := json.Unmarshal(data, &in); err != nil || !strings.Contains(fmt.Sprint(in["prompt"]), want) {
		t.Errorf("UserPromptSubmit got %q (%v); want the prompt with %q", data, err, want)
	}
}

// TestReviewHooks: `agent review` runs the hooks: SessionStart once,
// UserPromptSubmit on the review's request, and the Stop hook that
// answered garbage is named on stderr.
func TestReviewHooks(t *testing.T) {
	t.Parallel()
	dir := agenttest.GitRepo(t)
	home, marks := t.TempDir(), t.TempDir()
	trusted := frontEndHooks(t, home, marks)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "Verdict: fine")})
	r := runCLI(t, srv, runOpts{home: home, config: fakeConfig + trusted}, "review", "-C", dir, "check the arithmetic")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	checkFrontEndHooks(t, marks, "check the arithmetic")
	if !strings.Contains(r.stderr, "hook: Stop Failed: hook returned invalid Stop JSON output") {
		t.Errorf("stderr does not name the failed Stop hook:\n%s", r.stderr)
	}
}

// TestMCPServerHooks: `agent mcp-server` sessions run the hooks
// (SessionStart once, UserPromptSubmit on the call's prompt), and the
// Stop hook that answered garbage is named to the client in a progress
// notification.
func TestMCPServerHooks(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "done")})
	home, marks := writeConfig(t, srv.URL, ""), t.TempDir()
	appendConfig(t, home, frontEndHooks(t, home, marks))
	msgs := make(chan string, 100)
	s := startMCPServer(t, bin, home, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { msgs <- r.Params.Message }})
	res := s.call(t.Context(), t, mcpserver.ToolStart, map[string]any{"prompt": "the hooked task", "cwd": t.TempDir()}, "tok-1")
	if res.IsError || resultText(res) != "done" {
		t.Fatalf("result %q", resultText(res))
	}
	checkFrontEndHooks(t, marks, "the hooked task")
	var seen []string
	for {
		select {
		case m := <-msgs:
			if strings.Contains(m, "hook: Stop Failed: hook returned invalid Stop JSON output") {
				return
			}
			seen = append(seen, m)
		case <-time.After(10 * time.Second): // a bound: the notifications may trail the result
			t.Fatalf("the client was not told of the failed Stop hook; progress:\n%s", strings.Join(seen, "\n"))
		}
	}
}
