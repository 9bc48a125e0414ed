package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/rollout"
)

// TestCodexExecFlags runs exec with the reference client's flags and checks
// what each means in the request the model gets (the environment context
// names the sandbox and the writable roots) and on stderr.
func TestCodexExecFlags(t *testing.T) {
	t.Parallel()
	extra := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		want   []string // in the first request's body
		stderr []string // lines on stderr
		code   int
	}{
		{name: "experimental-json and skip-git-repo-check", args: []string{"--experimental-json", "--skip-git-repo-check"},
			want: []string{"<sandbox_mode>read-only</sandbox_mode>"}},
		{name: "full-auto", args: []string{"--full-auto"}, want: []string{"<sandbox_mode>workspace-write</sandbox_mode>"}},
		{name: "add-dir", args: []string{"-s", "workspace-write", "--add-dir", extra}, want: []string{"<root>" + extra + "</root>"}},
		{name: "bypass", args: []string{"--dangerously-bypass-approvals-and-sandbox"},
			want: []string{"<sandbox_mode>danger-full-access</sandbox_mode>", "<approval_policy>never</approval_policy>"}},
		{name: "yolo alias", args: []string{"--yolo"}, want: []string{"<sandbox_mode>danger-full-access</sandbox_mode>"}},
		{name: "color and strict-config", args: []string{"--color", "never", "--strict-config"}},
		{name: "ignored flags warn once each", args: []string{"--thread-source", "sdk", "--cyber-access-program", "standard", "--ignore-rules"},
			stderr: []string{
				"agent: warning: --cyber-access-program is accepted for compatibility with Codex and ignored (agent has no access programs)",
				"agent: warning: --ignore-rules is accepted for compatibility with Codex and ignored (agent has no execpolicy .rules files)",
				"agent: warning: --thread-source is accepted for compatibility with Codex and ignored (agent does not classify sessions by source)",
			}},
		{name: "color always warns", args: []string{"--color", "always"},
			stderr: []string{"agent: warning: --color always is accepted for compatibility with Codex and ignored (agent's output has no colour)"}},
		{name: "bad color", args: []string{"--color", "sometimes"}, code: exitcode.Usage, stderr: []string{`agent: --color "sometimes": want always, never or auto`}},
		{name: "bad local provider", args: []string{"--oss", "--local-provider", "vllm"}, code: exitcode.Usage,
			stderr: []string{`agent: --local-provider "vllm": want ollama or lmstudio`}},
		{name: "full-auto with bypass", args: []string{"--full-auto", "--yolo"}, code: exitcode.Usage,
			stderr: []string{"agent: --full-auto and --dangerously-bypass-approvals-and-sandbox cannot be used together"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
			args := append(append([]string{"exec"}, tt.args...), "-C", t.TempDir(), "hi")
			r := runCLI(t, srv, runOpts{}, args...)
			if r.code != tt.code {
				t.Fatalf("exit %d; want %d\nstderr:\n%s", r.code, tt.code, r.stderr)
			}
			for _, line := range tt.stderr {
				if n := strings.Count(r.stderr, line+"\n"); n != 1 {
					t.Errorf("stderr has %q %d times; want once:\n%s", line, n, r.stderr)
				}
			}
			if tt.code != 0 {
				if len(srv.Requests()) != 0 {
					t.Errorf("a request was sent despite the usage error")
				}
				return
			}
			if strings.Contains(r.stderr, "warning: --") && tt.stderr == nil {
				t.Errorf("unexpected warning:\n%s", r.stderr)
			}
			body := string(srv.Requests()[0].Body)
			for _, w := range tt.want {
				if !strings.Contains(body, jsonFragment(w)) {
					t.Errorf("request lacks %q", w)
				}
			}
			if strings.HasPrefix(tt.name, "experimental-json") && !strings.HasPrefix(r.stdout, `{"type":"thread.started"`) {
				t.Errorf("--experimental-json did not print JSONL: %q", r.stdout)
			}
		})
	}
}

