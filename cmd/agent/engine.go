package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/headless/exitcode"
	"github.com/agentcli/agent/internal/agentsmd"
	"github.com/agentcli/agent/internal/demo"
	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/retry/gate"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
	"github.com/agentcli/agent/tools/sandbox"
	"github.com/agentcli/agent/transport"
)

// streamReadBatch is how long a model stream that has caught up with the
// server waits before reading again (sse.Options.ReadBatch): a delta
// reaches the screen at most 1 ms later, and a long answer costs one
// wake-up per millisecond instead of one per delta. On the 50,000-delta
// benchmark stream on a quiet 2-core machine that halves agent exec's CPU
// (260 -> 118 ms) and its wall time (312 -> 196 ms), the server no longer
// waking it for every event (BENCHMARKS.md).
const streamReadBatch = time.Millisecond

// workspace is where a session works and under which rules.
type workspace struct {
	cwd     string
	policy  string // approval policy
	sandbox sandbox.Policy
	shell   string
	// env is the environment of the model's commands, built by
	// [shell_environment_policy].
	env []string
	// freeformPatch offers apply_patch as a custom (grammar) tool, for
	// providers that support custom tools.
	freeformPatch bool
	// outputTokenLimit is tool_output_token_limit: the budget of one
	// tool output sent to the model.
	outputTokenLimit int
	// webSearch is config web_search: cached, live or disabled.
	webSearch string
	// headless says no user is there to answer (no approver: exec, batch).
	headless bool
}

// newWorkspace resolves the working directory, the approval policy and the
// sandbox policy from config and flags.
func newWorkspace(cfg config.Config, cwd, sandboxMode, approval string, getenv func(string) string, environ []string) (workspace, error) {
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return workspace{}, err
		}
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return workspace{}, err
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return workspace{}, fmt.Errorf("working directory %s: not a directory", cwd)
	}
	defSandbox, defApproval := cfg.WorkspaceDefaults(cwd) // config, else the project's trust
	if sandboxMode == "" {
		sandboxMode = defSandbox
	}
	mode, err := sandbox.ParseMode(sandboxMode)
	if err != nil {
		return workspace{}, err
	}
	if approval == "" {
		approval = defApproval
	}
	if approval, err = tools.ParsePolicy(approval); err != nil {
		return workspace{}, err
	}
	shell := getenv("SHELL")
	if shell == "" {
		shell = "/bin/bash"
	}
	ww := cfg.SandboxWorkspaceWrite
	return workspace{
		cwd:              cwd,
		policy:           approval,
		shell:            shell,
		env:              commandEnvPolicy(cfg).Build(environ),
		outputTokenLimit: int(min(cfg.ToolOutputTokenLimit, 1<<30)),
		webSearch:        cfg.WebSearch,
		sandbox: sandbox.Policy{
			Mode: mode, Workspace: cwd, WritableRoots: ww.WritableRoots, NetworkAccess: ww.NetworkAccess,
			ExcludeTmpdirEnvVar: ww.ExcludeTmpdirEnvVar, ExcludeSlashTmp: ww.ExcludeSlashTmp,
			BestEffort: cfg.SandboxFallback == "best-effort",
		},
	}, nil
}

// tools builds the session's tools: commands run under the sandbox,
// approved escalations outside it.
func (w workspace) tools() (*tools.Set, error) {
	pol := w.sandbox
	ex := tools.NewExec(tools.ExecOptions{
		Cwd:     w.cwd,
		Shell:   w.shell,
		Policy:  w.policy,
		Sandbox: string(pol.Mode),
		Env:     w.env,
		Command: func(ctx context.Context, dir string, argv []string) (*exec.Cmd, error) {
			c, err := sandbox.Command(ctx, pol, argv[0], argv[1:]...)
			if err != nil {
				return nil, err
			}
			c.Dir = dir
			return c, nil
		},
		Unsandboxed: func(ctx context.Context, dir string, argv []string) (*exec.Cmd, error) {
			c := exec.Command(argv[0], argv[1:]...)
			c.Dir = dir
			return c, nil
		},
		Denied: func(waitErr error, output []byte) bool { return sandbox.Denied(pol, waitErr, output) },
	})
	roots := append([]string{w.cwd}, pol.WritableRoots...)
	list := []tools.Tool{ex, tools.NewWriteStdin(ex),
		tools.NewApplyPatch(tools.PatchOptions{Cwd: w.cwd, WritableRoots: roots, Policy: w.policy, ReadOnlyPaths: pol.ReadOnlyPaths,
			Sandbox: string(pol.Mode), Freeform: w.freeformPatch}),
		tools.Plan{},
		// What the sandbox hides (the agent home, with the credentials) the
		// model cannot view either.
		tools.NewViewImage(tools.ViewImageOptions{Cwd: w.cwd, Unreadable: pol.HiddenPaths}),
		tools.RequestUserInput{Headless: w.headless},
	}
	if w.webSearch != "disabled" {
		list = append(list, tools.WebSearch{Live: w.webSearch == "live"})
	}
	set, err := tools.NewSet(list...)
	if err != nil {
		return nil, err
	}
	set.LimitOutput(w.outputTokenLimit)
	return set, nil
}

