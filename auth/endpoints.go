package auth

import "strings"

// Defaults of the ChatGPT login, as in the reference client.
const (
	// DefaultIssuer is the OAuth issuer of ChatGPT logins.
	DefaultIssuer = "https://auth.openai.com"
	// DefaultClientID is the public OAuth client id of the Codex CLI. It is
	// a documented default only; config's auth_client_id replaces it.
	DefaultClientID = "app_EMoamEEZ73f0CkXaXp7hrann"
	// DefaultChatGPTBaseURL is where model requests go in ChatGPT mode.
	DefaultChatGPTBaseURL = "https://chatgpt.com/backend-api/codex"
	// DefaultCallbackAddr is where the browser login listens first.
	DefaultCallbackAddr = "127.0.0.1:1455"
)

// Endpoints say where logins and refreshes go. The zero value means the
// defaults.
type Endpoints struct {
	// Issuer is the OAuth issuer; default [DefaultIssuer].
	Issuer string
	// TokenURL is the token endpoint; default Issuer + "/oauth/token".
	TokenURL string
	// ClientID is the OAuth client id; default [DefaultClientID].
	ClientID string
}

// WithDefaults returns e with its empty fields filled in.
func (e Endpoints) WithDefaults() Endpoints {
	e.Issuer = strings.TrimRight(e.Issuer, "/")
	if e.Issuer == "" {
		e.Issuer = DefaultIssuer
	}
	if e.TokenURL == "" {
		e.TokenURL = e.Issuer + "/oauth/token"
	}
	if e.ClientID == "" {
		e.ClientID = DefaultClientID
	}
	return e
}
