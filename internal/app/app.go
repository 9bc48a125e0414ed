// Package app assembles agent's engine for every front end: [New] builds
// the process scope (config, log, HTTP client, credentials, MCP servers,
// retry gate, failover health, secrets, telemetry) once, and [App.Open]
// each session on it, the one way every front end opens one (new,
// resumed, forked, in another directory): its own id, model clients,
// workspace, tools, initial context and recording. cmd/agent turns flags
// into [Options] and picks the front end; nothing here draws a screen.
package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentcli/agent/session/checkpoint"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/demo"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/internal/telemetry"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
)

// streamReadBatch is how long a model stream that has caught up with the
// server waits before reading again (sse.Options.ReadBatch): a delta
// reaches the screen at most 1 ms later, and a long answer costs one
// wake-up per millisecond instead of one per delta. On the 50,000-delta
// benchmark stream on a quiet 2-core machine that halves agent exec's CPU
// (260 -> 118 ms) and its wall time (312 -> 196 ms), the server no longer
// waking it for every event (BENCHMARKS.md).
const streamReadBatch = time.Millisecond

// Options are what differs between the front ends building an app.
type Options struct {
	Env   setup.Env
	Flags setup.Flags
	// Version is agent's version, for the User-Agent and the recordings.
	Version     string
	Originator  string // "agent_exec", "agent_cli"
	Cd, Sandbox string // -C and -s; "" means config's
	Approval    string // approval policy; "" means config's
	// NoAutoContinue turns auto-continue off whatever config says.
	NoAutoContinue bool
	// WaitForNetwork keeps retrying a lost connection until the user
	// interrupts (the chat); otherwise connection_max_wait bounds it.
	WaitForNetwork bool
	Ephemeral      bool     // do not record the sessions
	AddDirs        []string // --add-dir: writable roots beyond config's (absolute)
	OutputSchema   json.RawMessage
	Approve        func(ctx context.Context, req tools.ApprovalRequest) tools.Decision
	// AskUser answers the model's request_user_input questions (the
	// chat); nil: nobody can.
	AskUser    func(ctx context.Context, req tools.UserInputRequest) (map[string][]string, bool)
	MaxResends int // the retry gate's bound; 0: [retry] max_concurrent_resends
	// MaxCostUSD is exec's --max-cost: a run ends before a request that
	// would start with this much spent (USD); 0: config's max_cost_usd.
	MaxCostUSD float64
	// Notice tells the user something while the app runs (a refreshed
	// login that could not be saved); nil prints it on stderr.
	Notice func(msg string)
	// MCPNotice receives MCP servers' state changes; nil: log only.
	MCPNotice func(mcp.Notice)
	// WaitMCP makes New wait until every MCP server is ready or has
	// failed (each within its startup_timeout_sec), so their tools are in
	// the first request, as in exec; the chat starts them in the
	// background instead.
	WaitMCP bool
}

// App is the process scope every session opened on it ([App.Open])
// shares, built once from config and flags and not changed after [New]:
// config, home, log, HTTP pool and credentials, MCP servers, retry gate,
// failover health, secrets, telemetry. It holds no session.
type App struct {
	env     setup.Env
	version string
	cfg     config.Config
	home    string
	// where is the home and how it was found ([config.FindHome]).
	where  config.Home
	logger *slog.Logger
	// ws is the workspace of -C, the directory sessions work in unless
	// their [Spec] names another.
	ws Workspace
	// opts are the session options every session starts from; clientOpts
	// the model client's (without a session id) and sampling the model
	// settings of config and flags.
	opts       session.Options
	clientOpts modelclient.Options
	sampling   modelclient.Settings
	approve    func(ctx context.Context, req tools.ApprovalRequest) tools.Decision
	originator string
	ephemeral  bool
	// notices are one-line facts for the user (the demo provider, ...).
	notices []string
	// fallbacks are the usable entries of the fallback chain and
	// fallbackClients their client options (fallback.go); health is the
	// providers' failure memory they are chosen by.
	fallbacks       []failover.Candidate
	fallbackClients []modelclient.Options
	health          *failover.Health
	// mcpServers runs the [mcp_servers] (mcp.go); nil when there are none.
	mcpServers *mcp.Manager
	// secrets are the credentials masked in what the app records.
	secrets *redact.Set
	// ignoreUserConfig and bypassHookTrust are the flags hooks are found
	// by; hooksTold the notices about them already given (hooksMu).
	ignoreUserConfig, bypassHookTrust bool
	hooksMu                           sync.Mutex
	hooksTold                         map[string]bool
	// hooksTrusted are the hashes /hooks trusted since config.toml was
	// read, by hook key (hooksMu): the process's later sessions run them.
	hooksTrusted map[string]string
	// workspaceFor resolves the workspace of a directory ("" -C's) under
	// the flags, or the sandbox and approval policy given.
	workspaceFor func(dir, sandbox, approval string, headless bool) (Workspace, error)
	closers      []func()
	// mu guards threads, the ids of the sessions open ([App.Open]).
	mu      sync.Mutex
	threads map[string]bool
	// checkpoints keep the workspace snapshots undo restores from.
	checkpoints *checkpoint.Store
	// telemetry is [otel]'s exporter; nil when none is configured.
	telemetry *telemetry.Telemetry
}

