package config

import "strings"

// AutoCompactTokens is where automatic compaction starts: min(model_auto_compact_token_limit, 90% of the
// context window), from whichever of the two is known: the window is
// model_context_window, else the model's own (knownContextWindow).
func (cfg Config) AutoCompactTokens() int64 {
	limit := cfg.ModelAutoCompactTokenLimit
	window := cfg.ModelContextWindow
	if window == 0 {
		window = knownContextWindow(cfg.Model)
	}
	if w := window * 9 / 10; w > 0 && (limit <= 0 || w < limit) {
		limit = w
	}
	return limit
}

// knownContextWindow is the context window of an OpenAI model, by name
// prefix (codex-rs's model families), 0 when unknown (then only a full
// window, reported by the server, compacts): the default of automatic
// compaction when model_context_window is unset.
func knownContextWindow(model string) int64 {
	for _, w := range []struct {
		prefix string
		tokens int64
	}{
		{"gpt-4.1", 1_047_576},
		{"gpt-4o", 128_000},
		{"gpt-5", 272_000},
		{"codex-", 272_000},
		{"o3", 200_000},
		{"o4-mini", 200_000},
	} {
		if strings.HasPrefix(model, w.prefix) {
			return w.tokens
		}
	}
	return 0
}
