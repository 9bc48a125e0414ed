package main

import (
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EShellEnvironmentPolicy: `env` run by the model through the real
// binary sees what [shell_environment_policy] lets through, and under the
// default policy none of the keys and tokens agent was started with.
func TestE2EShellEnvironmentPolicy(t *testing.T) {
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
				rt.Stream(rt.Created("r1"), execCallStep("env"), rt.Completed("r1")),
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
			out := callOutput(t, srv)
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
