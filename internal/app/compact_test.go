package app

import (
	"testing"

	"github.com/agentcli/agent/config"
)

// TestKeepToolCalls: compact_keep_tool_calls reaches the session: unset is
// the session's default (5), 0 keeps none, N keeps N.
func TestKeepToolCalls(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, tt := range []struct {
		key  *int64
		want int
	}{{nil, 0}, {n(0), -1}, {n(12), 12}} {
		if got := keepToolCalls(config.Config{CompactKeepToolCalls: tt.key}); got != tt.want {
			t.Errorf("compact_keep_tool_calls %v: session keeps %d; want %d", tt.key, got, tt.want)
		}
	}
}

// TestAutoCompactTokens: automatic compaction starts at 90% of the
// context window, the model's own when model_context_window is unset, or
// at model_auto_compact_token_limit when lower; an unknown model without
// either compacts only when the server says the window is full.
func TestAutoCompactTokens(t *testing.T) {
	for _, tt := range []struct {
		cfg  config.Config
		want int64
	}{
		{config.Config{Model: "gpt-5.1-codex"}, 244_800},
		{config.Config{Model: "gpt-5.1-codex", ModelContextWindow: 100_000}, 90_000},
		{config.Config{Model: "gpt-5.1-codex", ModelAutoCompactTokenLimit: 50_000}, 50_000},
		{config.Config{Model: "llama3"}, 0},
		{config.Config{Model: "llama3", ModelAutoCompactTokenLimit: 7000}, 7000},
	} {
		if got := AutoCompactTokens(tt.cfg); got != tt.want {
			t.Errorf("%s (window %d, limit %d): compacts at %d; want %d", tt.cfg.Model, tt.cfg.ModelContextWindow, tt.cfg.ModelAutoCompactTokenLimit, got, tt.want)
		}
	}
}
