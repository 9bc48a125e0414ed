package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/headless/appserver"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/internal/syncbuf"
)

// appServerFlags are agent app-server's own flags.
type appServerFlags struct {
	listen      string
	allowRemote bool
	tokenEnv    string
	maxThreads  int
	sandbox     string
	approval    string
	cd          string
}

func newAppServerCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	f := &appServerFlags{}
	cmd := &cobra.Command{
		Use:   "app-server",
		Short: "Serve Codex's app-server protocol (Codex's TUI, codex exec --remote, editors)",
		Long: `Serve agent to Codex's own clients over Codex's app-server protocol
(JSON-RPC without the "jsonrpc" member, as Codex 0.171's schema states it):
on standard input and output (--listen stdio://, the default), a WebSocket
(--listen ws://IP:PORT; loopback only unless --allow-remote; /readyz and
/healthz answer; any request with an Origin header is refused) or a UNIX
socket (--listen unix://PATH, WebSocket over it).

Each thread is a session as exec runs it (config, retries, the machine-wide
retry gate, the sandbox, recorded so that agent resume continues it); a
client cannot widen the config's sandbox. Approvals are asked of the client
as Codex's server requests. At most --max-threads threads are open at once.
Methods agent does not implement are answered with an error naming them
(docs/editors.md lists what is implemented). Logs go to standard error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			return runAppServer(ctx, env, g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "stdio://", "where to serve: stdio://, ws://IP:PORT or unix://PATH")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "let --listen ws:// bind an address other than loopback")
	fl.StringVar(&f.tokenEnv, "ws-token-env", "", "require the bearer token in this environment variable on every WebSocket connection")
	fl.IntVar(&f.maxThreads, "max-threads", appserver.DefaultMaxThreads, "threads open at once; more are refused")
	fl.StringVarP(&f.sandbox, "sandbox", "s", "", "sandbox for commands: read-only (default), workspace-write or danger-full-access")
	fl.StringVarP(&f.approval, "ask-for-approval", "a", "", "approval policy: untrusted, on-request, on-failure or never")
	fl.StringVarP(&f.cd, "cd", "C", "", "work in DIR instead of the current directory")
	return cmd
}

func runAppServer(ctx context.Context, env Env, g *globalFlags, f *appServerFlags) error {
	if f.maxThreads < 1 {
		return usageError(fmt.Errorf("--max-threads must be at least 1, not %d", f.maxThreads))
	}
	l, err := appserver.ParseListen(f.listen, f.allowRemote)
	if err != nil {
		return usageError(err)
	}
	var token string
	if f.tokenEnv != "" {
		if token = env.Getenv(f.tokenEnv); token == "" {
			return usageError(fmt.Errorf("--ws-token-env %s: the variable is empty or unset", f.tokenEnv))
		}
	}
	if l.Scheme != "ws" && l.Scheme != "unix" && token != "" {
		return usageError(fmt.Errorf("--ws-token-env applies to ws:// and unix:// only"))
	}
	env.Stderr = &syncbuf.Writer{W: env.Stderr}
	o := g.appOptions(env, app.Options{Originator: "agent_app_server", WaitMCP: true, MCPNotice: printMCPNotice(env),
		Cd: f.cd, Sandbox: f.sandbox, Approval: f.approval,
		// Approvals are asked per thread (appserver); this one refuses
		// what a thread opened without one would have asked.
	})
	a, err := app.New(ctx, o)
	if err != nil {
		return err
	}
	defer a.Close()
	for _, n := range a.Notices() {
		fmt.Fprintln(env.Stderr, "agent: "+n)
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := appserver.New(appserver.Options{App: a, Version: version, MaxThreads: f.maxThreads, Log: log,
		Models:  a.Models,
		Account: func() map[string]any { return account(env, a) },
	})
	defer srv.Close()
	if l.Scheme == "stdio" {
		return srv.Serve(ctx, appserver.Lines(env.Stdin, nopWriter{env.Stdout}))
	}
	ln, err := appserver.ListenOn(l)
	if err != nil {
		return err
	}
	if l.Scheme == "unix" {
		defer os.Remove(l.Addr)
	}
	fmt.Fprintf(env.Stderr, "agent app-server: listening on %s\n", l.URL(ln))
	return srv.ServeListener(ctx, ln, appserver.HTTPOptions{Token: token})
}

// nopWriter hides a writer's Close.
type nopWriter struct{ io.Writer }

// account is the saved login as Codex's Account, nil when the provider
// takes none or there is none.
func account(env Env, a *app.App) map[string]any {
	if !a.Provider().RequiresOpenAIAuth {
		return nil
	}
	st, err := setup.OpenStore(env.app(), a.Config(), a.Home(), &auth.StoreOptions{Notice: func(string) {}})
	if err != nil {
		return nil
	}
	file, err := st.Load()
	if err != nil || file == nil {
		if env.Getenv("OPENAI_API_KEY") != "" {
			return map[string]any{"type": "apiKey"}
		}
		return nil
	}
	if file.Mode() == auth.ModeAPIKey {
		return map[string]any{"type": "apiKey"}
	}
	var email any
	if e := file.Email(); e != "" {
		email = e
	}
	return map[string]any{"type": "chatgpt", "email": email, "planType": "unknown"}
}
