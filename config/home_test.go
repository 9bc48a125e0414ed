package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentcli/agent/config"
)

// TestFindHome: AGENT_HOME, then ~/.agent when it exists, then Codex's
// home ($CODEX_HOME, then ~/.codex when it exists), then ~/.agent.
func TestFindHome(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string // "~" is the user's home
		dirs    []string          // made under the user's home
		want    string            // under the user's home
		from    string
		isCodex bool
	}{
		{name: "AGENT_HOME wins", env: map[string]string{"AGENT_HOME": "~/mine", "CODEX_HOME": "~/cx"}, dirs: []string{".agent", ".codex"}, want: "mine", from: config.HomeFromAgentEnv},
		{name: "~/.agent over Codex's", env: map[string]string{"CODEX_HOME": "~/cx"}, dirs: []string{".agent", ".codex"}, want: ".agent", from: config.HomeAgentDefault},
		{name: "CODEX_HOME", env: map[string]string{"CODEX_HOME": "~/cx"}, dirs: []string{".codex"}, want: "cx", from: config.HomeFromCodexEnv, isCodex: true},
		{name: "~/.codex", dirs: []string{".codex"}, want: ".codex", from: config.HomeCodexDefault, isCodex: true},
		{name: "fresh install", want: ".agent", from: config.HomeAgentDefault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user := t.TempDir()
			for _, d := range tc.dirs {
				if err := os.Mkdir(filepath.Join(user, d), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"HOME": user}
			for k, v := range tc.env {
				env[k] = filepath.Join(user, v[1:])
			}
			h, err := config.FindHome(func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(user, tc.want); h.Dir != want || h.From != tc.from || h.Codex() != tc.isCodex {
				t.Errorf("FindHome = %+v (codex %v); want %s from %s (codex %v)", h, h.Codex(), want, tc.from, tc.isCodex)
			}
			if h.Prompts() != filepath.Join(h.Dir, "prompts") {
				t.Errorf("Prompts = %s", h.Prompts())
			}
		})
	}
}
