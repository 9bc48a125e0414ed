package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/rollout"
)

// complete runs the shell's completion request (what agent completion
// bash's script asks) in home and returns the offered values, without
// cobra's directive line.
func complete(t *testing.T, home string, args ...string) []string {
	t.Helper()
	var out bytes.Buffer
	env := Env{Stdout: &out, Stderr: &bytes.Buffer{}, Getenv: func(k string) string {
		if k == "AGENT_HOME" {
			return home
		}
		return ""
	}}
	root := newRootCmd(t.Context(), env)
	root.SetArgs(append([]string{"__complete"}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("__complete %v: %v", args, err)
	}
	var vals []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l != "" && !strings.HasPrefix(l, ":") {
			vals = append(vals, l)
		}
	}
	return vals
}

// TestCompletionValues: completion offers the values of flags and
// arguments, not file names: the sandbox modes, the home's profiles (files
// and tables), its MCP servers for mcp get/remove, and the recorded
// sessions, by id with their first prompt, for resume and fork.
func TestCompletionValues(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cfg := "[profiles.fast]\nmodel = \"m\"\n[mcp_servers.docs]\ncommand = \"docs-server\"\n[mcp_servers.web]\nurl = \"http://127.0.0.1:9/mcp\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "deep.config.toml"), []byte("model = \"n\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := rollout.Create(t.Context(), home, rollout.SessionMeta{ID: "0190aaaa-0000-7000-8000-000000000001", Cwd: "/elsewhere"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AppendEvent(rollout.EventMsg{Type: rollout.EventUserMessage, Message: "fix the\nflaky test"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"exec", "--sandbox", ""}, []string{"read-only\tcommands may read, not write", "workspace-write\tcommands may write in the workspace", "danger-full-access\tno sandbox"}},
		{[]string{"-s", ""}, []string{"read-only\tcommands may read, not write", "workspace-write\tcommands may write in the workspace", "danger-full-access\tno sandbox"}},
		{[]string{"exec", "--profile", ""}, []string{"deep", "fast"}},
		{[]string{"-p", ""}, []string{"deep", "fast"}},
		{[]string{"mcp", "get", ""}, []string{"docs\tdocs-server", "web\thttp://127.0.0.1:9/mcp"}},
		{[]string{"mcp", "remove", "w"}, []string{"docs\tdocs-server", "web\thttp://127.0.0.1:9/mcp"}}, // the shell filters by prefix
		{[]string{"resume", ""}, []string{"0190aaaa-0000-7000-8000-000000000001\tfix the flaky test (/elsewhere)"}},
		{[]string{"exec", "resume", "0190"}, []string{"0190aaaa-0000-7000-8000-000000000001\tfix the flaky test (/elsewhere)"}},
		{[]string{"fork", "zzz"}, nil},
		{[]string{"resume", "0190aaaa-0000-7000-8000-000000000001", ""}, nil}, // the prompt: nothing to offer
	} {
		got := complete(t, home, tc.args...)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("complete %q = %q; want %q", tc.args, got, tc.want)
		}
	}
}
