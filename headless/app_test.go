package headless_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/headless"
	"github.com/agentcli/agent/headless/execprint"
	"github.com/agentcli/agent/internal/app"
)

// TestAppHeaderAndTools: the header exec prints and the tools its
// printers know are those of the app: its workspace, config and provider.
func TestAppHeaderAndTools(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	cfg := "model = \"model-a\"\nmodel_provider = \"fake\"\nmodel_reasoning_effort = \"high\"\n" +
		"[model_providers.fake]\nbase_url = \"http://127.0.0.1:9/v1\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"AGENT_HOME": home, "SHELL": "/bin/zsh", "AGENT_API_KEY": "test-key"}
	a, err := app.New(t.Context(), app.Options{
		Env:        app.Env{Stderr: &strings.Builder{}, Getenv: func(k string) string { return vars[k] }},
		Originator: "agent_exec", Cd: cwd, Sandbox: "workspace-write", Approval: "never",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	want := execprint.Header{Version: "1.2.3", Workdir: cwd, Model: "model-a", Provider: "fake",
		Approval: "never", Sandbox: "workspace-write", ReasoningEffort: "high"}
	if diff := cmp.Diff(want, headless.AppHeader(a, "1.2.3")); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	tools := headless.AppTools(a)
	if tools.Shell != "/bin/zsh" || tools.Cwd != cwd {
		t.Errorf("tools: shell %q cwd %q; want /bin/zsh, %s", tools.Shell, tools.Cwd, cwd)
	}
	if _, _, ok := tools.MCPTool("exec_command"); ok {
		t.Error("exec_command reported as an MCP tool")
	}
	if _, _, ok := tools.MCPTool("no_such_tool"); ok {
		t.Error("an unknown tool reported as an MCP tool")
	}
}
