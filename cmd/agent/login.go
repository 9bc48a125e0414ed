package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/headless/exitcode"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
)

func newLoginCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	var withAPIKey, deviceAuth bool
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Log in with ChatGPT or an API key; the login is saved in $AGENT_HOME/auth.json",
		Long: `Log in for the openai provider (and any provider with requires_openai_auth).

  agent login                 ChatGPT login in the browser (prints the URL to open)
  agent login --device-auth   ChatGPT login with a code, for machines without a browser
  printenv OPENAI_API_KEY | agent login --with-api-key
  agent login status          how you are logged in; exit 0 when logged in, 1 when not

The login is saved in $AGENT_HOME/auth.json (mode 0600). ChatGPT tokens are
refreshed automatically; when a refresh is refused, run agent login again.
The issuer and token endpoint can be changed with auth_issuer and
auth_token_url in config.toml, or AGENT_AUTH_ISSUER and
AGENT_REFRESH_TOKEN_URL.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLogin(ctx, env, g, withAPIKey, deviceAuth)
		},
	}
	cmd.Flags().BoolVar(&withAPIKey, "with-api-key", false, "read an API key from standard input and save it")
	cmd.Flags().BoolVar(&deviceAuth, "device-auth", false, "log in with a device code instead of a local browser")
	cmd.MarkFlagsMutuallyExclusive("with-api-key", "device-auth")
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Show how you are logged in (never the secret); exit 1 when not logged in",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLoginStatus(env, g)
		},
	})
	return cmd
}

func newLogoutCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "logout",
		Short: "Remove the saved login ($AGENT_HOME/auth.json or the keyring entry), even an unreadable one",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, store, err := loginStore(env, g)
			if err != nil {
				return err
			}
			// Under the lock, so that a refresh in flight elsewhere cannot
			// write the login back after it is removed.
			unlock, err := store.Lock(ctx)
			if err != nil {
				return &exitcode.Error{Code: exitcode.Failed, Err: err}
			}
			removed, err := store.Remove()
			unlock()
			if err != nil {
				return &exitcode.Error{Code: exitcode.Failed, Err: err}
			}
			if removed {
				fmt.Fprintf(env.Stderr, "Logged out: removed %s\n", store.Location())
			} else {
				fmt.Fprintln(env.Stderr, "Not logged in: nothing to remove")
			}
			return nil
		},
	}
}

func runLogin(ctx context.Context, env Env, g *globalFlags, withAPIKey, deviceAuth bool) error {
	cfg, store, err := loginStore(env, g)
	if err != nil {
		return err
	}
	if withAPIKey {
		return loginWithAPIKey(ctx, env, cfg, store)
	}
	if cfg.ForcedLoginMethod == "api" {
		return usageError(errors.New("forced_login_method = \"api\": log in with `agent login --with-api-key`"))
	}
	httpClient, err := modelclient.NewHTTPClient(cfg.CACertificate)
	if err != nil {
		return usageError(err)
	}
	opts := auth.LoginOptions{
		Store:             store,
		Endpoints:         authEndpoints(env, cfg),
		HTTPClient:        httpClient,
		Originator:        "agent_cli",
		ForcedWorkspaceID: cfg.ForcedChatGPTWorkspaceID,
		Sleep:             env.Sleep,
	}
	var f *auth.File
	if deviceAuth {
		f, err = auth.LoginDevice(ctx, opts, func(u, code string) {
			fmt.Fprintf(env.Stderr, "To log in, open this page on any device:\n\n  %s\n\nand enter the code:\n\n  %s\n\nWaiting for approval (the code expires in 15 minutes)...\n", u, code)
		})
	} else {
		stop := func() {}
		f, err = auth.LoginBrowser(ctx, opts, func(u string) {
			fmt.Fprintf(env.Stderr, "Open this URL in a browser to log in:\n\n  %s\n\nWaiting for the browser (Ctrl-C to stop)...\n", u)
			stop = openBrowser(ctx, env, u)
		})
		stop()
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("login interrupted")}
	case err != nil:
		return &exitcode.Error{Code: exitcode.Auth, Err: err}
	}
	fmt.Fprintf(env.Stderr, "Logged in using ChatGPT%s. Saved to %s\n", describeAccount(f), store.Location())
	return nil
}

// loginWithAPIKey saves the API key piped on standard input.
func loginWithAPIKey(ctx context.Context, env Env, cfg config.Config, store *auth.Store) error {
	if cfg.ForcedLoginMethod == "chatgpt" {
		return usageError(errors.New("forced_login_method = \"chatgpt\": log in with `agent login`"))
	}
	if env.StdinTTY {
		return usageError(errors.New("--with-api-key reads the key from standard input: printenv OPENAI_API_KEY | agent login --with-api-key"))
	}
	b, err := io.ReadAll(io.LimitReader(env.Stdin, 64<<10))
	if err != nil {
		return usageError(fmt.Errorf("read the API key from stdin: %w", err))
	}
	key := strings.TrimSpace(string(b))
	if key == "" || strings.ContainsAny(key, " \t\r\n") {
		return usageError(errors.New("--with-api-key: standard input must hold exactly one API key"))
	}
	unlock, err := store.Lock(ctx)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	err = store.Save(&auth.File{AuthMode: auth.ModeAPIKey, OpenAIAPIKey: &key})
	unlock()
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	fmt.Fprintf(env.Stderr, "Logged in using an API key (%s). Saved to %s\n", auth.Mask(key), store.Location())
	return nil
}

func runLoginStatus(env Env, g *globalFlags) error {
	_, store, err := loginStore(env, g)
	if err != nil {
		return err
	}
	f, err := store.Load()
	if errors.Is(err, auth.ErrNotLoggedIn) {
		fmt.Fprintln(env.Stdout, "Not logged in")
		if env.Getenv("OPENAI_API_KEY") != "" {
			fmt.Fprintln(env.Stdout, "(OPENAI_API_KEY is set: the openai provider uses it)")
		}
		return &exitcode.Error{Code: exitcode.Failed, Err: errors.New("not logged in: run `agent login`")}
	}
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	if f.Mode() == auth.ModeAPIKey {
		fmt.Fprintf(env.Stdout, "Logged in using an API key: %s\n", auth.Mask(f.APIKey()))
		return nil
	}
	fmt.Fprintf(env.Stdout, "Logged in using ChatGPT%s\n", describeAccount(f))
	return nil
}

// describeAccount names a ChatGPT login without its secrets: the masked
// account id and the e-mail address.
func describeAccount(f *auth.File) string {
	var parts []string
	if id := f.AccountID(); id != "" {
		parts = append(parts, "account "+auth.Mask(id))
	}
	if e := f.Email(); e != "" {
		parts = append(parts, e)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// authEndpoints returns where logins and refreshes go: the environment
// (AGENT_AUTH_ISSUER, AGENT_REFRESH_TOKEN_URL) over config over defaults.
func authEndpoints(env Env, cfg config.Config) auth.Endpoints {
	ep := auth.Endpoints{Issuer: cfg.AuthIssuer, TokenURL: cfg.AuthTokenURL, ClientID: cfg.AuthClientID}
	if v := strings.TrimSpace(env.Getenv("AGENT_AUTH_ISSUER")); v != "" {
		ep.Issuer = v
	}
	if v := strings.TrimSpace(env.Getenv("AGENT_REFRESH_TOKEN_URL")); v != "" {
		ep.TokenURL = v
	}
	return ep.WithDefaults()
}

// loginStore is what login, logout and login status work on: the
// configuration and the credential store it names
// (cli_auth_credentials_store) in AGENT_HOME. A bad home is a usage error,
// a store that cannot be opened (no keyring) an authentication one.
func loginStore(env Env, g *globalFlags) (config.Config, *auth.Store, error) {
	h, err := config.FindHome(env.Getenv)
	if err != nil {
		return config.Config{}, nil, usageError(err)
	}
	home := h.Dir
	cfg, err := loadConfig(env, home, g)
	if err != nil {
		return config.Config{}, nil, err
	}
	store, err := openStore(env, cfg, home, nil)
	if err != nil {
		return config.Config{}, nil, &exitcode.Error{Code: exitcode.Auth, Err: err}
	}
	return cfg, store, nil
}

// openStore opens the credential store cli_auth_credentials_store names,
// printing the notice of "auto" falling back to the file. With "keyring"
// and no keyring reachable it returns the store and the error (see
// [auth.OpenStore]).
func openStore(env Env, cfg config.Config, home string, opts *auth.StoreOptions) (*auth.Store, error) {
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

// storeOf returns s, dropping the error [openStore] also reports through the
// store itself.
func storeOf(s *auth.Store, _ error) *auth.Store { return s }

// resolveCredentials picks the credentials of provider p and names their
// source, for errors (see [auth.Resolve], the one place the order is
// decided); nil means unauthenticated. With a ChatGPT login, the
// built-in openai provider is pointed at the ChatGPT backend unless its
// base URL was changed. notice tells the user what the credentials'
// manager has to say while the agent runs (refreshed tokens that could not
// be saved); nil prints it on stderr.
//
// The API key variable is AGENT_API_KEY or, when only it is set,
// CODEX_API_KEY, the variable the Codex SDK's apiKey option sets.
func resolveCredentials(env Env, cfg config.Config, p *provider.Info, home string, hc *http.Client, logger *slog.Logger,
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
		APIKeyVar: apiKeyVar(env.Getenv),
		Manager: auth.ManagerOptions{
			// A keyring that cannot be reached fails here only if the
			// stored credentials are needed (the store's Load says why).
			Store:      storeOf(openStore(env, cfg, home, &auth.StoreOptions{Logger: logger})),
			Endpoints:  authEndpoints(env, cfg),
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

// openBrowser opens u in the desktop's browser, if there is a desktop; it
// never runs in CI or over SSH. The returned stop ends the opener if it is
// still running and waits for it.
func openBrowser(ctx context.Context, env Env, u string) (stop func()) {
	if !hasDesktop(env) {
		return func() {}
	}
	if p, err := url.Parse(u); err != nil || (p.Scheme != "https" && p.Scheme != "http") {
		return func() {}
	}
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		name = "xdg-open"
	}
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, name, append(args, u)...)
	if err := cmd.Start(); err != nil {
		cancel()
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	return func() {
		cancel()
		<-done
	}
}

// hasDesktop reports whether a browser can be opened on this machine.
func hasDesktop(env Env) bool {
	for _, v := range []string{"CI", "SSH_CONNECTION", "SSH_TTY", "AGENT_NO_BROWSER"} {
		if env.Getenv(v) != "" {
			return false
		}
	}
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	return env.Getenv("DISPLAY") != "" || env.Getenv("WAYLAND_DISPLAY") != ""
}

// apiKeyVar is the environment variable whose API key wins over auth.json:
// AGENT_API_KEY, else CODEX_API_KEY when set (as the reference client's
// exec and its SDK use it).
func apiKeyVar(getenv func(string) string) string {
	if getenv("AGENT_API_KEY") == "" && getenv("CODEX_API_KEY") != "" {
		return "CODEX_API_KEY"
	}
	return "AGENT_API_KEY"
}
