package setup

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/provider"
)

// TestSecretsTransportLearnsCredentials: whatever credential a request
// carries (an auth command's token, a refreshed one) is masked from the
// moment it is sent, before any answer can echo it.
func TestSecretsTransportLearnsCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	s := redact.New()
	more := []string{"refresh-test-0000-rotated"}
	hc := WithSecrets(srv.Client(), s, func() []string { return more })
	req, _ := http.NewRequest("POST", srv.URL, nil)
	req.Header.Set("Authorization", "Bearer tok-from-command-0000")
	req.Header.Set("api-key", "azure-key-test-0000")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := s.String("a tok-from-command-0000 b azure-key-test-0000 c refresh-test-0000-rotated d Bearer tok-from-command-0000")
	if want := "a [REDACTED] b [REDACTED] c [REDACTED] d [REDACTED]"; got != want {
		t.Errorf("masked = %q, want %q", got, want)
	}
}

// TestAddEnvSecrets: the credentials agent can take from its environment
// are known before anything is sent.
func TestAddEnvSecrets(t *testing.T) {
	env := map[string]string{
		"ACME_CRED": "acme-cred-0000-0000", "MCP_BEARER": "mcp-bearer-0000-0000", "HDR_VAR": "header-val-0000",
		"GITHUB_TOKEN": "ghp-test-0000-0000", "PLAIN": "not-a-secret-0000",
	}
	environ := []string{"GITHUB_TOKEN=ghp-test-0000-0000", "PLAIN=not-a-secret-0000", "MY_API_KEY=short"}
	cfg := config.Default()
	cfg.Providers = map[string]provider.Info{"acme": {ID: "acme", EnvKey: "ACME_CRED", EnvHTTPHeaders: map[string]string{"X-Hdr": "HDR_VAR"}}}
	cfg.MCPServers = map[string]config.MCPServer{"m": {
		BearerTokenEnvVar: "MCP_BEARER", Env: map[string]string{"SERVICE_TOKEN": "mcp-env-token-0000", "MODE": "verbose-mode"},
	}}
	s := redact.New()
	AddEnvSecrets(s, environ, func(k string) string { return env[k] }, cfg, provider.Info{})
	for _, v := range []string{"acme-cred-0000-0000", "mcp-bearer-0000-0000", "header-val-0000", "ghp-test-0000-0000", "mcp-env-token-0000"} {
		if s.String(v) != redact.Mask {
			t.Errorf("%q is not masked", v)
		}
	}
	for _, v := range []string{"not-a-secret-0000", "verbose-mode", "short"} {
		if s.String(v) != v {
			t.Errorf("%q is masked", v)
		}
	}
	if got, want := credentialVars(cfg), []string{"ACME_CRED", "HDR_VAR", "MCP_BEARER"}; !slices.Equal(got, want) {
		t.Errorf("credentialVars = %q, want %q", got, want)
	}
	pol := CommandEnvPolicy(cfg)
	built := pol.Build([]string{"ACME_CRED=x", "MCP_BEARER=y", "HDR_VAR=z", "PATH=/bin"})
	if !slices.Equal(built, []string{"PATH=/bin"}) {
		t.Errorf("commands get %q; want only PATH", built)
	}
	cfg.ShellEnvironmentPolicy.IgnoreDefaultExcludes = true
	if built := CommandEnvPolicy(cfg).Build([]string{"MCP_BEARER=y"}); !slices.Equal(built, []string{"MCP_BEARER=y"}) {
		t.Errorf("with ignore_default_excludes commands get %q", built)
	}
}
