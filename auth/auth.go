// Package auth supplies the credentials of model requests: API keys
// ([APIKey]), a provider's token command ([Command]) and the login saved in
// $AGENT_HOME/auth.json ([Manager], over a [Store]), including ChatGPT
// tokens that it refreshes. [Resolve] picks one for a provider; the login
// flows ([LoginBrowser], [LoginDevice]) write auth.json.
//
// Invariants: a secret is never part of an error, a log line or a String
// form; auth.json is written atomically with mode 0600; refreshing a
// ChatGPT token is single-flight within a process and, through a file
// lock, across processes.
package auth

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// APIKey is a static bearer token. Its String form is masked, so it is safe
// to print by accident.
type APIKey struct{ key string }

// NewAPIKey wraps key.
func NewAPIKey(key string) *APIKey { return &APIKey{key: key} }

// Token returns the key.
func (k *APIKey) Token(context.Context) (string, error) { return k.key, nil }

// Apply sets the Authorization header on h.
func (k *APIKey) Apply(_ context.Context, h http.Header) error {
	if k.key != "" {
		h.Set("Authorization", "Bearer "+k.key)
	}
	return nil
}

// String returns a masked form such as "sk-…abcd".
func (k *APIKey) String() string { return Mask(k.key) }

// Mask hides all but a recognisable prefix and the last four characters of
// a secret.
func Mask(secret string) string {
	if len(secret) < 12 {
		return "****"
	}
	prefix := ""
	if i := strings.IndexByte(secret[:min(len(secret), 8)], '-'); i >= 0 {
		prefix = secret[:i+1]
	}
	return prefix + "…" + secret[len(secret)-4:]
}

// MissingEnvKeyError says the provider's API key variable is unset.
type MissingEnvKeyError struct {
	Provider     string
	Var          string
	Instructions string
}

func (e *MissingEnvKeyError) Error() string {
	msg := fmt.Sprintf("provider %q needs an API key: environment variable %s is not set", e.Provider, e.Var)
	if e.Instructions != "" {
		msg += " (" + e.Instructions + ")"
	}
	return msg
}
