package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/config"
)

// TestProfileFile: -p NAME reads NAME.config.toml beside config.toml
// (Codex 0.169's profile files), layered over config.toml and under -c;
// [profiles.NAME] tables keep working.
func TestProfileFile(t *testing.T) {
	home := writeHome(t, "model = \"base\"\nmodel_reasoning_effort = \"low\"\n[profiles.old]\nmodel = \"from-table\"\n")
	if err := os.WriteFile(filepath.Join(home, "work.config.toml"), []byte("model = \"from-file\"\n[tui]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(config.Options{Home: home, Profile: "work"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "from-file" || c.ModelReasoningEffort != "low" || c.Profile != "work" {
		t.Errorf("-p work: model %q effort %q profile %q; want from-file, low (from config.toml), work", c.Model, c.ModelReasoningEffort, c.Profile)
	}
	if want := filepath.Join(home, "work.config.toml"); c.ProfilePath != want {
		t.Errorf("ProfilePath = %q; want %q", c.ProfilePath, want)
	}
	if c, err = config.Load(config.Options{Home: home, Profile: "work", Overrides: []string{"model=cli"}}); err != nil || c.Model != "cli" {
		t.Errorf("-p work -c model=cli: model %q, %v; want cli", c.Model, err)
	}
	if c, err = config.Load(config.Options{Home: home, Profile: "old"}); err != nil || c.Model != "from-table" {
		t.Errorf("-p old: model %q, %v; want from-table", c.Model, err)
	}
	// A profile file without config.toml works too.
	bare := t.TempDir()
	if err := os.WriteFile(filepath.Join(bare, "p.config.toml"), []byte("model = \"bare\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err = config.Load(config.Options{Home: bare, Profile: "p"}); err != nil || c.Model != "bare" {
		t.Errorf("-p p with no config.toml: model %q, %v; want bare", c.Model, err)
	}
}

// TestProfileFileErrors: a mistake in a profile file names that file; an
// unknown profile names both places it was looked for.
func TestProfileFileErrors(t *testing.T) {
	home := writeHome(t, "[profiles.a]\n")
	if err := os.WriteFile(filepath.Join(home, "bad.config.toml"), []byte("modle = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := config.Load(config.Options{Home: home, Profile: "bad"})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(home, "bad.config.toml")+":1") {
		t.Errorf("typo in a profile file: %v; want it named with its line", err)
	}
	_, err = config.Load(config.Options{Home: home, Profile: "nope"})
	for _, want := range []string{filepath.Join(home, "nope.config.toml"), "[profiles.nope]", filepath.Join(home, "config.toml"), "defined: a, bad"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("unknown profile: %v; want %q in it", err, want)
		}
	}
}
