package app

import (
	"context"
	"fmt"

	"github.com/agentcli/agent/auth"
)

// LoggedOutError is what a turn of the chat returns after /logout removed
// the login its credentials came from: no request is sent, and it says
// how to log in again.
type LoggedOutError struct {
	// Hint is how to get credentials: `agent login`, or the variable to
	// export.
	Hint string
	// ID is the session to resume once logged in.
	ID string
}

func (e *LoggedOutError) Error() string {
	return fmt.Sprintf("not logged in (/logout removed the login): %s in a shell, then `agent resume %s` continues this session", e.Hint, e.ID)
}

// Logout is /logout: it removes the saved login as `agent logout` does and
// says so. When the chat's credentials came from that login, every later
// turn fails with a [*LoggedOutError] instead of sending the login it
// still holds in memory; credentials from the environment or an auth
// command are not the login's, and the line says they stay in use.
func (c *Chat) Logout(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.a
	store, err := OpenStore(a.env, a.cfg, a.home, nil)
	if err != nil {
		return "", err
	}
	line, err := store.Logout(ctx)
	if err != nil {
		return "", err
	}
	if _, stored := a.clientOpts.Auth.(*auth.Manager); !stored {
		if src := a.clientOpts.CredentialSource; src != "" {
			line += "; this chat's credentials come from " + src + ", which /logout does not touch"
		}
		return line, nil
	}
	c.loggedOut = true
	return line + "; " + c.loggedOutError().Hint + " to send another message", nil
}

// loggedOutError is the error of a turn after /logout; c.mu is held.
func (c *Chat) loggedOutError() *LoggedOutError {
	hint := "run `agent login`"
	if k := c.a.clientOpts.Provider.EnvKey; k != "" {
		hint += ", or export " + k
	} else {
		hint += ", or export " + apiKeyVar(c.a.env.Getenv)
	}
	return &LoggedOutError{Hint: hint, ID: c.cur.ID}
}