// usageError is err with exit code 2.
func usageError(err error) error { return &exitcode.Error{Code: exitcode.Usage, Err: err} }

// New loads config, resolves the provider and its credentials, and builds
// the model client, the workspace's tools and the initial context. Its
// errors are *exitcode.Error with the exit code they deserve.
func New(ctx context.Context, o Options) (_ *App, err error) {
	if o.Env.Secrets == nil {
		o.Env.Secrets = redact.New()
	}
	a := &App{env: o.Env, version: o.Version, originator: o.Originator, ephemeral: o.Ephemeral, secrets: o.Env.Secrets,
		approve: o.Approve, ignoreUserConfig: o.Flags.IgnoreUserConfig, bypassHookTrust: o.Flags.BypassHookTrust}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	h, err := config.FindHome(o.Env.Getenv)
	if err != nil {
		return nil, usageError(err)
	}
	a.home, a.where = h.Dir, h
	a.checkpoints = checkpoint.ForHome(a.home)
	if h.Codex() {
		a.notices = append(a.notices, h.Describe())
	}
	if a.cfg, err = setup.LoadConfig(o.Env.Stderr, a.home, o.Flags); err != nil {
		return nil, err
	}
	var closeLog func()
	a.logger, closeLog = setup.OpenLog(a.home, o.Flags.LogLevel, o.Env)
	a.closers = append(a.closers, closeLog)
	p, httpClient, creds, err := a.provider(ctx, o)
	if err != nil {
		return nil, err
	}
	if p.WireAPI != provider.WireAPIResponses && a.cfg.WebSearch != "disabled" {
		// Chat Completions and Messages have no form of the Responses
		// API's own tools.
		a.notices = append(a.notices, fmt.Sprintf("web_search = %q is not offered: provider %s speaks wire_api = %q, which has no web search tool", a.cfg.WebSearch, p.ID, p.WireAPI))
	}
	a.startTelemetry(ctx, o, creds)
	a.clientOpts = a.clientOptions(o, p, creds, httpClient)
	a.sampling = modelclient.Settings{Model: a.cfg.Model, ReasoningEffort: a.cfg.ModelReasoningEffort,
		ReasoningSummary: a.cfg.ModelReasoningSummary, Verbosity: a.cfg.ModelVerbosity, ServiceTier: a.cfg.ServiceTier}
	a.buildFallbacks(httpClient, o.Notice)
	if err := a.startWorkspace(ctx, o, p); err != nil {
		return nil, err
	}
	if err := a.sessionOptions(o, p); err != nil {
		return nil, err
	}
	if err := a.checkBudget(); err != nil {
		return nil, err
	}
	return a, nil
}

