package config

import (
	"testing"

	"github.com/agentcli/agent/provider/catalog"
)

// TestAutoCompactTokens: automatic compaction starts at 90% of the
// context window, the model's own when model_context_window is unset, or
// at model_auto_compact_token_limit when lower; an unknown model without
// either compacts only when the server says the window is full.
func TestAutoCompactTokens(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want int64
	}{
		{Config{Catalog: catalog.Builtin(), Model: "gpt-5.1-codex"}, 244_800},
		{Config{Catalog: catalog.Builtin(), Model: "gpt-5.1-codex", ModelContextWindow: 100_000}, 90_000},
		{Config{Catalog: catalog.Builtin(), Model: "gpt-5.1-codex", ModelAutoCompactTokenLimit: 50_000}, 50_000},
		{Config{Catalog: catalog.Builtin(), Model: "llama3"}, 0},
		{Config{Catalog: catalog.Builtin(), Model: "llama3", ModelAutoCompactTokenLimit: 7000}, 7000},
	} {
		if got := tt.cfg.AutoCompactTokens(); got != tt.want {
			t.Errorf("%s (window %d, limit %d): compacts at %d; want %d", tt.cfg.Model, tt.cfg.ModelContextWindow, tt.cfg.ModelAutoCompactTokenLimit, got, tt.want)
		}
	}
}
