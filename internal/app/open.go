package app

import (
	"context"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/rollout/recording"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// SessionOptions are a session's own settings over the app's config (an
// MCP call's): "" keeps the app's.
type SessionOptions struct {
	Cwd, Sandbox, ApprovalPolicy string
	Approve                      func(ctx context.Context, req tools.ApprovalRequest) tools.Decision
	Model                        string
	BaseInstructions             string
	DeveloperInstructions        string
}

// OpenSession opens a session of its own: a new one (ro nil) or the
// recorded ro, continued in its directory unless o names another, with
// o's sandbox, approval policy, model and instructions over the app's
// config. The caller must Close it.
func (a *App) OpenSession(ctx context.Context, o SessionOptions, ro *rollout.Rollout) (_ *Session, err error) {
	sc := &Session{ID: NewSessionID()}
	defer func() {
		if err != nil {
			sc.Close()
		}
	}()
	cwd := o.Cwd
	if ro != nil {
		sc.ID = ro.Meta.ID
		if cwd == "" {
			cwd = ro.Meta.Cwd
		}
	}
	ws, err := newWorkspace(a.cfg, cwd, o.Sandbox, o.ApprovalPolicy, a.env.Getenv, a.env.environ())
	if err != nil {
		return nil, err
	}
	ws.FreeformPatch = a.client.Provider().CustomTools
	ws.Sandbox.ReadOnlyPaths = []string{a.home} // as the app's workspaceFor
	ws.Sandbox.HiddenPaths = []string{a.home}
	set, err := ws.tools()
	if err != nil {
		return nil, err
	}
	sc.closers = append(sc.closers, func() { set.Close() })
	if a.mcpServers != nil {
		set.AddSource(a.mcpServers.Tools)
	}
	opts := a.opts
	opts.Tools, opts.ApprovalPolicy, opts.Approve = set, ws.Policy, o.Approve
	if o.BaseInstructions != "" {
		opts.Instructions = o.BaseInstructions
	}
	co := a.clientOpts
	if o.Model != "" {
		co.Model = o.Model
	}
	opts.Client, opts.Fallback = sc.client(co), nil
	for i, fo := range a.fallbackClients {
		opts.Fallback = append(opts.Fallback, session.Alternative{Candidate: a.fallbacks[i].Candidate, Client: sc.client(fo)})
	}
	if ro == nil {
		cfg := a.cfg
		if o.DeveloperInstructions != "" {
			cfg.DeveloperInstructions = o.DeveloperInstructions
		}
		if opts.Context, err = ws.context(cfg, a.home, a.env.now()); err != nil {
			return nil, err
		}
		closeRec, rec, err := a.recordAs(ctx, &opts, sc.ID, ws.Cwd)
		if err != nil {
			return nil, err
		}
		sc.rec = rec
		sc.closers = append(sc.closers, closeRec)
	} else if err := a.resumeInto(ctx, &opts, sc, ro); err != nil {
		return nil, err
	}
	sc.Session = session.New(opts)
	return sc, nil
}

// resumeInto sets opts to continue the recorded ro, appending to its file
// (held by sc until it closes).
func (a *App) resumeInto(ctx context.Context, opts *session.Options, sc *Session, ro *rollout.Rollout) error {
	r, err := rollout.Open(ctx, ro.Path)
	if err != nil {
		return err
	}
	sc.closers = append(sc.closers, func() { r.Close() })
	sc.rec, sc.name = r, ro.Name
	opts.Recorder = recording.New(r, a.secrets)
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
