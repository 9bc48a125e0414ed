package setup

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/retry/gate"
)

// TestProxySecrets: agent proxy masks the credentials of its environment,
// of config and of auth.json before it forwards anything, and those of
// every request it forwards from then on.
func TestProxySecrets(t *testing.T) {
	home := t.TempDir()
	if err := auth.NewStore(home, nil).SaveAPIKey(t.Context(), "sk-saved-login-0000"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	cfg := config.Default()
	cfg.Provider.EnvKey = "ACME_KEY"
	env := testEnv(home, map[string]string{"ACME_KEY": "sk-acme-env-0000"}, &strings.Builder{})
	env.Environ = func() []string { return []string{"GITHUB_TOKEN=ghp-environ-0000", "PLAIN=visible-0000"} }
	env.Secrets = redact.New()
	hc := ProxySecrets(env, home, cfg, srv.Client())
	req, _ := http.NewRequest("POST", srv.URL, nil)
	req.Header.Set("Authorization", "Bearer sk-client-sent-0000")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := env.Secrets.String("sk-saved-login-0000 sk-acme-env-0000 ghp-environ-0000 sk-client-sent-0000 visible-0000")
	if want := "[REDACTED] [REDACTED] [REDACTED] [REDACTED] visible-0000"; got != want {
		t.Errorf("masked %q; want %q", got, want)
	}
}

// TestLogLevel: --log-level over $AGENT_LOG over info; a name that is no
// level is said once and info used.
func TestLogLevel(t *testing.T) {
	for _, c := range []struct {
		flag, envVar string
		want         slog.Level
		warn         string
	}{
		{"", "", slog.LevelInfo, ""},
		{"debug", "error", slog.LevelDebug, ""},
		{"", "WARN", slog.LevelWarn, ""},
		{"loud", "debug", slog.LevelInfo, "agent: ignoring log level \"loud\" (want debug, info, warn or error)\n"},
	} {
		var stderr strings.Builder
		env := testEnv(t.TempDir(), map[string]string{"AGENT_LOG": c.envVar}, &stderr)
		if got := LogLevel(env, c.flag); got != c.want || stderr.String() != c.warn {
			t.Errorf("LogLevel(%q, AGENT_LOG=%q) = %v, said %q; want %v, %q", c.flag, c.envVar, got, stderr.String(), c.want, c.warn)
		}
	}
}

// TestMCPServerConfigs: the enabled [mcp_servers], by name, with their
// settings; disabled ones are not started.
func TestMCPServerConfigs(t *testing.T) {
	cfg := config.Default()
	on := config.DefaultMCPServer()
	on.Command, on.Args, on.Env, on.EnabledTools = "docs-mcp", []string{"--stdio"}, map[string]string{"K": "v"}, []string{"search"}
	web := config.DefaultMCPServer()
	web.URL, web.BearerTokenEnvVar = "https://mcp.example/mcp", "MCP_TOKEN"
	off := config.DefaultMCPServer()
	off.Command, off.Enabled = "off-mcp", false
	cfg.MCPServers = map[string]config.MCPServer{"zeta": on, "alpha": web, "off": off}
	got := MCPServerConfigs(cfg)
	if len(got) != 2 || got[0].Name != "alpha" || got[1].Name != "zeta" {
		t.Fatalf("servers %+v; want alpha, zeta", got)
	}
	if got[0].URL != web.URL || got[0].BearerTokenEnvVar != "MCP_TOKEN" || got[1].Command != "docs-mcp" || got[1].Args[0] != "--stdio" ||
		got[1].Env["K"] != "v" || got[1].EnabledTools[0] != "search" || got[1].StartupTimeout != on.StartupTimeout {
		t.Errorf("settings lost: %+v", got)
	}
}

// TestOpenGate: the retry gate is the machine's (a directory under the
// home) when the clock is real or injected with its sleep; an injected
// sleep without its clock, or a home where the directory cannot be made,
// gets a gate of this process alone (said in the log).
func TestOpenGate(t *testing.T) {
	home := t.TempDir()
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	noSleep := Env{Sleep: func(context.Context, time.Duration) error { return nil }}
	if g := OpenGate(noSleep, home, "acme", 2, logger); g == nil {
		t.Fatal("no gate")
	}
	if _, err := os.Stat(gate.DirFor(home, "acme")); !os.IsNotExist(err) {
		t.Errorf("a sleep without its clock shared the machine's gate: %v", err)
	}
	if g := OpenGate(Env{}, home, "acme", 2, logger); g == nil {
		t.Fatal("no gate")
	}
	if fi, err := os.Stat(gate.DirFor(home, "acme")); err != nil || !fi.IsDir() {
		t.Errorf("the machine's gate directory: %v", err)
	}
	file := filepath.Join(t.TempDir(), "not-a-dir")
	os.WriteFile(file, nil, 0o600)
	if g := OpenGate(Env{}, file, "acme", 2, logger); g == nil {
		t.Fatal("no gate")
	}
	if !strings.Contains(log.String(), "retry gate not shared with other processes") {
		t.Errorf("log %q lacks the unshared gate", log.String())
	}
}

func testEnv(home string, vars map[string]string, stderr *strings.Builder) Env {
	return Env{Stderr: stderr, Getenv: func(k string) string {
		if k == "AGENT_HOME" {
			return home
		}
		return vars[k]
	}, Environ: func() []string { return nil }, Sleep: func(context.Context, time.Duration) error { return nil }, Rand: func() float64 { return 0.5 }}
}
