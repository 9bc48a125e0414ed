package config_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentsTable: Codex's [agents] keys with Codex's defaults (6
// threads, depth 1, 1800 s), role tables beside them, and bad values named
// with their key.
func TestAgentsTable(t *testing.T) {
	def, err := loadText(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if a := def.Agents; a.MaxThreads != 6 || a.MaxDepth != 1 || a.JobMaxRuntimeSeconds != 1800 || len(a.Roles) != 0 {
		t.Errorf("defaults = %+v; want Codex's: 6 threads, depth 1, 1800 s, no roles", a)
	}
	c, err := loadText(t, "[agents]\nmax_threads = 2\nmax_depth = 3\njob_max_runtime_seconds = 60\n"+
		"[agents.reviewer]\ndescription = \"Reviews diffs.\"\nconfig_file = \"agents/reviewer.toml\"\nnickname_candidates = [\"Ada\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	a := c.Agents
	if a.MaxThreads != 2 || a.MaxDepth != 3 || a.JobMaxRuntimeSeconds != 60 {
		t.Errorf("limits = %+v; want 2, 3, 60", a)
	}
	r, ok := a.Roles["reviewer"]
	if !ok || r.Description != "Reviews diffs." || !filepath.IsAbs(r.ConfigFile) ||
		!strings.HasSuffix(r.ConfigFile, filepath.Join("agents", "reviewer.toml")) || len(r.NicknameCandidates) != 1 {
		t.Errorf("role = %+v (found %v); want the table, config_file from config.toml's folder", r, ok)
	}
	c, err = loadText(t, "", "agents.max_threads=4")
	if err != nil || c.Agents.MaxThreads != 4 {
		t.Errorf("-c agents.max_threads=4: %d, %v", c.Agents.MaxThreads, err)
	}
	for _, bad := range []struct{ text, want string }{
		{"[agents]\nmax_threads = 0\n", "agents.max_threads: must be between 1 and 1000, got 0"},
		{"[agents]\njob_max_runtime_seconds = 0\n", "agents.job_max_runtime_seconds"},
		{"[agents.x]\ndescription = \"  \"\n", "agents.x.description: cannot be blank"},
		{"[agents.x]\ndescriptio = \"a\"\n", "agents.x.descriptio: unknown key"},
	} {
		_, err := loadText(t, bad.text)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err = %v; want it to say %q", bad.text, err, bad.want)
		}
	}
}