// provider resolves the configured provider under the flags, its HTTP
// client (credentials it sends are learnt as secrets) and credentials; the
// demo provider is started here.
func (a *App) provider(ctx context.Context, o Options) (provider.Info, *http.Client, credentials, error) {
	cfg, env := a.cfg, o.Env
	p := cfg.Provider
	switch t := o.Flags.Transport; t {
	case "":
	case provider.TransportAuto, provider.TransportWebSocket, provider.TransportHTTPS:
		p.Transport = t
	default:
		return p, nil, credentials{}, usageError(fmt.Errorf("--transport %q: want auto, websocket or https", t))
	}
	setup.AddEnvSecrets(env.Secrets, env.Environment(), env.Getenv, cfg, p)
	setup.AddAuthFileSecrets(env.Secrets, a.home, env.Stderr)
	httpClient, err := modelclient.NewHTTPClient(setup.CAFile(cfg, env.Getenv))
	if err != nil {
		return p, nil, credentials{}, usageError(err)
	}
	var creds credentials
	httpClient = setup.WithSecrets(httpClient, env.Secrets, func() []string { return managerSecrets(creds.auth) })
	if p.Demo {
		base, stop, err := demo.Start(ctx, demo.Options{Faults: true, Pace: demoPace(env)})
		if err != nil {
			return p, nil, credentials{}, &exitcode.Error{Code: exitcode.Failed, Err: err}
		}
		a.closers = append(a.closers, stop)
		p.BaseURL = base
		a.notices = append(a.notices, "using the offline demo provider (scripted answers, no API key, no network)")
	} else if creds.auth, creds.source, err = a.credentials(&p, httpClient, o.Notice); err != nil {
		return p, nil, credentials{}, &exitcode.Error{Code: exitcode.Auth, Err: err}
	}
	p.BaseURL = p.APIRoot()
	if o.WaitForNetwork {
		p.ConnectionMaxWait = 0
	}
	return p, httpClient, creds, nil
}

// credentials are a provider's credentials and where they come from.
type credentials struct {
	auth   modelclient.Credentials
	source string
}

// managerSecrets are the current credentials of an auth.json login (a
// refreshed refresh token), when creds is one.
func managerSecrets(creds modelclient.Credentials) []string {
	m, ok := creds.(*auth.Manager)
	if !ok {
		return nil
	}
	f := m.File()
	if t := f.Tokens; t != nil {
		return []string{f.APIKey(), t.AccessToken, t.RefreshToken, t.IDToken}
	}
	return []string{f.APIKey()}
}

// clientOptions are the model client's options for provider p.
func (a *App) clientOptions(o Options, p provider.Info, creds credentials, hc *http.Client) modelclient.Options {
	cfg, env := a.cfg, o.Env
	// One retry gate per provider and machine: every agent process of this
	// AGENT_HOME (chats, exec, batch jobs, agent proxy) shares it.
	g := setup.OpenGate(env, a.home, p.ID, cmp.Or(o.MaxResends, cfg.MaxConcurrentResends, config.DefaultMaxConcurrentResends), a.logger)
	return modelclient.Options{
		Provider:         p,
		Auth:             creds.auth,
		Originator:       o.Originator,
		Version:          o.Version,
		Getenv:           env.Getenv,
		HTTPClient:       hc,
		ReadBatch:        streamReadBatch,
		Sleep:            env.Sleep,
		Rand:             env.Rand,
		Logger:           a.logger,
		Gate:             g,
		CredentialSource: creds.source,
		OutputLimit:      outputLimit(cfg.Catalog),
	}
}

