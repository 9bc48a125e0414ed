package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/modelclient"
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
			return login(ctx, env, g, withAPIKey, deviceAuth)
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
			return loginStatus(env, g)
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
			return logout(ctx, env, g)
		},
	}
}

// login is agent login: a ChatGPT login in the browser (or with a device
// code), or the API key piped on standard input, saved in the credential
// store.
func login(ctx context.Context, env Env, g *globalFlags, withAPIKey, deviceAuth bool) error {
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
	httpClient, err := modelclient.NewHTTPClient(setup.CAFile(cfg, env.Getenv))
	if err != nil {
		return usageError(err)
	}
	opts := auth.LoginOptions{
		Store:             store,
		Endpoints:         setup.AuthEndpoints(env.app(), cfg),
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
			stop = auth.OpenBrowser(ctx, env.Getenv, u)
		})
		stop()
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("login interrupted")}
	case err != nil:
		return &exitcode.Error{Code: exitcode.Auth, Err: err}
	}
	fmt.Fprintf(env.Stderr, "Logged in using ChatGPT%s. Saved to %s\n", inParens(f.Account()), store.Location())
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
	if err := store.SaveAPIKey(ctx, key); err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	fmt.Fprintf(env.Stderr, "Logged in using an API key (%s). Saved to %s\n", auth.Mask(key), store.Location())
	return nil
}

// loginStatus is agent login status: how the user is logged in, never the
// secret; its error (exit 1) says they are not.
func loginStatus(env Env, g *globalFlags) error {
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
	fmt.Fprintf(env.Stdout, "Logged in using ChatGPT%s\n", inParens(f.Account()))
	return nil
}

// logout is agent logout: the saved login removed, under the credential
// lock (a refresh in flight elsewhere cannot write it back), even an
// unreadable one.
func logout(ctx context.Context, env Env, g *globalFlags) error {
	_, store, err := loginStore(env, g)
	if err != nil {
		return err
	}
	line, err := store.Logout(ctx)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	fmt.Fprintln(env.Stderr, line)
	return nil
}

// inParens is " (s)", or "" for no s.
func inParens(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// loginStore is what login, logout and login status work on: the
// configuration and the credential store it names
// (cli_auth_credentials_store) in the agent home. A bad home or config is
// a usage error, a store that cannot be opened (no keyring) an
// authentication one.
func loginStore(env Env, g *globalFlags) (config.Config, *auth.Store, error) {
	home, cfg, err := env.loadConfig(g)
	if err != nil {
		return config.Config{}, nil, err
	}
	store, err := setup.OpenStore(env.app(), cfg, home, nil)
	if err != nil {
		return config.Config{}, nil, &exitcode.Error{Code: exitcode.Auth, Err: err}
	}
	return cfg, store, nil
}
