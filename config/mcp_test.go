package config_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
)

func TestMCPServers(t *testing.T) {
	c := mustLoad(t, `
[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio"]
env = { LEVEL = "info" }
env_vars = ["GITHUB_TOKEN"]
cwd = "/src"
startup_timeout_sec = 2.5
tool_timeout_sec = 90
enabled_tools = ["search"]
disabled_tools = []
supports_parallel_tool_calls = true

[mcp_servers.web]
url = "https://mcp.example/mcp"
bearer_token_env_var = "WEB_TOKEN"
http_headers = { "X-Team" = "infra" }
env_http_headers = { "X-Trace" = "TRACE" }
startup_timeout_ms = 1500
enabled = false
`, config.Options{Overrides: []string{"mcp_servers.web.enabled=true", "mcp_servers.docs.env.EXTRA=one"}})
	want := map[string]config.MCPServer{
		"docs": {
			Command: "docs-mcp", Args: []string{"--stdio"}, Env: map[string]string{"LEVEL": "info", "EXTRA": "one"},
			EnvVars: []string{"GITHUB_TOKEN"}, Cwd: "/src", StartupTimeout: 2500 * time.Millisecond,
			ToolTimeout: 90 * time.Second, Enabled: true, EnabledTools: []string{"search"}, DisabledTools: []string{},
			SupportsParallelToolCalls: true,
		},
		"web": {
			URL: "https://mcp.example/mcp", BearerTokenEnvVar: "WEB_TOKEN", HTTPHeaders: map[string]string{"X-Team": "infra"},
			EnvHTTPHeaders: map[string]string{"X-Trace": "TRACE"}, StartupTimeout: 1500 * time.Millisecond,
			ToolTimeout: config.DefaultMCPToolTimeout, Enabled: true,
		},
	}
	if diff := cmp.Diff(want, c.MCPServers); diff != "" {
		t.Errorf("MCPServers (-want +got):\n%s", diff)
	}
}

func TestMCPServerErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		opts    config.Options
		line    int
		key     string
		msg     string // substring of Msg
	}{
		{"both command and url", "# servers\n[mcp_servers.x]\ncommand = \"a\"\nurl = \"http://h/mcp\"\n", config.Options{}, 4, "mcp_servers.x.url", "command and url cannot both be set"},
		{"neither", "\n[mcp_servers.x]\nargs = [\"a\"]\n", config.Options{}, 2, "mcp_servers.x", "needs command (a stdio server) or url (a streamable HTTP server)"},
		{"stdio key on an http server", "[mcp_servers.x]\nurl = \"http://h/mcp\"\n\nenv_vars = [\"A\"]\n", config.Options{}, 4, "mcp_servers.x.env_vars", "only applies to stdio servers (command)"},
		{"http key on a stdio server", "[mcp_servers.x]\ncommand = \"a\"\nhttp_headers = { A = \"b\" }\n", config.Options{}, 3, "mcp_servers.x.http_headers", "only applies to streamable HTTP servers (url)"},
		{"unknown key", "[mcp_servers.x]\ncommand = \"a\"\ncomand = \"b\"\n", config.Options{}, 3, "mcp_servers.x.comand", `did you mean "command"?`},
		{"bad name", "[mcp_servers.\"my server\"]\ncommand = \"a\"\n", config.Options{}, 1, `mcp_servers."my server"`, "invalid server name"},
		{"bad url", "[mcp_servers.x]\nurl = \"mcp.example\"\n", config.Options{}, 2, "mcp_servers.x.url", "invalid URL"},
		{"zero timeout", "[mcp_servers.x]\ncommand = \"a\"\ntool_timeout_sec = 0\n", config.Options{}, 3, "mcp_servers.x.tool_timeout_sec", "positive number of seconds"},
		{"wrong type", "[mcp_servers.x]\ncommand = \"a\"\nenabled = \"yes\"\n", config.Options{}, 3, "mcp_servers.x.enabled", "expected a boolean"},
		{"empty command", "[mcp_servers.x]\ncommand = \"\"\n", config.Options{}, 2, "mcp_servers.x.command", "must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce, path, _ := firstError(t, tt.content, tt.opts)
			if ce.Path != path || ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("error = %q (line %d key %q); want %s:%d: %s: ...%s...", ce, ce.Line, ce.Key, filepath.Base(path), tt.line, tt.key, tt.msg)
			}
		})
	}
}

// TestMCPOverrideErrors: a -c override that breaks a server is reported
// at the override.
func TestMCPOverrideErrors(t *testing.T) {
	home := writeHome(t, "[mcp_servers.x]\ncommand = \"a\"\n")
	_, err := config.Load(config.Options{Home: home, Overrides: []string{"mcp_servers.x.url=http://h/mcp"}})
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Override != "mcp_servers.x.url=http://h/mcp" || ce.Key != "mcp_servers.x.url" {
		t.Fatalf("Load = %v; want an error at the -c override", err)
	}
	_, err = config.Load(config.Options{Overrides: []string{"mcp_servers.y.enabled=false"}})
	if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "needs command") {
		t.Fatalf("Load = %v; want the server without a command or url reported", err)
	}
}

// TestMCPApprovalModes: Codex's default_tools_approval_mode and
// tools.<tool>.approval_mode are read (no longer ignored) and checked.
func TestMCPApprovalModes(t *testing.T) {
	home := writeHome(t, "[mcp_servers.docs]\ncommand = \"docs-mcp\"\ndefault_tools_approval_mode = \"prompt\"\n[mcp_servers.docs.tools.search]\napproval_mode = \"approve\"\n")
	c, err := config.Load(config.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	s := c.MCPServers["docs"]
	if s.DefaultToolsApprovalMode != "prompt" || s.ToolApprovalModes["search"] != "approve" || len(c.Warnings) != 0 {
		t.Errorf("server %+v, warnings %v", s, c.Warnings)
	}
	home = writeHome(t, "[mcp_servers.docs]\ncommand = \"docs-mcp\"\ndefault_tools_approval_mode = \"writes\"\n")
	if c, err := config.Load(config.Options{Home: home}); err != nil || c.MCPServers["docs"].DefaultToolsApprovalMode != "writes" {
		t.Errorf("writes (Codex 0.169 accepts it): %v", err)
	}
	home = writeHome(t, "[mcp_servers.docs]\ncommand = \"docs-mcp\"\n[mcp_servers.docs.tools.search]\napproval_mode = \"sometimes\"\n")
	if _, err := config.Load(config.Options{Home: home}); err == nil || !strings.Contains(err.Error(), "mcp_servers.docs.tools.search.approval_mode") {
		t.Errorf("bad approval_mode: %v", err)
	}
}

// TestMCPTypeErrorAlone: a command or url of the wrong type is the one
// problem reported for its server, without a false "needs command or url"
// beside it.
func TestMCPTypeErrorAlone(t *testing.T) {
	for _, content := range []string{"[mcp_servers.x]\ncommand = 42\n", "[mcp_servers.x]\nurl = 42\n", "[mcp_servers.x]\ncommand = \"\"\n"} {
		_, err := config.Load(config.Options{Home: writeHome(t, content)})
		if err == nil {
			t.Fatalf("%q loaded", content)
		}
		if strings.Contains(err.Error(), "needs command") {
			t.Errorf("%q: %v", content, err)
		}
	}
}
