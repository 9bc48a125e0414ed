package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
)

func loadText(t *testing.T, text string, overrides ...string) (config.Config, error) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return config.Load(config.Options{Home: home, Overrides: overrides})
}

func TestAutoContinue(t *testing.T) {
	def, err := loadText(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(config.DefaultAutoContinue(), def.AutoContinue); diff != "" {
		t.Errorf("default (-want +got):\n%s", diff)
	}
	base := "model_provider = \"corp\"\n[auto_continue]\ndelays_ms = [1000, 2000]\nprompt = \"go on\"\n" +
		"[model_providers.corp]\nbase_url = \"http://127.0.0.1:1/v1\"\n"
	c, err := loadText(t, base)
	if err != nil {
		t.Fatal(err)
	}
	want := config.AutoContinue{Enabled: true, Delays: []time.Duration{time.Second, 2 * time.Second}, Prompt: "go on"}
	if diff := cmp.Diff(want, c.AutoContinue); diff != "" {
		t.Errorf("global (-want +got):\n%s", diff)
	}
	c, err = loadText(t, base+"[model_providers.corp.auto_continue]\nenabled = false\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.AutoContinue.Enabled || c.AutoContinue.Prompt != "go on" {
		t.Errorf("provider override = %+v; want disabled, other fields kept", c.AutoContinue)
	}
	c, err = loadText(t, base, "auto_continue.delays_ms=[5]")
	if err != nil || len(c.AutoContinue.Delays) != 1 || c.AutoContinue.Delays[0] != 5*time.Millisecond {
		t.Errorf("override: %+v, %v", c.AutoContinue, err)
	}
	_, err = loadText(t, "[auto_continue]\ndelays_ms = [10, -1]\n")
	if err == nil || !strings.Contains(err.Error(), "config.toml:2: auto_continue.delays_ms") {
		t.Errorf("bad delays err = %v", err)
	}
}

func TestSandboxFallback(t *testing.T) {
	c, err := loadText(t, "")
	if err != nil || c.SandboxFallback != "refuse" {
		t.Errorf("default = %q, %v; want refuse", c.SandboxFallback, err)
	}
	if c, err = loadText(t, "sandbox_fallback = \"best-effort\"\n"); err != nil || c.SandboxFallback != "best-effort" {
		t.Errorf("best-effort = %q, %v", c.SandboxFallback, err)
	}
	if _, err = loadText(t, "model = \"m\"\nsandbox_fallback = \"maybe\"\n"); err == nil || !strings.Contains(err.Error(), "config.toml:2: sandbox_fallback") {
		t.Errorf("bad value err = %v", err)
	}
}
