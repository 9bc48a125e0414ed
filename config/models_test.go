package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/config"
)

// TestModelCatalogue: [models."NAME"] adds a model and overrides a
// snapshot's figures; the window decides automatic compaction; a
// models.dev api.json named by model_catalog_json extends the catalogue
// (config's [models] over it); a bad catalogue file and bad figures are
// named with file and key.
func TestModelCatalogue(t *testing.T) {
	c := mustLoad(t, `model = "local-7b"
[models."local-7b"]
limit = { context = 32000 }
[models."gpt-5.5"]
cost = { input = 2.0, output = 16.0, cache_read = 0.2 }
`, config.Options{})
	if got := c.AutoCompactTokens(); got != 28800 {
		t.Errorf("local-7b compacts at %d; want 90%% of its 32000", got)
	}
	if m, ok := c.Catalog.Lookup("gpt-5.5"); !ok || m.Cost == nil || m.Cost.Output != 16 || m.Limit.Context != 272000 {
		t.Errorf("gpt-5.5 = %+v; want the config's price over the snapshot's window", m)
	}

	// A models.dev api.json as the catalogue file; config's [models] over it.
	home := writeHome(t, "model_catalog_json = \"api.json\"\n[models.\"acme-1\"]\nlimit = { output = 4000 }\n")
	dev := `{"acme": {"models": {"acme-1": {"limit": {"context": 64000, "output": 8000}, "cost": {"input": 0.5, "output": 1.5}}}}}`
	if err := os.WriteFile(filepath.Join(home, "api.json"), []byte(dev), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(config.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := c.Catalog.Lookup("acme-1"); !ok || m.Cost == nil || m.Cost.Output != 1.5 || m.Limit.Context != 64000 || m.Limit.Output != 4000 {
		t.Errorf("acme-1 = %+v; want models.dev's price and window, config's output limit", m)
	}

	home = writeHome(t, "model_catalog_json = \"cat.json\"\n")
	if err := os.WriteFile(filepath.Join(home, "cat.json"), []byte(`{"models": [{"context_window": 5}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = config.Load(config.Options{Home: home})
	if err == nil || !strings.Contains(err.Error(), "config.toml:1") || !strings.Contains(err.Error(), "cat.json") || !strings.Contains(err.Error(), "no slug") {
		t.Errorf("bad catalogue file: %v; want the key's line, the file and what is wrong", err)
	}
	_, err = config.Load(config.Options{Home: writeHome(t, "max_cost_usd = -1\n[models.x]\ncost = { input = 1.0 }\n")})
	if err == nil || !strings.Contains(err.Error(), "max_cost_usd") || !strings.Contains(err.Error(), "models.x.cost") {
		t.Errorf("bad figures: %v; want max_cost_usd and models.x.cost named", err)
	}
}
