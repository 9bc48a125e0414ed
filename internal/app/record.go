package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/rollout/recording"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/failover"
)

// record starts persisting a new session (unless ephemeral: rec is nil
// then), closed with the app.
func (a *App) record(ctx context.Context, opts *session.Options) (rec *rollout.Recorder, err error) {
	closeRec, rec, err := a.recordAs(ctx, opts, a.sessionID, a.ws.Cwd)
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, closeRec)
	a.keepOpen(a.sessionID, closeRec)
	return rec, nil
}

// keepOpen remembers how to close session id's rollout.
func (a *App) keepOpen(id string, closeRec func()) {
	if a.open == nil {
		a.open = map[string]func(){}
	}
	a.open[id] = closeRec
}

// release closes session id's rollout (the chat left it, so it can be
// resumed again); closing it again at exit does nothing.
func (a *App) release(id string) {
	if f := a.open[id]; f != nil {
		f()
		delete(a.open, id)
	}
}

// recordAs starts persisting session id, working in cwd, into opts
// (unless ephemeral: rec is nil then); closeRec closes its rollout.
func (a *App) recordAs(ctx context.Context, opts *session.Options, id, cwd string) (closeRec func(), rec *rollout.Recorder, err error) {
	if a.ephemeral {
		return func() {}, nil, nil
	}
	instructions := opts.Instructions // instructions / model_instructions_file
	if instructions == "" {
		instructions = session.DefaultInstructions
	}
	r, err := rollout.Create(ctx, a.home, rollout.SessionMeta{
		ID: id, Cwd: cwd, Originator: a.originator, CLIVersion: a.version,
		ModelProvider: a.client.Provider().ID, Model: a.cfg.Model, Instructions: instructions,
	}, a.env.now())
	if err != nil {
		return nil, nil, fmt.Errorf("record the session: %w", err)
	}
	opts.Recorder = recording.New(r, a.secrets)
	opts.Ledger = session.NewLedger(recording.LedgerSink(r))
	return func() { r.Close() }, r, nil
}

// Resume loads the session recorded at path and keeps appending to its
// file; the session is the app's.
func (a *App) Resume(ctx context.Context, path string) (*Session, *rollout.Rollout, error) {
	ro, err := rollout.Load(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := rollout.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	a.closers = append(a.closers, func() { r.Close() })
	a.keepOpen(ro.Meta.ID, func() { r.Close() })
	a.sessionID, a.started = ro.Meta.ID, true
	opts := a.opts
	opts.Recorder = recording.New(r, a.secrets)
	opts.Resumed, opts.Usage = ro.History, ro.Total
	opts.ResumedFrom, opts.ResumedMixed = resumedProvider(ro)
	opts.Ledger = session.NewLedger(recording.LedgerSink(r))
	var entries []session.LedgerEntry
	for _, le := range ro.Ledger {
		entries = append(entries, session.LedgerEntry{CallID: le.CallID, Name: le.Name, State: session.CallState(le.State)})
	}
	opts.Ledger.Restore(entries)
	return &Session{Session: session.New(opts), ID: ro.Meta.ID, rec: r, name: ro.Name}, ro, nil
}

// Fork copies the history of the session recorded at path into a new
// recording, dated by the app's clock, and resumes that.
func (a *App) Fork(ctx context.Context, path string) (*Session, *rollout.Rollout, error) {
	return a.ForkAt(ctx, path, -1)
}

// ForkAt is [App.Fork] keeping the first keep turns of the session (all
// for -1).
func (a *App) ForkAt(ctx context.Context, path string, keep int) (*Session, *rollout.Rollout, error) {
	src, err := rollout.Load(path)
	if err != nil {
		return nil, nil, err
	}
	if keep >= 0 {
		if err := firstTurns(src, keep); err != nil {
			return nil, nil, err
		}
	}
	if a.started {
		a.sessionID = NewSessionID() // the id in use is the session forked from
	}
	r, err := rollout.Fork(ctx, a.home, src, a.sessionID, a.env.now())
	if err != nil {
		return nil, nil, err
	}
	r.Close()
	return a.Resume(ctx, r.Path())
}

// FindSession resolves --last (in the app's directory unless all) or an
// id (or prefix) to a rollout path.
func (a *App) FindSession(ctx context.Context, id string, last, all bool) (string, error) {
	var (
		ent rollout.Entry
		err error
	)
	switch {
	case id != "":
		ent, err = rollout.Find(ctx, a.home, id)
	case last:
		ent, err = rollout.Latest(ctx, a.home, a.ws.Cwd, all)
	default:
		return "", errors.New("say which session: an ID or --last")
	}
	var ae *rollout.AmbiguousError
	if errors.As(err, &ae) {
		return "", ambiguousSession(ae)
	}
	if errors.Is(err, rollout.ErrNotFound) {
		if id != "" {
			return "", fmt.Errorf("no session %q", id)
		}
		return "", errors.New("no recorded session in this directory (try --all)")
	}
	return ent.Path, err
}

// ambiguousLimit caps the sessions an ambiguous prefix lists.
const ambiguousLimit = 20

// ambiguousSession says which sessions a prefix matched, newest first, so
// the user can pick one by a longer prefix or the full id.
func ambiguousSession(ae *rollout.AmbiguousError) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%q matches %d sessions; give more of the id:", ae.Prefix, len(ae.Matches))
	for i, m := range ae.Matches {
		if i == ambiguousLimit {
			fmt.Fprintf(&b, "\n  … and %d more", len(ae.Matches)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s  %s  %s", m.ID, m.Updated.Local().Format("2006-01-02 15:04"), m.Cwd)
		if m.Label() != "" {
			fmt.Fprintf(&b, "  %q", m.Label())
		}
	}
	return errors.New(b.String())
}

// resumedProvider is where a recorded session's last responses came from:
// the last provider_switch, else the provider it was created with; mixed
// when it switched at all.
func resumedProvider(ro *rollout.Rollout) (from failover.Candidate, mixed bool) {
	from = failover.Candidate{Provider: ro.Meta.ModelProvider, Model: ro.Meta.Model}
	for _, ev := range ro.Events {
		if ev.Type == rollout.EventProviderSwitch {
			from, mixed = failover.Candidate{Provider: ev.Provider, Model: ev.Model}, true
		}
	}
	return from, mixed
}
