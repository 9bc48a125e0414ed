package app

import (
	"net/http"

	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
)

// credentials resolves the credentials of provider p for the app, and
// names their source.
func (a *App) credentials(p *provider.Info, hc *http.Client, notice func(string)) (modelclient.Credentials, string, error) {
	return setup.ResolveCredentials(a.env, a.cfg, p, a.home, hc, a.logger, notice)
}
