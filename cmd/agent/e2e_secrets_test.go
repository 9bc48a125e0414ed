package main

import (
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EShellEnvironmentPolicy: `env` run by the model through the real
// binary sees what [shell_environment_policy] lets through, and under the
// default policy none of the keys and tokens agent was started with.
func TestE2EShellEnvironmentPolicy(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	secrets := []string{"OPENAI_API_KEY=sk-test-openai-0000", "GITHUB_TOKEN=ghp-test-0000", "DB_SECRET=test-secret-0000"}
	tests := []struct {
		name     string
		config   string
		want     []string
		wantNone []string
	}{
		{"default policy", "", []string{"PATH=", "ALLOWED_VAR=visible"},
			append(secrets, "FAKE_KEY=")},
		{"core, set and exclude", "[shell_environment_policy]\ninherit = \"core\"\nset = { CI = \"1\" }\nexclude = [\"home\"]\n",
			[]string{"PATH=", "CI=1"}, append(secrets, "ALLOWED_VAR=", "HOME=", "FAKE_KEY=")},
		{"ignore_default_excludes and include_only", "[shell_environment_policy]\nignore_default_excludes = true\ninclude_only = [\"*_token\", \"path\"]\n",
			[]string{"PATH=", "GITHUB_TOKEN=ghp-test-0000"}, []string{"OPENAI_API_KEY=", "ALLOWED_VAR=", "FAKE_KEY="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{
				rt.Stream(rt.Created("r1"), agenttest.ExecCallStep("env"), rt.Completed("r1")),
				rt.Reply("r2", "m2", "done"),
			})
			home := writeConfig(t, srv.URL, tt.config)
			cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "-s", "danger-full-access", "do it")
			cmd.Env = append(cmd.Env, "ALLOWED_VAR=visible", "HOME="+home)
			cmd.Env = append(cmd.Env, secrets...)
			if err := cmd.Run(); err != nil {
				t.Fatalf("agent exec: %v\nstderr:\n%s", err, stderr)
			}
			if stdout.String() != "done\n" {
				t.Errorf("stdout = %q", stdout)
			}
			out := agenttest.CallOutput(t, srv)
			lines := strings.Split(out, "\n")
			has := func(prefix string) bool {
				for _, l := range lines {
					if strings.HasPrefix(l, prefix) {
						return true
					}
				}
				return false
			}
			for _, w := range tt.want {
				if !has(w) {
					t.Errorf("env printed no %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantNone {
				if has(w) {
					t.Errorf("env printed %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestExecLiveViewStripsEscapes: the model's streamed text reaches a
// terminal stderr with its colours but without the escape sequences that
// would set the window title, write the clipboard or move the cursor;
// the error that ends the turn is sanitized too. A piped stdout gets the
// answer byte for byte.
func TestExecLiveViewStripsEscapes(t *testing.T) {
	t.Parallel()
	hostile := "\x1b]0;pwned\x07\x1b]52;c;dG91Y2ggL3RtcC9QV05FRAo=\x07\x1b[2A\x1b[31mred\x1b[0m text\rhidden"
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", hostile), rt.MessageDone("m1", hostile), rt.Completed("r1")),
	})
	r := runCLI(t, srv, runOpts{stderrTTY: true}, "exec", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "\x1b[31mred\x1b[0m text\nhidden") {
		t.Errorf("stderr lost the text or its colours: %q", r.stderr)
	}
	for _, bad := range []string{"\x1b]", "\x07", "\x1b[2A", "\r"} {
		if strings.Contains(r.stderr, bad) {
			t.Errorf("stderr passed %q to the terminal: %q", bad, r.stderr)
		}
	}
	if r.stdout != hostile+"\n" {
		t.Errorf("piped stdout = %q; want the answer unchanged", r.stdout)
	}

	srv = rt.NewServer(t, rt.Script{rt.Error(400, "invalid_request_error", "", "bad \x1b]0;pwned\x07request")})
	r = runCLI(t, srv, runOpts{stderrTTY: true}, "exec", "hi")
	if !strings.Contains(r.stderr, "bad request") || strings.Contains(r.stderr, "\x1b]") {
		t.Errorf("the error line was not sanitized: %q", r.stderr)
	}
}
