//go:build unix

package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/config"
)

// TestHardLinkedConfigRefused: a config.toml (or profile file) with a
// hard link elsewhere, as one planted in a workspace a sandboxed command
// may write, is refused with an error naming it.
func TestHardLinkedConfigRefused(t *testing.T) {
	for _, name := range []string{config.FileName, "p.config.toml"} {
		home, ws := t.TempDir(), t.TempDir()
		path := filepath.Join(home, name)
		if err := os.WriteFile(path, []byte("model = \"x\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(path, filepath.Join(ws, "planted.toml")); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
		_, err := config.Load(config.Options{Home: home, Profile: "p"})
		if err == nil || !strings.Contains(err.Error(), path+" has 2 hard links") {
			t.Errorf("%s: Load = %v; want it refused for its hard links", name, err)
		}
	}
}
