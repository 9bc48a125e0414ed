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
	"github.com/agentcli/agent/internal/setup"
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
		Env:        setup.Env{Stderr: &strings.Builder{}, Getenv: func(k string) string { return vars[k] }},
		Originator: "agent_exec", Cd: cwd, Sandbox: "workspace-write", Approval: "never",
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	th, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	want := execprint.Header{Version: "1.2.3", Workdir: cwd, Model: "model-a", Provider: "fake",
		Approval: "never", Sandbox: "workspace-write", ReasoningEffort: "high"}
	if diff := cmp.Diff(want, headless.AppHeader(a, th, "1.2.3")); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	tools := headless.AppTools(th)
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

// TestReadSchema: --output-schema reads a JSON object as it is; a missing
// file or one that is not a JSON object is an error naming the flag (and
// the file); no flag is no schema.
func TestReadSchema(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`{"type":"object"}`), 0o600)
	os.WriteFile(bad, []byte(`["not", "an object"]`), 0o600)
	if s, err := headless.ReadSchema(""); s != nil || err != nil {
		t.Errorf(`ReadSchema(""): %s, %v; want nil, nil`, s, err)
	}
	if s, err := headless.ReadSchema(good); string(s) != `{"type":"object"}` || err != nil {
		t.Errorf("good: %s, %v", s, err)
	}
	if _, err := headless.ReadSchema(bad); err == nil || !strings.Contains(err.Error(), "--output-schema "+bad+": not a JSON object") {
		t.Errorf("bad: %v; want an error naming the flag and the file", err)
	}
	if _, err := headless.ReadSchema(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "--output-schema") {
		t.Errorf("missing: %v; want an error naming the flag", err)
	}
}
