package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/headless/mcpserver"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/syncbuf"
)

func newMCPServerCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	var o mcpserver.Options
	cmd := &cobra.Command{
		Use:   "mcp-server",
		Short: "Serve agent as an MCP server on standard input and output",
		Long: `Serve agent to an MCP client (Claude Code, Codex, an editor) over stdio:
the tool "agent" starts a session on a prompt (optional cwd, model, profile,
sandbox, approval-policy, base-instructions, developer-instructions) and
answers with the final message, the session id in structuredContent.sessionId;
"agent-reply" continues a session by its id. Each call is a turn as exec
runs it (config, retries, the machine-wide retry gate, the sandbox, read-only
unless the call or config says otherwise, recorded so that agent resume ID
continues it). Approvals are asked through MCP elicitation when the client
supports it, else refused. "agent-reply" continues only the sessions this
server started, unless --reply-to-any-session. At most
--max-concurrent-calls turns run at once; further calls wait. A line that is
not JSON-RPC is answered with an error (-32700 or -32600) and skipped. Logs
go to standard error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			return runMCPServer(ctx, env, g, o)
		},
	}
	cmd.Flags().BoolVar(&o.ReplyToAny, strings.TrimPrefix(mcpserver.ReplyToAnyFlag, "--"), false,
		"let agent-reply continue any recorded session by its full id (default: only this server's sessions)")
	cmd.Flags().IntVar(&o.MaxCalls, "max-concurrent-calls", mcpserver.DefaultMaxCalls, "turns running at once; further calls wait for one to end")
	return cmd
}

func runMCPServer(ctx context.Context, env Env, g *globalFlags, so mcpserver.Options) error {
	if so.MaxCalls < 1 {
		return usageError(fmt.Errorf("--max-concurrent-calls must be at least 1, not %d", so.MaxCalls))
	}
	env.Stderr = &syncbuf.Writer{W: env.Stderr} // concurrent calls log and notice
	apps := newProfiles(ctx, g.appOptions(env, app.Options{Originator: "agent_mcp_server", WaitMCP: true, MCPNotice: printMCPNotice(env)}))
	defer apps.Close()
	if _, err := apps.Get(""); err != nil { // config and credentials fail now, not at the first call
		return err
	}
	open := func(ctx context.Context, id string, o mcpserver.StartOptions) (*mcpserver.Opened, error) {
		s, err := apps.Open(ctx, o.Profile, id, app.Spec{
			Cwd: o.Cwd, Sandbox: o.Sandbox, ApprovalPolicy: o.ApprovalPolicy, Approve: o.Approve, Model: o.Model,
			BaseInstructions: o.BaseInstructions, DeveloperInstructions: o.DeveloperInstructions,
		})
		if err != nil {
			return nil, err
		}
		return &mcpserver.Opened{ID: s.ID, Session: s.Session, Close: s.Close}, nil
	}
	srv := mcpserver.New(mcpserver.Options{Version: version, ReplyToAny: so.ReplyToAny, MaxCalls: so.MaxCalls,
		Start: func(ctx context.Context, o mcpserver.StartOptions) (*mcpserver.Opened, error) {
			return open(ctx, "", o)
		},
		Resume: func(ctx context.Context, id string, o mcpserver.StartOptions) (*mcpserver.Opened, error) {
			return open(ctx, id, o)
		},
	})
	return srv.Run(ctx, mcpserver.Stdio(io.NopCloser(env.Stdin), nopWriteCloser{env.Stdout}))
}

// nopWriteCloser is a writer the transport may close without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
