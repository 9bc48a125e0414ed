package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/headless/acp"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/syncbuf"
)

// acpFlags are agent acp's own flags.
type acpFlags struct {
	sandbox  string
	approval string
	cd       string
	max      int
}

func newACPCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	f := &acpFlags{}
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol on standard input and output (Zed, JetBrains, Neovim)",
		Long: `Serve agent to an editor over the Agent Client Protocol (ACP): JSON-RPC 2.0
lines on standard input and output. The editor starts agent acp and opens
sessions in its project directory; each session is a session as exec runs
it (config, retries, the machine-wide retry gate, the sandbox, recorded so
that agent resume and session/load continue it). Commands and patches the
approval policy does not allow by itself are asked of the editor
(session/request_permission); the session modes are the /permissions
presets. At most --max-sessions sessions are open at once on the
connection; session/close closes one. Logs go to standard error. docs/editors.md shows the editors'
configuration.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			return runACP(ctx, env, g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.sandbox, "sandbox", "s", "", "sandbox for commands: read-only (default), workspace-write or danger-full-access")
	fl.StringVarP(&f.approval, "ask-for-approval", "a", "", "approval policy: untrusted, on-request, on-failure or never")
	fl.StringVarP(&f.cd, "cd", "C", "", "the directory of sessions opened without one")
	fl.IntVar(&f.max, "max-sessions", acp.DefaultMaxSessions, "sessions open at once on the connection; more are refused until session/close")
	return cmd
}

func runACP(ctx context.Context, env Env, g *globalFlags, f *acpFlags) error {
	if f.max < 1 {
		return usageError(fmt.Errorf("--max-sessions must be at least 1, not %d", f.max))
	}
	env.Stderr = &syncbuf.Writer{W: env.Stderr}
	o := g.appOptions(env, app.Options{Originator: "agent_acp", WaitMCP: true, MCPNotice: printMCPNotice(env),
		Cd: f.cd, Sandbox: f.sandbox, Approval: f.approval})
	a, err := app.New(ctx, o)
	if err != nil {
		return err
	}
	defer a.Close()
	for _, n := range a.Notices() {
		fmt.Fprintln(env.Stderr, "agent: "+n)
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := acp.New(acp.Options{App: a, Version: version, Log: log, MaxSessions: f.max})
	return srv.Serve(ctx, env.Stdin, env.Stdout)
}
