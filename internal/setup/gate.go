package setup

import (
	"cmp"
	"log/slog"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/retry/gate"
)

// OpenGate opens the retry gate every agent process sharing home uses for
// provider id: one cooldown (a 429 or overload delay one process is given
// holds back all) and at most n re-sends in flight, machine-wide. Where the
// directory cannot be used, the gate is this process's alone (logged).
func OpenGate(env Env, home, id string, n int, log *slog.Logger) *gate.Gate {
	if env.Sleep != nil && env.Now == nil {
		return gate.New(n) // an injected sleep without its clock: stay in-process
	}
	g, err := gate.Open(gate.Options{MaxResends: n, Dir: gate.DirFor(home, id), Now: env.Now, Sleep: env.Sleep})
	if err != nil {
		log.Warn("retry gate not shared with other processes", "err", err)
		return gate.New(n)
	}
	return g
}

// CAFile is the PEM file of extra roots model connections trust:
// ca_certificate from config, else CODEX_CA_CERTIFICATE as the reference
// client reads it (SSL_CERT_FILE, which replaces the system's roots, the
// Go runtime reads itself).
func CAFile(cfg config.Config, getenv func(string) string) string {
	return cmp.Or(cfg.CACertificate, getenv("CODEX_CA_CERTIFICATE"))
}