// context builds the messages recorded before the first user message:
// developer_instructions as a developer message (as Codex sends them), the
// environment, then AGENTS.md instructions when there are any.
func (w workspace) context(cfg config.Config, home string, now time.Time) ([]transport.Item, error) {
	var items []transport.Item
	if d := cfg.DeveloperInstructions; d != "" {
		items = append(items, transport.DeveloperMessage(d))
	}
	items = append(items, session.EnvironmentContext(session.Environment{
		Cwd: w.cwd, Shell: w.shell, ApprovalPolicy: w.policy, SandboxMode: string(w.sandbox.Mode),
		NetworkAccess: w.sandbox.NetworkAccess, WritableRoots: w.sandbox.WritableRoots, Now: now,
	}))
	doc, err := agentsmd.Discover(w.cwd, agentsmd.Options{
		Home: home, MaxBytes: int(cfg.ProjectDocMaxBytes), RootMarkers: cfg.ProjectRootMarkers,
		Fallbacks: cfg.ProjectDocFallbackFilenames,
	})
	if err != nil {
		return nil, fmt.Errorf("read AGENTS.md: %w", err)
	}
	if doc.Text != "" {
		items = append(items, transport.UserMessage(doc.Message(w.cwd)))
	}
	return items, nil
}

// engineOptions are what differs between the front ends building an engine.
type engineOptions struct {
	originator     string // "agent_exec", "agent_cli"
	cd, sandbox    string // -C and -s; "" means config's
	approval       string // approval policy; "" means config's
	noAutoContinue bool
	// waitForNetwork keeps retrying a lost connection until the user
	// interrupts (the chat); otherwise connection_max_wait bounds it.
	waitForNetwork bool
	ephemeral      bool     // do not record the session
	addDirs        []string // --add-dir: writable roots beyond config's (absolute)
	outputSchema   json.RawMessage
	approve        func(ctx context.Context, req tools.ApprovalRequest) tools.Decision
	maxResends     int // the retry gate's bound; 0: [retry] max_concurrent_resends
	// notice tells the user something while the engine runs (a refreshed
	// login that could not be saved); nil prints it on stderr.
	notice func(msg string)
	// mcpNotice receives MCP servers' state changes (mcp.go); nil: log only.
	mcpNotice func(mcp.Notice)
	// waitMCP makes newEngine wait until every MCP server is ready or has
	// failed (each within its startup_timeout_sec), so their tools are in
	// the first request, as in exec; the chat starts them in the
	// background instead.
	waitMCP bool
}

// engine is everything a session needs, built once from config and flags.
type engine struct {
	cfg  config.Config
	home string
	// where is the home and how it was found ([config.FindHome]).
	where      config.Home
	sessionID  string
	client     *modelclient.Client
	tools      *tools.Set
	logger     *slog.Logger
	ws         workspace
	opts       session.Options
	clientOpts modelclient.Options
	originator string
	ephemeral  bool
	// notices are one-line facts for the user (the demo provider, ...).
	notices []string
	// fallbacks are the usable entries of the fallback chain (fallback.go);
	// health is the providers' failure memory they are chosen by.
	fallbacks []session.Alternative
	health    *failover.Health
	// fallbackClients are the client options of the fallbacks, for the
	// clients of the engine's other sessions ([engine.scope]).
	fallbackClients []modelclient.Options
	// mcpServers runs the [mcp_servers] (mcp.go); nil when there are none.
	mcpServers *mcp.Manager
	// secrets are the credentials masked in what the engine records.
	secrets *redact.Set
	// workspaceFor resolves the workspace of a directory ("" the current
	// one) under the engine's flags.
	workspaceFor func(dir string) (workspace, error)
	closers      []func()
	// open closes each session's rollout by id, for the chat to let go of
	// one it leaves (/new, /resume) so it can be resumed again.
	open map[string]func()
}

