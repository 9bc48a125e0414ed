package app

import (
	"fmt"
	"net/http"

	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/session/failover"
)

// buildFallbacks resolves the client options of each
// [config.Config].Fallback entry, sharing the app's HTTP pool and logger;
// each session makes its clients of them ([App.Open]). An entry whose
// credentials cannot be had is reported now, as a notice, and left out:
// it is not discovered in the middle of a turn.
func (a *App) buildFallbacks(hc *http.Client, notice func(string)) {
	cfg := a.cfg
	for _, fb := range cfg.Fallback {
		p, ok := cfg.Providers[fb.Provider]
		if !ok { // checked at load; kept for safety
			continue
		}
		if p.Demo {
			a.notices = append(a.notices, fmt.Sprintf("fallback %s/%s: the demo provider cannot be a fallback; skipped", fb.Provider, fb.Model))
			continue
		}
		creds, src, err := a.credentials(&p, hc, notice)
		if err != nil {
			a.notices = append(a.notices, fmt.Sprintf("fallback %s/%s: no credentials (%v); it will be skipped", fb.Provider, fb.Model, err))
			continue
		}
		p.BaseURL = p.APIRoot()
		opts := a.clientOpts
		opts.Provider, opts.Auth, opts.CredentialSource = p, creds, src
		opts.Gate = setup.OpenGate(a.env, a.home, p.ID, max(cfg.MaxConcurrentResends, 1), a.logger)
		a.fallbackClients = append(a.fallbackClients, opts)
		a.fallbacks = append(a.fallbacks, failover.Candidate{Provider: p.ID, Model: fb.Model})
	}
	a.health = failover.NewHealth(a.home, a.env.Now)
}
