package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/config"
)

// An untrusted hook warns with how to trust it; a broken hooks.json
// fails naming the file.
func TestHookChecks(t *testing.T) {
	home := t.TempDir()
	hj := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./check.sh"}]}]}}`
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), []byte(hj), 0o600); err != nil {
		t.Fatal(err)
	}
	checks := hookChecks(config.Config{}, home, t.TempDir())
	if len(checks) != 2 || checks[0].Status != checkWarn || !strings.Contains(checks[0].Fix, "agent hooks trust "+filepath.Join(home, "hooks.json")+":pre_tool_use:0:0") ||
		checks[1].Detail != "1 hooks, 0 trusted" {
		t.Fatalf("%+v", checks)
	}
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	checks = hookChecks(config.Config{}, home, t.TempDir())
	if len(checks) != 1 || checks[0].Status != checkFailed || !strings.Contains(checks[0].Detail, filepath.Join(home, "hooks.json")) {
		t.Fatalf("%+v", checks)
	}
}
