package config

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentcli/agent/provider/catalog"
)

// modelFile is [models."NAME"]: a model's figures in models.dev's shape
// (as opencode's config has them), laid over the catalogue's.
type modelFile struct {
	Name             *string         `toml:"name"`
	Limit            *modelLimitFile `toml:"limit"`
	Cost             *modelCostFile  `toml:"cost"`
	Modalities       *modalitiesFile `toml:"modalities"`
	ReasoningEfforts *[]string       `toml:"reasoning_efforts"`
}

// modelLimitFile is limit = { context, output } (tokens).
type modelLimitFile struct {
	Context *int64 `toml:"context"`
	Output  *int64 `toml:"output"`
}

// modelCostFile is cost = { input, output, cache_read, cache_write }, USD
// per million tokens.
type modelCostFile struct {
	Input      *float64 `toml:"input"`
	Output     *float64 `toml:"output"`
	CacheRead  *float64 `toml:"cache_read"`
	CacheWrite *float64 `toml:"cache_write"`
}

// modalitiesFile is modalities = { input = [...], output = [...] }.
type modalitiesFile struct {
	Input  *[]string `toml:"input"`
	Output *[]string `toml:"output"`
}

// price checks that *v is a finite price, at least 0.
func (c checker) price(path []string, v **float64) {
	check(c, path, v, func(f float64) bool { return f >= 0 && !math.IsInf(f, 0) && !math.IsNaN(f) },
		"invalid value %v (a price in USD, at least 0)")
}

// models checks the [models] tables and max_cost_usd of one layer.
func (c checker) models(f *fileConfig) {
	c.price([]string{"max_cost_usd"}, &f.MaxCostUSD)
	c.nonEmpty([]string{"model_catalog_json"}, &f.ModelCatalogJSON)
	for _, name := range sortedKeys(f.Models) {
		m := f.Models[name]
		path := []string{"models", name}
		if l := m.Limit; l != nil {
			c.nonNegative(at(path, "limit", "context"), &l.Context)
			c.nonNegative(at(path, "limit", "output"), &l.Output)
		}
		if k := m.Cost; k != nil {
			c.price(at(path, "cost", "input"), &k.Input)
			c.price(at(path, "cost", "output"), &k.Output)
			c.price(at(path, "cost", "cache_read"), &k.CacheRead)
			c.price(at(path, "cost", "cache_write"), &k.CacheWrite)
			if k.Input == nil || k.Output == nil {
				c.probs.add(c.src, at(path, "cost"), "a cost needs input and output prices (USD per million tokens)")
				m.Cost = nil
			}
		}
		f.Models[name] = m
	}
}

// model is the catalogue entry m declares.
func (m modelFile) model(name string) catalog.Model {
	out := catalog.Model{ID: name}
	set(&out.Name, m.Name)
	if l := m.Limit; l != nil {
		set(&out.Limit.Context, l.Context)
		set(&out.Limit.Output, l.Output)
	}
	if k := m.Cost; k != nil {
		out.Cost = &catalog.Cost{Input: *k.Input, Output: *k.Output}
		set(&out.Cost.CacheRead, k.CacheRead)
		set(&out.Cost.CacheWrite, k.CacheWrite)
	}
	if md := m.Modalities; md != nil {
		set(&out.Modalities.Input, md.Input)
		set(&out.Modalities.Output, md.Output)
	}
	set(&out.Efforts, m.ReasoningEfforts)
	return out
}

// resolveModels builds the catalogue: the built-in snapshot (the one
// [Default] parsed, else parsed here), the file of model_catalog_json (the
// last layer's that sets it; relative to its config file's directory),
// then each layer's [models] tables.
func (c *Config) resolveModels(layers []layer, probs *problems) {
	if c.Catalog == nil {
		c.Catalog = catalog.Builtin()
	}
	var file string
	var from location
	for _, l := range layers {
		if p := l.f.ModelCatalogJSON; p != nil {
			file, from = *p, location{l.src, []string{"model_catalog_json"}}
		}
	}
	if file != "" {
		if !filepath.IsAbs(file) && from.src.path != "" {
			file = filepath.Join(filepath.Dir(from.src.path), file)
		}
		b, err := os.ReadFile(file)
		var cat *catalog.Catalog
		if err == nil {
			cat, err = catalog.Parse(b)
			if err != nil {
				err = fmt.Errorf("%s: %w", file, err)
			}
		}
		if err != nil {
			probs.add(from.src, from.path, "model catalogue: %v", err)
		} else {
			c.Catalog.Merge(cat)
		}
	}
	for _, l := range layers {
		for _, name := range sortedKeys(l.f.Models) {
			c.Catalog.Set(name, l.f.Models[name].model(name))
		}
	}
}

// ContextWindow is the context window of model: model_context_window when
// set, else the catalogue's ([catalog.Catalog.Window]); 0 when unknown.
func (c Config) ContextWindow(model string) int64 {
	if c.ModelContextWindow > 0 {
		return c.ModelContextWindow
	}
	return c.Catalog.Window(model)
}

// Efforts are the reasoning efforts model takes, in order: the
// catalogue's, else low, medium and high for OpenAI's reasoning families
// (gpt-5*, o3*, o4*); nil when it takes none (the /model picker and the
// ACP model options offer these).
func (c Config) Efforts(model string) []string {
	if m, ok := c.Catalog.Lookup(model); ok && len(m.Efforts) > 0 {
		return m.Efforts
	}
	if strings.HasPrefix(model, "gpt-5") || strings.HasPrefix(model, "o3") || strings.HasPrefix(model, "o4") {
		return []string{"low", "medium", "high"}
	}
	return nil
}
