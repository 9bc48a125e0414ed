// Package catalog is agent's model catalogue: per model its context and
// output limits, modalities, reasoning efforts and price, in models.dev's
// shape (the shape opencode's config uses). A snapshot of OpenAI's and
// Anthropic's models is built in ([Builtin]); a catalogue file (models.dev's
// api.json, or Codex's model_catalog_json) and config's [models."NAME"]
// tables extend and override it ([Catalog.Merge]). Nothing here fetches
// anything from the network.
//
// Prices are USD per million tokens and are never guessed: a model without
// a cost has no price ([Model.Price] says so), and a name matches a
// model's price only exactly (a provider prefix such as "openai/" and a
// date suffix such as "-2025-08-07" aside). The context window alone also
// matches by family ([Catalog.Window]), as automatic compaction has always
// done.
package catalog

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
)

// Model is one model of the catalogue.
type Model struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// Provider is the catalogue provider it is listed under ("openai",
	// "anthropic"), "" for one from config.
	Provider   string     `json:"-"`
	Limit      Limit      `json:"limit"`
	Modalities Modalities `json:"modalities"`
	// Cost is the price; nil when unknown.
	Cost *Cost `json:"cost,omitempty"`
	// Efforts are the reasoning efforts the model takes, in order
	// (agent's addition to models.dev's shape, from Codex's catalogue);
	// DefaultEffort the one it uses unless told.
	Efforts       []string `json:"reasoning_efforts,omitempty"`
	DefaultEffort string   `json:"default_reasoning_effort,omitempty"`
	// Priority orders a provider's models in lists, lowest first (Codex's
	// order for its models); 0 is unordered, after the ordered ones.
	Priority int `json:"priority,omitempty"`
}

// Limit is a model's window: Context tokens in, Output tokens out; 0 is
// unknown.
type Limit struct {
	Context int64 `json:"context"`
	Output  int64 `json:"output,omitempty"`
}

// Modalities are what a model reads and writes ("text", "image", "pdf").
type Modalities struct {
	Input  []string `json:"input,omitempty"`
	Output []string `json:"output,omitempty"`
}

// Cost is a price in USD per million tokens. Input is the uncached input;
// CacheRead input read from the provider's cache, CacheWrite input written
// to it (Anthropic's cache_creation); where a cache price is 0 the input
// price applies.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Tokens are a response's token counts as the price needs them. Input
// counts every input token, the cached ones and those written to the
// cache included (OpenAI's input_tokens; the Anthropic wire adds its
// cache reads and writes to it); Output counts every output token,
// reasoning included.
type Tokens struct {
	Input, Cached, CacheWrite, Output int64
}

// Price is what t cost at m's price, in USD; ok is false when m has no
// cost.
func (m Model) Price(t Tokens) (usd float64, ok bool) {
	c := m.Cost
	if c == nil {
		return 0, false
	}
	read, write := c.CacheRead, c.CacheWrite
	if read == 0 {
		read = c.Input
	}
	if write == 0 {
		write = c.Input
	}
	uncached := max(t.Input-t.Cached-t.CacheWrite, 0)
	usd = float64(uncached)*c.Input + float64(t.Cached)*read + float64(t.CacheWrite)*write + float64(t.Output)*c.Output
	return usd / 1e6, true
}

// Catalog is a set of models by id. The zero value is empty; a nil
// *Catalog finds nothing.
type Catalog struct {
	models map[string]Model
}

//go:embed builtin.json
var builtinJSON []byte

// Builtin is the snapshot built into agent: OpenAI's models as Codex
// 0.171 lists them (context windows, efforts, modalities), the earlier
// presets agent's /model offered (gpt-5.4, gpt-5.4-mini, gpt-5.3-codex)
// and older models with the list prices of those whose price was
// published, and Anthropic's current models. It is a new catalogue on each call.
func Builtin() *Catalog {
	c, err := Parse(builtinJSON)
	if err != nil {
		panic("catalog: the built-in snapshot does not parse: " + err.Error())
	}
	return c
}

// Parse reads a catalogue file: models.dev's api.json ({"PROVIDER":
// {"models": {"ID": {...}}}}), or Codex's model_catalog_json ({"models":
// [{"slug", "context_window", "supported_reasoning_levels", ...}]}).
func Parse(data []byte) (*Catalog, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if raw, ok := probe["models"]; ok && len(raw) > 0 && raw[0] == '[' {
		return parseCodex(raw)
	}
	c := &Catalog{models: map[string]Model{}}
	for _, pid := range slices.Sorted(maps.Keys(probe)) {
		var p struct {
			Models map[string]Model `json:"models"`
		}
		if err := json.Unmarshal(probe[pid], &p); err != nil {
			return nil, fmt.Errorf("provider %q: %w", pid, err)
		}
		for id, m := range p.Models {
			if m.ID == "" {
				m.ID = id
			}
			if err := m.check(); err != nil {
				return nil, fmt.Errorf("provider %q, model %q: %w", pid, id, err)
			}
			m.Provider = pid
			c.models[id] = m
		}
	}
	return c, nil
}

