package app

import (
	"context"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/internal/setup"
)

// Logout is the chat's /logout: it removes the saved login as `agent
// logout` does and says so in line. When the app's credentials came from
// that login, hint says how to get credentials again (`agent login`, or
// the variable to export) and no session of the app should send a request
// any more: it still holds the login in memory. Credentials from the
// environment or an auth command are not the login's: hint is "" and the
// line says they stay in use.
func (a *App) Logout(ctx context.Context) (line, hint string, err error) {
	store, err := setup.OpenStore(a.env, a.cfg, a.home, nil)
	if err != nil {
		return "", "", err
	}
	if line, err = store.Logout(ctx); err != nil {
		return "", "", err
	}
	if _, stored := a.clientOpts.Auth.(*auth.Manager); !stored {
		if src := a.clientOpts.CredentialSource; src != "" {
			line += "; this chat's credentials come from " + src + ", which /logout does not touch"
		}
		return line, "", nil
	}
	hint = "run `agent login`"
	if k := a.clientOpts.Provider.EnvKey; k != "" {
		hint += ", or export " + k
	} else {
		hint += ", or export " + setup.APIKeyVar(a.env.Getenv)
	}
	return line, hint, nil
}
