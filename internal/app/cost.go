package app

import (
	"fmt"

	"github.com/agentcli/agent/provider/catalog"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/transport"
)

// priceOf prices a response at the catalogue's price of the model that
// answered it; a model the catalogue has no price for is unknown.
func priceOf(c *catalog.Catalog) session.Pricer {
	return func(who failover.Candidate, u transport.Usage) (float64, bool) {
		m, ok := c.Lookup(who.Model)
		if !ok {
			return 0, false
		}
		return m.Price(catalog.Tokens{Input: u.InputTokens, Cached: u.CachedInputTokens,
			CacheWrite: u.CacheWriteInputTokens, Output: u.OutputTokens})
	}
}

// outputLimit is the catalogue's output limit of a model (limit.output;
// 0 when unknown), which the Anthropic wire sends as max_tokens.
func outputLimit(c *catalog.Catalog) func(model string) int64 {
	return func(model string) int64 {
		m, _ := c.Lookup(model)
		return m.Limit.Output
	}
}

// checkBudget refuses a cost budget that cannot be kept: with
// --max-cost (or max_cost_usd), the model and every fallback's model need
// a price.
func (a *App) checkBudget() error {
	if a.opts.MaxCostUSD <= 0 {
		return nil
	}
	models := []string{a.sampling.Model}
	for _, f := range a.fallbacks {
		models = append(models, f.Model)
	}
	for _, name := range models {
		if m, ok := a.cfg.Catalog.Lookup(name); !ok || m.Cost == nil {
			return usageError(fmt.Errorf("--max-cost $%.2f: no price is known for model %q, so the budget cannot be kept; add [models.%q] cost = { input = ..., output = ... } (USD per million tokens) to config.toml", a.opts.MaxCostUSD, name, name))
		}
	}
	return nil
}