// parseCodex reads Codex's catalogue: its models have no price.
func parseCodex(raw json.RawMessage) (*Catalog, error) {
	var list []struct {
		Slug          string   `json:"slug"`
		DisplayName   string   `json:"display_name"`
		ContextWindow int64    `json:"context_window"`
		Input         []string `json:"input_modalities"`
		Default       string   `json:"default_reasoning_level"`
		Levels        []struct {
			Effort string `json:"effort"`
		} `json:"supported_reasoning_levels"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	c := &Catalog{models: map[string]Model{}}
	for i, e := range list {
		if e.Slug == "" {
			return nil, fmt.Errorf("models[%d]: no slug", i)
		}
		m := Model{ID: e.Slug, Name: e.DisplayName, Provider: "openai", Limit: Limit{Context: e.ContextWindow},
			Modalities: Modalities{Input: e.Input, Output: []string{"text"}}, DefaultEffort: e.Default}
		for _, l := range e.Levels {
			m.Efforts = append(m.Efforts, l.Effort)
		}
		if err := m.check(); err != nil {
			return nil, fmt.Errorf("models[%d] (%s): %w", i, e.Slug, err)
		}
		c.models[e.Slug] = m
	}
	return c, nil
}

// check refuses what cannot be a model's figures.
func (m Model) check() error {
	if m.Limit.Context < 0 || m.Limit.Output < 0 {
		return fmt.Errorf("negative limit")
	}
	if c := m.Cost; c != nil && (c.Input < 0 || c.Output < 0 || c.CacheRead < 0 || c.CacheWrite < 0) {
		return fmt.Errorf("negative cost")
	}
	return nil
}

// Merge lays o over c: a model of o replaces c's, field by field where o
// says something (a limit, modalities, efforts, a cost); c is changed and
// returned.
func (c *Catalog) Merge(o *Catalog) *Catalog {
	if c.models == nil {
		c.models = map[string]Model{}
	}
	if o == nil {
		return c
	}
	for id, m := range o.models {
		c.Set(id, m)
	}
	return c
}

// Set lays m over the model id (added when new), field by field where m
// says something.
func (c *Catalog) Set(id string, m Model) {
	if c.models == nil {
		c.models = map[string]Model{}
	}
	old, ok := c.models[id]
	if !ok {
		m.ID = id
		c.models[id] = m
		return
	}
	if m.Name != "" {
		old.Name = m.Name
	}
	if m.Limit.Context > 0 {
		old.Limit.Context = m.Limit.Context
	}
	if m.Limit.Output > 0 {
		old.Limit.Output = m.Limit.Output
	}
	if len(m.Modalities.Input) > 0 {
		old.Modalities.Input = m.Modalities.Input
	}
	if len(m.Modalities.Output) > 0 {
		old.Modalities.Output = m.Modalities.Output
	}
	if m.Cost != nil {
		old.Cost = m.Cost
	}
	if len(m.Efforts) > 0 {
		old.Efforts, old.DefaultEffort = m.Efforts, m.DefaultEffort
	}
	c.models[id] = old
}

// undated is name without the date suffix of a model snapshot's name
// ("-2025-09-29" or "-20250929"), else name itself.
func undated(name string) string {
	digits := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	n := len(name)
	if n >= 11 && name[n-11] == '-' && digits(name[n-10:n-6]) && name[n-6] == '-' && digits(name[n-5:n-3]) && name[n-3] == '-' && digits(name[n-2:]) {
		return name[:n-11]
	}
	if n >= 9 && name[n-9] == '-' && digits(name[n-8:]) {
		return name[:n-9]
	}
	return name
}

// Lookup finds the model name: exactly, else without a provider prefix
// ("openai/gpt-5.1"), else without a date suffix ("claude-sonnet-4-5-20250929").
func (c *Catalog) Lookup(name string) (Model, bool) {
	if c == nil {
		return Model{}, false
	}
	if m, ok := c.models[name]; ok {
		return m, true
	}
	if i := strings.LastIndex(name, "/"); i >= 0 {
		return c.Lookup(name[i+1:])
	}
	if base := undated(name); base != name {
		if m, ok := c.models[base]; ok {
			return m, true
		}
	}
	return Model{}, false
}

// Window is the context window of model name: its own ([Catalog.Lookup]),
// else that of its family: the longest catalogue id it begins with,
// followed by "-" or "." (a "gpt-5.3-codex" has gpt-5's window); 0 when
// unknown.
func (c *Catalog) Window(name string) int64 {
	if m, ok := c.Lookup(name); ok {
		return m.Limit.Context
	}
	if c == nil {
		return 0
	}
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	best, window := 0, int64(0)
	for id, m := range c.models {
		family := strings.HasPrefix(name, id+"-") || strings.HasPrefix(name, id+".")
		if len(id) > best && family && m.Limit.Context > 0 {
			best, window = len(id), m.Limit.Context
		}
	}
	return window
}

// Models are the models of config (no provider) and those the catalogue
// lists under provider, in that order, each by priority then id.
func (c *Catalog) Models(provider string) []Model {
	if c == nil {
		return nil
	}
	var out []Model
	for _, id := range slices.Sorted(maps.Keys(c.models)) {
		if m := c.models[id]; m.Provider == "" || m.Provider == provider {
			out = append(out, m)
		}
	}
	rank := func(m Model) (int, int) {
		p := m.Priority
		if p == 0 {
			p = math.MaxInt
		}
		if m.Provider == "" {
			return 0, p
		}
		return 1, p
	}
	slices.SortStableFunc(out, func(a, b Model) int {
		ga, pa := rank(a)
		gb, pb := rank(b)
		return cmp.Or(cmp.Compare(ga, gb), cmp.Compare(pa, pb))
	})
	return out
}

// Equal reports whether c and o hold the same models (go-cmp uses it).
func (c *Catalog) Equal(o *Catalog) bool {
	if c == nil || o == nil {
		return c == o
	}
	return reflect.DeepEqual(c.models, o.models)
}
