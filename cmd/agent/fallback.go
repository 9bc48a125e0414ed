package main

import (
	"fmt"
	"net/http"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/failover"
)

// buildFallbacks makes a client for each [config.Config].Fallback entry,
// sharing the engine's HTTP pool, logger and session id. An entry whose
// credentials cannot be had is reported now, as a notice, and left out:
// it is not discovered in the middle of a turn.
func (e *engine) buildFallbacks(env Env, cfg config.Config, hc *http.Client, notice func(string)) {
	for _, fb := range cfg.Fallback {
		p, ok := cfg.Providers[fb.Provider]
		if !ok { // checked at load; kept for safety
			continue
		}
		if p.Demo {
			e.notices = append(e.notices, fmt.Sprintf("fallback %s/%s: the demo provider cannot be a fallback; skipped", fb.Provider, fb.Model))
			continue
		}
		creds, src, err := resolveCredentials(env, cfg, &p, e.home, hc, e.logger, notice)
		if err != nil {
			e.notices = append(e.notices, fmt.Sprintf("fallback %s/%s: no credentials (%v); it will be skipped", fb.Provider, fb.Model, err))
			continue
		}
		p.BaseURL = p.APIRoot()
		opts := e.clientOpts
		opts.Provider, opts.Model, opts.Auth, opts.CredentialSource = p, fb.Model, creds, src
		opts.Gate = openGate(env, e.home, p.ID, max(cfg.MaxConcurrentResends, 1), e.logger)
		c := modelclient.New(opts)
		e.closers = append(e.closers, func() { c.Close() })
		e.fallbackClients = append(e.fallbackClients, opts)
		e.fallbacks = append(e.fallbacks, session.Alternative{Candidate: failover.Candidate{Provider: p.ID, Model: fb.Model}, Client: c})
	}
	e.health = failover.NewHealth(e.home, env.Now)
}
