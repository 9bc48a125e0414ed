package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/config"
)

func TestTrustHook(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.toml")
	orig := "# my settings\nmodel = \"gpt-5\"\n\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\nenabled = true\ntrusted_hash = \"sha256:old\"\n\n[history]\npersistence = \"none\"\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := config.TrustHook(home, "/h/hooks.json:stop:0:0", "sha256:new"); err != nil {
		t.Fatal(err)
	}
	if err := config.TrustHook(home, "/h/hooks.json:pre_tool_use:0:0", "sha256:pre"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	for _, want := range []string{"# my settings", "enabled = true\ntrusted_hash = \"sha256:new\"", "[history]",
		"[hooks.state.\"/h/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:pre\""} {
		if !strings.Contains(got, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "sha256:old") {
		t.Errorf("the old hash stays:\n%s", got)
	}
	c, err := config.Load(config.Options{Home: home})
	if err != nil || len(c.Warnings) != 0 {
		t.Fatalf("%v %v", err, c.Warnings)
	}
	if len(c.Hooks) != 1 {
		t.Fatalf("hooks tables %+v", c.Hooks)
	}
}