// jsonFragment is s as it appears inside a JSON string.
func jsonFragment(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestExecPromptOnStdinAsTheSDKSendsIt: the SDK writes the prompt on stdin
// and passes no prompt argument.
func TestExecPromptOnStdinAsTheSDKSendsIt(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
	r := runCLI(t, srv, runOpts{stdin: "prompt from the SDK"}, "exec", "--experimental-json", "--skip-git-repo-check", "-C", t.TempDir())
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(string(srv.Requests()[0].Body), "prompt from the SDK") {
		t.Errorf("the prompt on stdin is not in the request")
	}
}

// TestExecAddDirIsWritable: a patch may write into an --add-dir directory
// outside the workspace under workspace-write, and nowhere else outside.
func TestExecAddDirIsWritable(t *testing.T) {
	t.Parallel()
	extra := t.TempDir()
	patch := func(path string) string {
		return `{"input":"*** Begin Patch\n*** Add File: ` + path + `\n+hi\n*** End Patch\n"}`
	}
	for _, tt := range []struct {
		name    string
		addDir  bool
		written bool
	}{{"with add-dir", true, true}, {"without", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			target := filepath.Join(extra, strings.ReplaceAll(tt.name, " ", "-")+".txt")
			srv := rt.NewServer(t, rt.Script{
				rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc", "call_1", "apply_patch", patch(target)), rt.Completed("r1")),
				rt.Reply("r2", "m2", "done"),
			})
			args := []string{"exec", "-s", "workspace-write", "-C", t.TempDir()}
			if tt.addDir {
				args = append(args, "--add-dir", extra)
			}
			r := runCLI(t, srv, runOpts{}, append(args, "hi")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			_, err := os.Stat(target)
			if (err == nil) != tt.written {
				t.Errorf("file written = %v; want %v\nstderr:\n%s\nmodel got: %s", err == nil, tt.written, r.stderr, srv.Requests()[1].Body)
			}
		})
	}
}

// TestExecFork: `agent exec fork ID PROMPT` runs a turn on a new session
// holding a copy of ID's history; ID's own rollout is left as it was.
func TestExecFork(t *testing.T) {
	t.Parallel()
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "first answer"), rt.Reply("r2", "m2", "forked answer")})
	home := t.TempDir()
	cfg := "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"" + srv.URL + "\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AGENT_HOME": home}
	if r := runCLI(t, nil, runOpts{env: env, stdinTTY: true}, "exec", "one"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	src, err := rollout.Latest(t.Context(), home, "", true)
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(src.Path)
	if err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, runOpts{env: env, stdinTTY: true}, "exec", "--json", "fork", src.ID, "two")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "forked answer") || strings.Contains(r.stdout, src.ID) {
		t.Errorf("stdout = %s; want the forked answer under a new thread id", r.stdout)
	}
	body := string(srv.Requests()[1].Body)
	for _, w := range []string{"one", "first answer", "two"} {
		if !strings.Contains(body, w) {
			t.Errorf("the forked turn's request lacks %q", w)
		}
	}
	if after, _ := os.ReadFile(src.Path); string(after) != string(before) {
		t.Error("the forked session's rollout changed")
	}
}

// TestExecCodexAPIKey: the key the Codex SDK's apiKey option passes in
// CODEX_API_KEY authenticates the openai provider (AGENT_API_KEY wins when
// both are set).
func TestExecCodexAPIKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"CODEX_API_KEY": "sk-test-codex-0000"}, "sk-test-codex-0000"},
		{map[string]string{"CODEX_API_KEY": "sk-test-codex-0000", "AGENT_API_KEY": "sk-test-agent-0000"}, "sk-test-agent-0000"},
	} {
		srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
		cfg := "model = \"m\"\nmodel_provider = \"openai\"\nopenai_base_url = \"%URL%\"\n[model_providers.openai]\nsupports_websockets = false\n"
		r := runCLI(t, srv, runOpts{config: cfg, env: tt.env, stdinTTY: true}, "exec", "hi")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+tt.want {
			t.Errorf("env %v: Authorization = %q; want the key %s", tt.env, got, tt.want)
		}
	}
}

// TestExecCredentialSource: a credential that cannot be sent (a control
// character in it) is refused naming where it came from, as auth.Resolve
// picked it: with only CODEX_API_KEY set, that variable (it said auth.json
// before). No request leaves.
func TestExecCredentialSource(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"CODEX_API_KEY": "sk-test-\x01codex"}, "environment variable CODEX_API_KEY"},
		{map[string]string{"AGENT_API_KEY": "sk-test-\x01agent", "CODEX_API_KEY": "sk-test-codex"}, "environment variable AGENT_API_KEY"},
		{map[string]string{"OPENAI_API_KEY": "sk-test-\x01openai"}, "environment variable OPENAI_API_KEY"},
	} {
		srv := rt.NewServer(t, rt.Script{})
		cfg := "model = \"m\"\nmodel_provider = \"openai\"\nopenai_base_url = \"%URL%\"\n[model_providers.openai]\nsupports_websockets = false\n[auto_continue]\nenabled = false\n"
		r := runCLI(t, srv, runOpts{config: cfg, env: tt.env, stdinTTY: true}, "exec", "hi")
		if r.code == 0 || !strings.Contains(r.stderr, "the credential from "+tt.want+" contains") {
			t.Errorf("env %v: exit %d, stderr:\n%s\nwant the credential named as from %s", tt.env, r.code, r.stderr, tt.want)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("env %v: %d requests sent", tt.env, n)
		}
	}
}

// TestExecAskForApproval: exec takes -a as the chat does, and says so when
// the policy asked for is one it cannot follow (it never asks).
func TestExecAskForApproval(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		policy string
		code   int
		stderr string
	}{
		{"never", 0, ""},
		{"on-request", 0, "agent: warning: -a on-request is ignored: agent exec never asks for approval"},
		{"sometimes", exitcode.Usage, `agent: -a: approval policy "sometimes": want untrusted, on-request, on-failure or never`},
	} {
		srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
		r := runCLI(t, srv, runOpts{}, "exec", "-a", tt.policy, "-C", t.TempDir(), "hi")
		if r.code != tt.code {
			t.Fatalf("-a %s: exit %d; want %d\n%s", tt.policy, r.code, tt.code, r.stderr)
		}
		if tt.stderr == "" && strings.Contains(r.stderr, "-a ") || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("-a %s: stderr = %q; want %q", tt.policy, r.stderr, tt.stderr)
		}
		if tt.code == 0 && !strings.Contains(string(srv.Requests()[0].Body), jsonFragment("<approval_policy>never</approval_policy>")) {
			t.Errorf("-a %s: the session's approval policy is not never", tt.policy)
		}
	}
}