// startWorkspace resolves the workspace of -C and starts the MCP servers
// (waiting for them with WaitMCP).
func (a *App) startWorkspace(ctx context.Context, o Options, p provider.Info) (err error) {
	cfg, env := a.cfg, o.Env
	a.workspaceFor = func(dir, sandbox, approval string, headless bool) (Workspace, error) {
		if dir == "" {
			dir = o.Cd
		}
		ws, err := newWorkspace(cfg, dir, cmp.Or(sandbox, o.Sandbox), cmp.Or(approval, o.Approval), env.Getenv, env.Environment())
		if err != nil {
			return Workspace{}, err
		}
		ws.Sandbox.WritableRoots = slices.Concat(ws.Sandbox.WritableRoots, o.AddDirs)
		// Chat Completions and Messages have no custom tools: apply_patch
		// is a function.
		ws.FreeformPatch = p.CustomTools && p.WireAPI == provider.WireAPIResponses
		ws.Headless = headless
		// The agent's home stays read-only to the model's commands and
		// patches, even inside a writable root: a config written there
		// would run its MCP servers unsandboxed at the next start. The
		// commands do not even see it: its credentials, sessions and
		// locks are none of their business.
		ws.Sandbox.ReadOnlyPaths = []string{a.home}
		ws.Sandbox.HiddenPaths = []string{a.home}
		return ws, nil
	}
	if a.ws, err = a.workspaceFor("", "", "", o.Approve == nil); err != nil {
		return usageError(err)
	}
	a.startMCP(ctx, o.MCPNotice, o.AskUser)
	if o.WaitMCP && a.mcpServers != nil {
		select {
		case <-a.mcpServers.Started():
		case <-ctx.Done():
			return &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("interrupted while MCP servers started")}
		}
	}
	return nil
}

// sessionOptions builds the options every session of the app starts from,
// and the notify program's observer.
func (a *App) sessionOptions(o Options, p provider.Info) error {
	cfg := a.cfg
	base, compact, err := instructions(cfg, a.home)
	if err != nil {
		return usageError(err)
	}
	a.opts = session.Options{
		Instructions:               base,
		CompactPrompt:              compact,
		UnboundedConnectionRetries: cfg.Features.UnboundedConnectionRetries,
		ConnectionMaxWait:          p.ConnectionMaxWait,
		OutputSchema:               o.OutputSchema,
		AskUser:                    o.AskUser,
		Continue: session.ContinuePolicy{Enabled: cfg.AutoContinue.Enabled && !o.NoAutoContinue,
			Delays: cfg.AutoContinue.Delays, Prompt: cfg.AutoContinue.Prompt},
		AutoCompactTokens:    cfg.AutoCompactTokens(),
		AutoCompactFor:       cfg.AutoCompactTokensFor, // the window of the model in use
		CompactKeepToolCalls: keepToolCalls(cfg),
		Goals: session.GoalLimits{Enabled: cfg.Features.Goals, Tokens: cfg.Goals.MaxGoalTokenBudget,
			Turns: int(min(cfg.Goals.MaxGoalTurns, 1<<20)), WallTime: time.Duration(min(cfg.Goals.MaxGoalWallTimeSeconds, 1<<32)) * time.Second},
		HideReasoning: cfg.HideAgentReasoning,
		Price:         priceOf(cfg.Catalog),
		MaxCostUSD:    cmp.Or(o.MaxCostUSD, cfg.MaxCostUSD),
		Health:        a.health,
		Now:           a.env.Now,
	}
	return nil
}

// keepToolCalls is compact_keep_tool_calls as the session takes it: 0
// for its default when unset, negative for none.
func keepToolCalls(cfg config.Config) int {
	switch n := cfg.CompactKeepToolCalls; {
	case n == nil:
		return 0
	case *n == 0:
		return -1
	default:
		return int(*n)
	}
}

// Close releases what the app holds, in reverse order.
func (a *App) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}

// Config is the configuration the app runs with.
func (a *App) Config() config.Config { return a.cfg }

// Home is the agent home the app works in.
func (a *App) Home() string { return a.home }

// Where is the home and how it was found ([config.FindHome]).
func (a *App) Where() config.Home { return a.where }

// Workspace is the workspace of -C (the one sessions work in unless
// their [Spec] names another).
func (a *App) Workspace() Workspace { return a.ws }

// Provider is the configured provider sessions talk to (before any
// fallback).
func (a *App) Provider() provider.Info { return a.clientOpts.Provider }

// Notices are one-line facts for the user about how the app was built
// (the demo provider, a fallback left out), for the front end to show.
func (a *App) Notices() []string { return a.notices }

// MCP runs the configured MCP servers; nil when there are none.
func (a *App) MCP() *mcp.Manager { return a.mcpServers }

// ContinuePrompt is the prompt that continues an interrupted or paused
// turn, as auto-continue sends it.
func (a *App) ContinuePrompt() string { return a.opts.Continue.Snapshot().Prompt }