// newEngine loads config, resolves the provider and its credentials, and
// builds the model client, the workspace's tools and the initial context.
// Its errors are *exitcode.Error with the exit code they deserve.
func newEngine(ctx context.Context, env Env, g *globalFlags, o engineOptions) (_ *engine, err error) {
	if env.Secrets == nil {
		env.Secrets = redact.New()
	}
	e := &engine{originator: o.originator, ephemeral: o.ephemeral, secrets: env.Secrets}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	h, err := config.FindHome(env.Getenv)
	if err != nil {
		return nil, usageError(err)
	}
	e.home, e.where = h.Dir, h
	if h.Codex() {
		e.notices = append(e.notices, h.Describe())
	}
	if e.cfg, err = loadConfig(env, e.home, g); err != nil {
		return nil, err
	}
	cfg := e.cfg
	var closeLog func()
	e.logger, closeLog = openLog(e.home, g.logLevel, env)
	e.closers = append(e.closers, closeLog)

	p := cfg.Provider
	switch g.transport {
	case "":
	case provider.TransportAuto, provider.TransportWebSocket, provider.TransportHTTPS:
		p.Transport = g.transport
	default:
		return nil, usageError(fmt.Errorf("--transport %q: want auto, websocket or https", g.transport))
	}
	addEnvSecrets(env.Secrets, env.environ(), env.Getenv, cfg, p)
	addAuthFileSecrets(env.Secrets, e.home, env.Stderr)
	httpClient, err := modelclient.NewHTTPClient(cfg.CACertificate)
	if err != nil {
		return nil, usageError(err)
	}
	var creds modelclient.Credentials
	var credSrc string
	httpClient = withSecrets(httpClient, env.Secrets, func() []string {
		if m, ok := creds.(*auth.Manager); ok {
			f := m.File()
			if t := f.Tokens; t != nil {
				return []string{f.APIKey(), t.AccessToken, t.RefreshToken, t.IDToken}
			}
			return []string{f.APIKey()}
		}
		return nil
	})
	if p.Demo {
		base, stop, err := demo.Start(ctx, demo.Options{Faults: true, Pace: demoPace(env)})
		if err != nil {
			return nil, &exitcode.Error{Code: exitcode.Failed, Err: err}
		}
		e.closers = append(e.closers, stop)
		p.BaseURL = base
		e.notices = append(e.notices, "using the offline demo provider (scripted answers, no API key, no network)")
	} else if creds, credSrc, err = resolveCredentials(env, cfg, &p, e.home, httpClient, e.logger, o.notice); err != nil {
		return nil, &exitcode.Error{Code: exitcode.Auth, Err: err}
	}
	p.BaseURL = p.APIRoot()
	if o.waitForNetwork {
		p.ConnectionMaxWait = 0
	}
	e.sessionID = newSessionID()
	// One retry gate per provider and machine: every agent process of this
	// AGENT_HOME (chats, exec, batch jobs, agent proxy) shares it.
	gate := openGate(env, e.home, p.ID, cmp.Or(o.maxResends, cfg.MaxConcurrentResends, config.DefaultMaxConcurrentResends), e.logger)
	e.clientOpts = modelclient.Options{
		Provider:         p,
		Model:            cfg.Model,
		ReasoningEffort:  cfg.ModelReasoningEffort,
		ReasoningSummary: cfg.ModelReasoningSummary,
		Verbosity:        cfg.ModelVerbosity,
		ServiceTier:      cfg.ServiceTier,
		Auth:             creds,
		SessionID:        e.sessionID,
		Originator:       o.originator,
		Version:          version,
		Getenv:           env.Getenv,
		HTTPClient:       httpClient,
		ReadBatch:        streamReadBatch,
		Sleep:            env.Sleep,
		Rand:             env.Rand,
		Logger:           e.logger,
		Gate:             gate,
		CredentialSource: credSrc,
	}
	e.client = modelclient.New(e.clientOpts)
	e.closers = append(e.closers, func() { e.client.Close() })
	e.buildFallbacks(env, cfg, httpClient, o.notice)
	e.workspaceFor = func(dir string) (workspace, error) {
		ws, err := newWorkspace(cfg, dir, o.sandbox, o.approval, env.Getenv, env.environ())
		if err != nil {
			return workspace{}, err
		}
		ws.sandbox.WritableRoots = slices.Concat(ws.sandbox.WritableRoots, o.addDirs)
		ws.freeformPatch = p.CustomTools
		ws.headless = o.approve == nil
		// The agent's home stays read-only to the model's commands and
		// patches, even inside a writable root: a config written there
		// would run its MCP servers unsandboxed at the next start. The
		// commands do not even see it: its credentials, sessions and
		// locks are none of their business.
		ws.sandbox.ReadOnlyPaths = []string{e.home}
		ws.sandbox.HiddenPaths = []string{e.home}
		return ws, nil
	}
	if e.ws, err = e.workspaceFor(o.cd); err != nil {
		return nil, usageError(err)
	}
	if e.tools, err = e.ws.tools(); err != nil {
		return nil, &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	e.closers = append(e.closers, func() { e.tools.Close() })
	e.startMCP(ctx, env, o.mcpNotice)
	if o.waitMCP && e.mcpServers != nil {
		select {
		case <-e.mcpServers.Started():
		case <-ctx.Done():
			return nil, &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("interrupted while MCP servers started")}
		}
	}
	base, compact, err := instructions(cfg, e.home)
	if err != nil {
		return nil, usageError(err)
	}
	initial, err := e.ws.context(cfg, e.home, time.Now())
	if err != nil {
		return nil, &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	e.opts = session.Options{
		Client:                     e.client,
		Instructions:               base,
		CompactPrompt:              compact,
		UnboundedConnectionRetries: cfg.Features.UnboundedConnectionRetries,
		ConnectionMaxWait:          p.ConnectionMaxWait,
		OutputSchema:               o.outputSchema,
		Tools:                      e.tools,
		Approve:                    o.approve,
		ApprovalPolicy:             e.ws.policy,
		Context:                    initial,
		Continue: session.ContinuePolicy{Enabled: cfg.AutoContinue.Enabled && !o.noAutoContinue,
			Delays: cfg.AutoContinue.Delays, Prompt: cfg.AutoContinue.Prompt},
		AutoCompactTokens: autoCompactTokens(cfg),
		HideReasoning:     cfg.HideAgentReasoning,
		Health:            e.health,
		Fallback:          e.fallbacks,
	}
	if len(cfg.Notify) > 0 {
		n := &notifier{argv: cfg.Notify, cwd: e.ws.cwd, thread: func() string { return e.sessionID },
			logger: e.logger, stderr: env.Stderr}
		e.opts.OnEvent = n.observe
		e.closers = append(e.closers, func() { n.wait(context.Background()) })
	}
	return e, nil
}

// openGate opens the retry gate every agent process sharing home uses for
// provider id: one cooldown (a 429 or overload delay one process is given
// holds back all) and at most n re-sends in flight, machine-wide. Where the
// directory cannot be used, the gate is this process's alone (logged).
func openGate(env Env, home, id string, n int, log *slog.Logger) *gate.Gate {
	if env.Sleep != nil && env.Now == nil {
		return gate.New(n) // an injected sleep without its clock: stay in-process
	}
	g, err := gate.Open(gate.Options{MaxResends: n, Dir: gate.DirFor(home, id), Now: env.Now, Sleep: env.Sleep})
	if err != nil {
		log.Warn("retry gate not shared with other processes", "err", err)
		return gate.New(n)
	}
	return g
}

// autoCompactTokens is min(model_auto_compact_token_limit, 90% of the
// context window), from whichever of the two is configured.
func autoCompactTokens(cfg config.Config) int64 {
	limit := cfg.ModelAutoCompactTokenLimit
	if w := cfg.ModelContextWindow * 9 / 10; w > 0 && (limit <= 0 || w < limit) {
		limit = w
	}
	return limit
}

// newSession starts a session on the engine, recorded unless ephemeral.
func (e *engine) newSession() (*session.Session, error) {
	opts := e.opts
	if err := e.record(&opts); err != nil {
		return nil, err
	}
	return session.New(opts), nil
}

// Close releases what the engine holds, in reverse order.
func (e *engine) Close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
	e.closers = nil
}
