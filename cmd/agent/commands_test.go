package main

import (
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// A Codex subcommand agent does not have, and a mistyped agent command,
// exit 2 with one line and send nothing; a prompt written as one argument
// with spaces, after --, or through agent exec, still reaches the model.
func TestCommandsThatAreNotAgents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string // in the one line on stderr
	}{
		{[]string{"apply"}, `agent has no "apply" command`},
		{[]string{"cloud", "exec", "x"}, `agent has no "cloud" command`},
		{[]string{"remote-control"}, "agent app-server"},
		{[]string{"migrate-rollouts"}, `agent has no "migrate-rollouts" command`},
		{[]string{"features", "list"}, "--enable"},
		{[]string{"exce", "hi"}, `did you mean "exec"`},
		{[]string{"loign"}, `did you mean "login"`},
		{[]string{"-m", "x", "dcotor"}, `did you mean "doctor"`},
	} {
		srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
		r := runCLI(t, srv, runOpts{}, tc.args...)
		if r.code != 2 {
			t.Errorf("agent %v: exit %d, want 2\n%s", tc.args, r.code, r.stderr)
		}
		if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n != 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("agent %v: stderr %q; want one line with %q", tc.args, r.stderr, tc.want)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("agent %v sent %d requests", tc.args, n)
		}
	}
	for _, args := range [][]string{
		{"exec", "apply"},
		{"exec", "--", "exce"},
	} {
		srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
		r := runCLI(t, srv, runOpts{}, args...)
		if r.code != 0 || len(srv.Requests()) != 1 {
			t.Errorf("agent %v: exit %d, %d requests; want a turn\n%s", args, r.code, len(srv.Requests()), r.stderr)
		}
	}
}

// A prompt is never taken for a command when it has a space in it or
// comes after -- (cobra drops the -- and says where it was).
func TestPromptLooksLikeCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		dash int
	}{
		{[]string{"apply the patch in x.diff"}, -1},
		{[]string{"apply"}, 0},
		{[]string{"exce"}, 0},
		{[]string{"fix"}, -1},
	} {
		if err := checkCommandWord(newRootCmd(t.Context(), Env{}), tc.args, tc.dash); err != nil {
			t.Errorf("agent %q (dash %d): %v; want a prompt", tc.args, tc.dash, err)
		}
	}
}

// exec --ignore-user-config does not read the home's config.toml (a broken
// one no longer stops the run) but still finds the credentials there.
func TestExecIgnoreUserConfig(t *testing.T) {
	t.Parallel()
	broken := "model = [\n"
	if r := runCLI(t, nil, runOpts{config: broken}, "exec", "-c", "model_provider=demo", "hi"); r.code != 2 {
		t.Fatalf("broken config: exit %d, want 2\n%s", r.code, r.stderr)
	}
	r := runCLI(t, nil, runOpts{config: broken}, "exec", "--ignore-user-config", "-c", "model_provider=demo", "hi")
	if r.code != 0 || strings.Contains(r.stderr, "ignored") {
		t.Fatalf("--ignore-user-config: exit %d\n%s", r.code, r.stderr)
	}
}
