package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestCodexHomeFound: with no AGENT_HOME and no ~/.agent, a turn runs on
// Codex's home (~/.codex, or $CODEX_HOME) and stderr names it once.
func TestCodexHomeFound(t *testing.T) {
	t.Parallel()
	user := t.TempDir()
	dotCodex := filepath.Join(user, ".codex")
	other := filepath.Join(t.TempDir(), "codex-home")
	for _, d := range []string{dotCodex, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, home string
		env        map[string]string
	}{
		{"~/.codex", dotCodex, map[string]string{"AGENT_HOME": "", "HOME": user}},
		{"CODEX_HOME", other, map[string]string{"AGENT_HOME": "", "HOME": t.TempDir(), "CODEX_HOME": other}},
	} {
		srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
		r := runCLI(t, srv, runOpts{home: tc.home, env: tc.env}, "exec", "hi")
		if r.code != 0 || len(srv.Requests()) != 1 {
			t.Fatalf("%s: exit %d, %d requests\n%s", tc.name, r.code, len(srv.Requests()), r.stderr)
		}
		if want := "agent: using Codex's home " + tc.home + " ("; strings.Count(r.stderr, want) != 1 {
			t.Errorf("%s: stderr does not name the home once (%q):\n%s", tc.name, want, r.stderr)
		}
		if !strings.Contains(r.stderr, "set AGENT_HOME") {
			t.Errorf("%s: stderr does not say how to choose another home:\n%s", tc.name, r.stderr)
		}
	}
}

// TestProfileFileSetsModel: -p work reads work.config.toml beside
// config.toml, as Codex 0.169 does.
func TestProfileFileSetsModel(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "work.config.toml"), []byte("model = \"work-model\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := rt.NewServer(t, rt.Script{rt.Reply("r", "m", "ok")})
	r := runCLI(t, srv, runOpts{home: home}, "exec", "-p", "work", "hi")
	if r.code != 0 || len(srv.Requests()) != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := srv.Requests()[0].JSON["model"]; got != "work-model" {
		t.Errorf("model %v; want work-model", got)
	}
}
