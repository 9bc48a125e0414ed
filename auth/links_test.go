//go:build unix

package auth_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/auth"
)

// TestHardLinkedAuthFileRefused: an auth.json with a hard link elsewhere
// (planted in a workspace, it would let a sandboxed command swap the
// credentials) is refused with an error naming it.
func TestHardLinkedAuthFileRefused(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	path := filepath.Join(home, auth.FileName)
	if err := os.WriteFile(path, []byte(`{"OPENAI_API_KEY":"sk-test-0000"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, filepath.Join(ws, "planted.json")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	_, err := auth.NewStore(home, nil).Load()
	if err == nil || !strings.Contains(err.Error(), path+" has 2 hard links") {
		t.Errorf("Load = %v; want it refused for its hard links", err)
	}
}
