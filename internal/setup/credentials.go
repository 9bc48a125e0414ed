package setup

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
)

// ResolveCredentials picks the credentials of provider p and names where
// they come from, for errors (see [auth.Resolve], the one place the order
// is decided); nil means unauthenticated. With a ChatGPT login, the
// built-in openai provider is pointed at the ChatGPT backend unless its
// base URL was changed. notice tells the user what the credentials'
// manager has to say while the agent runs (refreshed tokens that could not
// be saved); nil prints it on stderr.
//
// The API key variable is AGENT_API_KEY or, when only it is set,
// CODEX_API_KEY, the variable the Codex SDK's apiKey option sets.
func ResolveCredentials(env Env, cfg config.Config, p *provider.Info, home string, hc *http.Client, logger *slog.Logger,
	notice func(msg string)) (modelclient.Credentials, string, error) {
	if notice == nil {
		notice = func(msg string) { fmt.Fprintln(env.Stderr, "agent: warning: "+msg) }
	}
	var command *auth.CommandOptions
	if a, ok := cfg.AuthCommands[p.ID]; ok {
		command = &auth.CommandOptions{
			Command: a.Command, Args: a.Args, Timeout: a.Timeout, RefreshInterval: a.RefreshInterval, Dir: a.Cwd,
		}
	}
	r, err := auth.Resolve(auth.ResolveOptions{
		Provider:  *p,
		Command:   command,
		Getenv:    env.Getenv,
		APIKeyVar: APIKeyVar(env.Getenv),
		Manager: auth.ManagerOptions{
			// A keyring that cannot be reached fails here only if the
			// stored credentials are needed (the store's Load says why).
			Store:      storeOf(OpenStore(env, cfg, home, &auth.StoreOptions{Logger: logger})),
			Endpoints:  AuthEndpoints(env, cfg),
			HTTPClient: hc,
			Notice:     notice,
		},
	})
	switch {
	case err != nil:
		return nil, "", err
	case r.APIKey != nil:
		return r.APIKey, r.Source, nil
	case r.Command != nil:
		return r.Command, r.Source, nil
	case r.Manager != nil:
		if r.Manager.Mode() == auth.ModeChatGPT && p.ID == config.DefaultModelProvider &&
			p.BaseURL == provider.Builtins()[config.DefaultModelProvider].BaseURL {
			p.BaseURL = chatGPTBaseURL(cfg.ChatGPTBaseURL)
		}
		return r.Manager, r.Source, nil
	}
	return nil, "", nil
}

// chatGPTBaseURL returns the Responses root of ChatGPT mode: configured
// chatgpt_base_url, with /codex added to a bare .../backend-api as Codex
// configs have it, or the default.
func chatGPTBaseURL(configured string) string {
	u := strings.TrimRight(configured, "/")
	switch {
	case u == "":
		return auth.DefaultChatGPTBaseURL
	case strings.HasSuffix(u, "/backend-api"):
		return u + "/codex"
	}
	return u
}

// APIKeyVar is the environment variable whose API key wins over auth.json:
// AGENT_API_KEY, else CODEX_API_KEY when set (as the reference client's
// exec and its SDK use it).
func APIKeyVar(getenv func(string) string) string {
	if getenv("AGENT_API_KEY") == "" && getenv("CODEX_API_KEY") != "" {
		return "CODEX_API_KEY"
	}
	return "AGENT_API_KEY"
}

// AuthEndpoints returns where logins and refreshes go: the environment
// (AGENT_AUTH_ISSUER, AGENT_REFRESH_TOKEN_URL) over config over defaults.
func AuthEndpoints(env Env, cfg config.Config) auth.Endpoints {
	ep := auth.Endpoints{Issuer: cfg.AuthIssuer, TokenURL: cfg.AuthTokenURL, ClientID: cfg.AuthClientID}
	if v := strings.TrimSpace(env.Getenv("AGENT_AUTH_ISSUER")); v != "" {
		ep.Issuer = v
	}
	if v := strings.TrimSpace(env.Getenv("AGENT_REFRESH_TOKEN_URL")); v != "" {
		ep.TokenURL = v
	}
	return ep.WithDefaults()
}

// OpenStore opens the credential store cli_auth_credentials_store names,
// printing the notice of "auto" falling back to the file. With "keyring"
// and no keyring reachable it returns the store and the error (see
// [auth.OpenStore]).
func OpenStore(env Env, cfg config.Config, home string, opts *auth.StoreOptions) (*auth.Store, error) {
	if opts == nil {
		opts = &auth.StoreOptions{}
	}
	if opts.Notice == nil {
		opts.Notice = stderrNotice(env.Stderr)
	}
	if opts.Keyring == nil {
		opts.Keyring = env.Keyring
	}
	s, notice, err := auth.OpenStore(home, cfg.CLIAuthCredentialsStore, opts)
	if notice != "" {
		fmt.Fprintln(env.Stderr, "agent: "+notice)
	}
	return s, err
}

// storeOf returns s, dropping the error [OpenStore] also reports through the
// store itself.
func storeOf(s *auth.Store, _ error) *auth.Store { return s }
