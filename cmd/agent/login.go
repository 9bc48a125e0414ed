package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/internal/app"
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
			return app.Login(ctx, loginOptions(env, g), withAPIKey, deviceAuth)
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
			return app.LoginStatus(loginOptions(env, g))
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
			return app.Logout(ctx, loginOptions(env, g))
		},
	}
}

// loginOptions are what login, logout and login status take of env and g.
func loginOptions(env Env, g *globalFlags) app.LoginOptions {
	return app.LoginOptions{Env: env.app(), Flags: g.flags(), Stdin: env.Stdin, StdinTTY: env.StdinTTY, Stdout: env.Stdout}
}
