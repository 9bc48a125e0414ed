package config

// AutoCompactTokens is where automatic compaction starts for the
// configured model ([Config.AutoCompactTokensFor] of Model).
func (cfg Config) AutoCompactTokens() int64 { return cfg.AutoCompactTokensFor(cfg.Model) }

// AutoCompactTokensFor is where automatic compaction starts for model:
// min(model_auto_compact_token_limit, 90% of the context window), from
// whichever of the two is known: the window is model_context_window, else
// the model's own ([Config.ContextWindow]).
func (cfg Config) AutoCompactTokensFor(model string) int64 {
	limit := cfg.ModelAutoCompactTokenLimit
	window := cfg.ContextWindow(model)
	if w := window * 9 / 10; w > 0 && (limit <= 0 || w < limit) {
		limit = w
	}
	return limit
}
