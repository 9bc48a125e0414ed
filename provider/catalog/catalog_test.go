package catalog

import (
	"math"
	"strings"
	"testing"
)

// TestBuiltin: the snapshot has Codex 0.171's models with their windows
// and efforts, and prices only where published.
func TestBuiltin(t *testing.T) {
	c := Builtin()
	m, ok := c.Lookup("gpt-5.5")
	if !ok || m.Limit.Context != 272000 || m.DefaultEffort != "medium" || len(m.Efforts) == 0 {
		t.Errorf("gpt-5.5 = %+v, %v; want Codex 0.171's window 272000 and efforts", m, ok)
	}
	if m.Cost != nil {
		t.Errorf("gpt-5.5 has a price %+v; its price is not in the snapshot and must not be guessed", m.Cost)
	}
	if m, ok := c.Lookup("claude-sonnet-4-5-20250929"); !ok || m.Cost == nil || m.Cost.CacheWrite != 3.75 {
		t.Errorf("a dated Anthropic id finds its model with its cache prices: %+v, %v", m, ok)
	}
	if m, ok := c.Lookup("openai/gpt-5.1-codex"); !ok || m.Cost == nil || m.Cost.Input != 1.25 {
		t.Errorf("a provider prefix is looked through: %+v, %v", m, ok)
	}
	if _, ok := c.Lookup("gpt-5.1-codex-foo"); ok {
		t.Error("an unknown variant matched a model: its price would be guessed")
	}
	for name, want := range map[string]int64{"gpt-5.1-codex-foo": 272000, "gpt-5.3-codex": 272000, "gpt-4.1": 1047576, "llama3": 0, "o3-pro": 200000, "gpt-50": 0} {
		if got := c.Window(name); got != want {
			t.Errorf("Window(%q) = %d; want %d", name, got, want)
		}
	}
	if n := len(c.Models("anthropic")); n < 5 {
		t.Errorf("%d Anthropic models; want the current ones", n)
	}
}

// TestPrice: OpenAI's input_tokens include the cached ones, billed at
// cache_read; cache writes at cache_write; no cost, no price.
func TestPrice(t *testing.T) {
	m := Model{Cost: &Cost{Input: 1.25, Output: 10, CacheRead: 0.125}}
	usd, ok := m.Price(Tokens{Input: 1_000_000, Cached: 600_000, Output: 100_000})
	if want := 0.4*1.25 + 0.6*0.125 + 0.1*10; !ok || math.Abs(usd-want) > 1e-9 {
		t.Errorf("price = %v, %v; want %v", usd, ok, want)
	}
	a := Model{Cost: &Cost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	usd, _ = a.Price(Tokens{Input: 3000, Cached: 1000, CacheWrite: 1000, Output: 1000})
	if want := (1000*3 + 1000*0.3 + 1000*3.75 + 1000*15) / 1e6; math.Abs(usd-want) > 1e-12 {
		t.Errorf("anthropic price = %v; want %v", usd, want)
	}
	if _, ok := (Model{}).Price(Tokens{Input: 5}); ok {
		t.Error("a model without a cost was priced")
	}
}

// TestParse: models.dev's api.json and Codex's model_catalog_json both
// read; merging lays a file's figures over the snapshot's; bad figures
// are named.
func TestParse(t *testing.T) {
	dev := `{"acme": {"id": "acme", "models": {"acme-1": {"id": "acme-1", "name": "Acme 1",
		"limit": {"context": 64000, "output": 8000}, "modalities": {"input": ["text"], "output": ["text"]},
		"cost": {"input": 0.5, "output": 1.5}}}}}`
	c, err := Parse([]byte(dev))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := c.Lookup("acme-1"); !ok || m.Provider != "acme" || m.Limit.Context != 64000 || m.Cost.Output != 1.5 {
		t.Errorf("models.dev model = %+v, %v", m, ok)
	}
	codex := `{"models": [{"slug": "gpt-5.5", "context_window": 100000, "supported_reasoning_levels": [{"effort": "low"}], "default_reasoning_level": "low"}]}`
	cc, err := Parse([]byte(codex))
	if err != nil {
		t.Fatal(err)
	}
	merged := Builtin().Merge(cc)
	if m, _ := merged.Lookup("gpt-5.5"); m.Limit.Context != 100000 || m.DefaultEffort != "low" || m.Name == "" {
		t.Errorf("merged gpt-5.5 = %+v; want the file's window and effort over the snapshot's, its name kept", m)
	}
	for _, bad := range []string{`[1]`, `{"acme": {"models": {"x": {"limit": {"context": -1}}}}}`, `{"models": [{"context_window": 5}]}`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) = nil error", bad)
		} else if strings.TrimSpace(err.Error()) == "" {
			t.Errorf("Parse(%s): empty error", bad)
		}
	}
}

// TestUndated strips a snapshot's date suffix in either form and nothing else.
func TestUndated(t *testing.T) {
	for in, want := range map[string]string{
		"claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
		"gpt-4o-2024-08-06":          "gpt-4o",
		"gpt-5":                      "gpt-5",
		"model-2024-8-06":            "model-2024-8-06",
		"model-2025092":              "model-2025092",
		"model-2025092x":             "model-2025092x",
		"model-20250929-2024-08-06":  "model-20250929",
	} {
		if got := undated(in); got != want {
			t.Errorf("undated(%q) = %q, want %q", in, got, want)
		}
	}
}
