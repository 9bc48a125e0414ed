package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/agentcli/agent/headless/mcpserver"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/rollout"
)

func newMCPServerCmd(ctx context.Context, env Env, g *globalFlags) *cobra.Command {
	return &cobra.Command{
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
supports it, else refused. Logs go to standard error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			warnIgnored(cmd, env.Stderr)
			return runMCPServer(ctx, env, g)
		},
	}
}

func runMCPServer(ctx context.Context, env Env, g *globalFlags) error {
	env.Stderr = &syncWriter{w: env.Stderr} // concurrent calls log and notice
	es := &mcpEngines{ctx: ctx, env: env, g: g, byProfile: map[string]*app.App{}}
	defer es.Close()
	if _, err := es.engine(g.profile); err != nil { // config and credentials fail now, not at the first call
		return err
	}
	srv := mcpserver.New(mcpserver.Options{Version: version, Start: es.start, Resume: es.resume})
	return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(env.Stdin), Writer: nopWriteCloser{env.Stdout}})
}

// nopWriteCloser is a writer the transport may close without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpEngines are the MCP server's engines, one per config profile a call
// names, each built at its first call and shared by every session of that
// profile (its HTTP pool, retry gate, MCP servers).
type mcpEngines struct {
	ctx context.Context
	env Env
	g   *globalFlags

	mu        sync.Mutex
	byProfile map[string]*app.App
}

func (m *mcpEngines) engine(profile string) (*app.App, error) {
	if profile == "" {
		profile = m.g.profile
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.byProfile[profile]; e != nil {
		return e, nil
	}
	g := *m.g
	g.profile = profile
	e, err := app.New(m.ctx, g.appOptions(m.env, app.Options{Originator: "agent_mcp_server", WaitMCP: true, MCPNotice: printMCPNotice(m.env)}))
	if err != nil {
		return nil, err
	}
	for _, n := range e.Notices() {
		fmt.Fprintln(m.env.Stderr, "agent: "+n)
	}
	m.byProfile[profile] = e
	return e, nil
}

// Close ends every engine.
func (m *mcpEngines) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.byProfile {
		e.Close()
	}
}

func (m *mcpEngines) start(ctx context.Context, o mcpserver.StartOptions) (*mcpserver.Opened, error) {
	e, err := m.engine(o.Profile)
	if err != nil {
		return nil, err
	}
	return mcpSession(e, o, nil)
}

func (m *mcpEngines) resume(ctx context.Context, id string, o mcpserver.StartOptions) (*mcpserver.Opened, error) {
	e, err := m.engine(o.Profile)
	if err != nil {
		return nil, err
	}
	path, err := e.FindSession(id, false, false)
	if err != nil {
		return nil, err
	}
	ro, err := rollout.Load(path)
	if err != nil {
		return nil, err
	}
	return mcpSession(e, o, ro)
}

// mcpSession opens a session of its own for an MCP call (app.OpenSession):
// a new one (ro nil) or the recorded ro, with the call's settings.
func mcpSession(a *app.App, o mcpserver.StartOptions, ro *rollout.Rollout) (*mcpserver.Opened, error) {
	s, err := a.OpenSession(app.SessionOptions{
		Cwd: o.Cwd, Sandbox: o.Sandbox, ApprovalPolicy: o.ApprovalPolicy, Approve: o.Approve, Model: o.Model,
		BaseInstructions: o.BaseInstructions, DeveloperInstructions: o.DeveloperInstructions,
	}, ro)
	if err != nil {
		return nil, err
	}
	return &mcpserver.Opened{ID: s.ID, Session: s.Session, Close: s.Close}, nil
}
