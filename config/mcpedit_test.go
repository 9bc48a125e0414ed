package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
)

// editable is a config with comments, tricky values and other tables
// around an MCP server.
const editable = `# My agent config
model = "gpt-5.5" # inline comment
instructions = """
[mcp_servers.fake]
command = "not a table: inside a string"
"""

[mcp_servers.old]
command = "old-mcp"
args = [
  "--a", # a comment inside an array
  "[not a header]",
]
# a comment among its keys

[mcp_servers.old.env]
A = "1"

# History section
[history]
persistence = "none"
`

func readConfig(t *testing.T, home string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, config.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMCPEditRoundTrip(t *testing.T) {
	home := writeHome(t, editable)
	docs := config.DefaultMCPServer()
	docs.Command, docs.Args = "docs-mcp", []string{"--root", `C:\dir "quoted"`, "line\nbreak", "é"}
	docs.Env = map[string]string{"LEVEL": "info", "weird key": "x"}
	replaced, err := config.SetMCPServer(home, "docs", docs)
	if err != nil || replaced {
		t.Fatalf("SetMCPServer(docs) = %v, %v; want added", replaced, err)
	}
	want := editable + "\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n" +
		`args = ["--root", "C:\\dir \"quoted\"", "line\nbreak", "é"]` + "\n" +
		`env = { LEVEL = "info", "weird key" = "x" }` + "\n"
	if diff := cmp.Diff(want, readConfig(t, home)); diff != "" {
		t.Errorf("after add (-want +got):\n%s", diff)
	}
	c, err := config.Load(config.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(docs, c.MCPServers["docs"]); diff != "" {
		t.Errorf("loaded docs (-want +got):\n%s", diff)
	}
	if c.Instructions == "" || c.History.Persistence != "none" || c.MCPServers["old"].Command != "old-mcp" {
		t.Errorf("the rest of the config changed: %+v", c)
	}

	removed, err := config.RemoveMCPServer(home, "docs")
	if err != nil || !removed {
		t.Fatalf("RemoveMCPServer(docs) = %v, %v", removed, err)
	}
	if diff := cmp.Diff(editable, readConfig(t, home)); diff != "" {
		t.Errorf("add then remove is not the original (-want +got):\n%s", diff)
	}
}

func TestMCPEditReplaceAndRemoveInPlace(t *testing.T) {
	home := writeHome(t, editable)
	web := config.DefaultMCPServer()
	web.URL, web.BearerTokenEnvVar, web.ToolTimeout = "https://mcp.example/mcp", "WEB_TOKEN", 90*time.Second
	replaced, err := config.SetMCPServer(home, "old", web)
	if err != nil || !replaced {
		t.Fatalf("SetMCPServer(old) = %v, %v; want replaced", replaced, err)
	}
	head, tail, _ := strings.Cut(editable, "[mcp_servers.old]\n")
	_, tail, _ = strings.Cut(tail, "A = \"1\"\n\n")
	want := head + "[mcp_servers.old]\nurl = \"https://mcp.example/mcp\"\nbearer_token_env_var = \"WEB_TOKEN\"\n" +
		"tool_timeout_sec = 90.0\n\n" + tail
	if diff := cmp.Diff(want, readConfig(t, home)); diff != "" {
		t.Errorf("after replace (-want +got):\n%s", diff)
	}
	removed, err := config.RemoveMCPServer(home, "old")
	if err != nil || !removed {
		t.Fatalf("RemoveMCPServer(old) = %v, %v", removed, err)
	}
	if diff := cmp.Diff(head+tail, readConfig(t, home)); diff != "" {
		t.Errorf("after remove (-want +got):\n%s", diff)
	}
	c, err := config.Load(config.Options{Home: home})
	if err != nil || len(c.MCPServers) != 0 || c.History.Persistence != "none" {
		t.Errorf("Load after remove = %v servers, persistence %q, %v", len(c.MCPServers), c.History.Persistence, err)
	}
}

func TestMCPEditRefusals(t *testing.T) {
	dotted := "model = \"x\"\nmcp_servers.dot.command = \"a\"\n"
	tests := []struct {
		name    string
		content string
		edit    func(home string) error
		is      error  // errors.Is target, or nil
		msg     string // substring otherwise
	}{
		{"remove a dotted entry", dotted, func(h string) error { _, err := config.RemoveMCPServer(h, "dot"); return err }, config.ErrUneditable, ""},
		{"replace a dotted entry", dotted, func(h string) error {
			s := config.DefaultMCPServer()
			s.Command = "b"
			_, err := config.SetMCPServer(h, "dot", s)
			return err
		}, config.ErrUneditable, ""},
		{"invalid name", "", func(h string) error {
			s := config.DefaultMCPServer()
			s.Command = "b"
			_, err := config.SetMCPServer(h, "a b", s)
			return err
		}, nil, "invalid server name"},
		{"result would not load", "", func(h string) error {
			_, err := config.SetMCPServer(h, "none", config.DefaultMCPServer())
			return err
		}, nil, "needs command"},
		{"syntax error", "model = \n", func(h string) error { _, err := config.RemoveMCPServer(h, "x"); return err }, nil, "syntax error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := writeHome(t, tt.content)
			err := tt.edit(home)
			if tt.is != nil && !errors.Is(err, tt.is) || tt.is == nil && (err == nil || !strings.Contains(err.Error(), tt.msg)) {
				t.Fatalf("edit error = %v; want %v%s", err, tt.is, tt.msg)
			}
			if got := readConfig(t, home); got != tt.content {
				t.Errorf("the file changed on a refused edit:\n%s", got)
			}
		})
	}
}

func TestMCPEditNewFileAndMode(t *testing.T) {
	home := filepath.Join(t.TempDir(), "new-home")
	s := config.DefaultMCPServer()
	s.URL = "http://127.0.0.1:1/mcp"
	if _, err := config.SetMCPServer(home, "web", s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, config.FileName)
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new config: %v, %v; want mode 0600", st, err)
	}
	if got := readConfig(t, home); got != "[mcp_servers.web]\nurl = \"http://127.0.0.1:1/mcp\"\n" {
		t.Errorf("new config = %q", got)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if removed, err := config.RemoveMCPServer(home, "web"); err != nil || !removed {
		t.Fatalf("RemoveMCPServer = %v, %v", removed, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode after edit = %v; want 0644 kept", st.Mode())
	}
	if got := readConfig(t, home); got != "" {
		t.Errorf("config after removing its only table = %q; want empty", got)
	}
	if removed, err := config.RemoveMCPServer(home, "web"); err != nil || removed {
		t.Errorf("removing an absent server = %v, %v; want false, nil", removed, err)
	}
}
