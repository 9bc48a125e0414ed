package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/agentcli/agent/headless/mcpserver"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/rollout/recording"
	"github.com/agentcli/agent/session"
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
	es := &mcpEngines{ctx: ctx, env: env, g: g, byProfile: map[string]*engine{}}
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
	byProfile map[string]*engine
}

func (m *mcpEngines) engine(profile string) (*engine, error) {
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
	e, err := newEngine(m.ctx, m.env, &g, engineOptions{originator: "agent_mcp_server", waitMCP: true, mcpNotice: printMCPNotice(m.env)})
	if err != nil {
		return nil, err
	}
	for _, n := range e.notices {
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
	return e.mcpSession(m.env, o, nil)
}

func (m *mcpEngines) resume(ctx context.Context, id string, o mcpserver.StartOptions) (*mcpserver.Opened, error) {
	e, err := m.engine(o.Profile)
	if err != nil {
		return nil, err
	}
	path, err := e.findSession(id, false, false)
	if err != nil {
		return nil, err
	}
	ro, err := rollout.Load(path)
	if err != nil {
		return nil, err
	}
	return e.mcpSession(m.env, o, ro)
}

// mcpSession opens a session of its own for an MCP call: a new one
// (ro nil) or the recorded ro, continued in its directory unless o names
// another, with the call's sandbox, approval policy, model and
// instructions over the engine's config.
func (e *engine) mcpSession(env Env, o mcpserver.StartOptions, ro *rollout.Rollout) (_ *mcpserver.Opened, err error) {
	sc := &scope{id: newSessionID()}
	defer func() {
		if err != nil {
			sc.Close()
		}
	}()
	cwd := o.Cwd
	if ro != nil {
		sc.id = ro.Meta.ID
		if cwd == "" {
			cwd = ro.Meta.Cwd
		}
	}
	ws, err := newWorkspace(e.cfg, cwd, o.Sandbox, o.ApprovalPolicy, env.Getenv, env.environ())
	if err != nil {
		return nil, err
	}
	ws.freeformPatch = e.client.Provider().CustomTools
	ws.sandbox.ReadOnlyPaths = []string{e.home} // as engine.workspaceFor
	ws.sandbox.HiddenPaths = []string{e.home}
	set, err := ws.tools()
	if err != nil {
		return nil, err
	}
	sc.closers = append(sc.closers, func() { set.Close() })
	if e.mcpServers != nil {
		set.AddSource(e.mcpServers.Tools)
	}
	opts := e.opts
	opts.Tools, opts.ApprovalPolicy, opts.Approve = set, ws.policy, o.Approve
	if o.BaseInstructions != "" {
		opts.Instructions = o.BaseInstructions
	}
	co := e.clientOpts
	co.SessionID = sc.id
	if o.Model != "" {
		co.Model = o.Model
	}
	c := modelclient.New(co)
	sc.closers = append(sc.closers, func() { c.Close() })
	opts.Client, opts.Fallback = c, nil
	for i, fo := range e.fallbackClients {
		fo.SessionID = sc.id
		fc := modelclient.New(fo)
		sc.closers = append(sc.closers, func() { fc.Close() })
		opts.Fallback = append(opts.Fallback, session.Alternative{Candidate: e.fallbacks[i].Candidate, Client: fc})
	}
	if ro == nil {
		cfg := e.cfg
		if o.DeveloperInstructions != "" {
			cfg.DeveloperInstructions = o.DeveloperInstructions
		}
		if opts.Context, err = ws.context(cfg, e.home, env.now()); err != nil {
			return nil, err
		}
		closeRec, err := e.recordAs(&opts, sc.id, ws.cwd)
		if err != nil {
			return nil, err
		}
		sc.closers = append(sc.closers, closeRec)
	} else if err := e.resumeInto(&opts, sc, ro); err != nil {
		return nil, err
	}
	sc.sess = session.New(opts)
	return &mcpserver.Opened{ID: sc.id, Session: sc.sess, Close: sc.Close}, nil
}

// resumeInto sets opts to continue the recorded ro, appending to its file
// (held by sc until it closes).
func (e *engine) resumeInto(opts *session.Options, sc *scope, ro *rollout.Rollout) error {
	r, err := rollout.Open(ro.Path)
	if err != nil {
		return err
	}
	sc.closers = append(sc.closers, func() { r.Close() })
	opts.Recorder = recording.New(r, e.secrets)
	opts.Resumed, opts.Usage = ro.History, ro.Total
	opts.ResumedFrom, opts.ResumedMixed = resumedProvider(ro)
	opts.Ledger = session.NewLedger(recording.LedgerSink(r))
	var entries []session.LedgerEntry
	for _, le := range ro.Ledger {
		entries = append(entries, session.LedgerEntry{CallID: le.CallID, Name: le.Name, State: session.CallState(le.State)})
	}
	opts.Ledger.Restore(entries)
	return nil
}
