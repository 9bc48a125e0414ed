package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentcli/agent/config"
)

// TestWorkspaceDefaults: the project's trust decision chooses the default
// sandbox and approval, as in Codex 0.169 (measured with `codex debug
// prompt-input`: trusted and untrusted give workspace-write, untrusted also
// the untrusted approval policy, no decision read-only); the decision of
// the git root covers its subdirectories; configured values win.
func TestWorkspaceDefaults(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(repo, "pkg", "x")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	tests := []struct {
		name, file, dir           string
		wantSandbox, wantApproval string
	}{
		{"no decision", "", repo, "read-only", "on-request"},
		{"trusted", `[projects."` + repo + `"]` + "\ntrust_level = \"trusted\"\n", repo, "workspace-write", "on-request"},
		{"untrusted", `[projects."` + repo + `"]` + "\ntrust_level = \"untrusted\"\n", repo, "workspace-write", "untrusted"},
		{"git root covers subdirectory", `[projects."` + repo + `"]` + "\ntrust_level = \"trusted\"\n", sub, "workspace-write", "on-request"},
		{"other directory", `[projects."` + repo + `"]` + "\ntrust_level = \"trusted\"\n", other, "read-only", "on-request"},
		{"configured values win", "sandbox_mode = \"danger-full-access\"\napproval_policy = \"never\"\n" +
			`[projects."` + repo + `"]` + "\ntrust_level = \"untrusted\"\n", repo, "danger-full-access", "never"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, tt.file, config.Options{})
			sb, ap := c.WorkspaceDefaults(tt.dir)
			if sb != tt.wantSandbox || ap != tt.wantApproval {
				t.Errorf("WorkspaceDefaults(%s) = %s, %s; want %s, %s", tt.dir, sb, ap, tt.wantSandbox, tt.wantApproval)
			}
		})
	}
}
