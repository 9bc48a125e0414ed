package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/setup"
)

// testApp is an app whose home holds config.toml cfg, working in a
// directory of its own; it returns the home.
func testApp(t *testing.T, cfg string, ephemeral bool) (*App, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := setup.Env{Stderr: &strings.Builder{}, Getenv: func(k string) string {
		if k == "AGENT_HOME" || k == "HOME" { // HOME: login shells read no rc files of the machine
			return home
		}
		return ""
	}, Environ: func() []string { return agenttest.EnvironWithHome(home) }, Sleep: func(context.Context, time.Duration) error { return nil }, Rand: func() float64 { return 0.5 }}
	a, err := New(t.Context(), Options{Env: env, Originator: "agent_cli", Cd: t.TempDir(), Ephemeral: ephemeral})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, home
}
