package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/rollout/recording"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/failover"
)

// record starts persisting a new session (unless ephemeral).
func (e *engine) record(opts *session.Options) error {
	closeRec, err := e.recordAs(opts, e.sessionID, e.ws.cwd)
	if err != nil {
		return err
	}
	e.closers = append(e.closers, closeRec)
	e.keepOpen(e.sessionID, closeRec)
	return nil
}

// keepOpen remembers how to close session id's rollout.
func (e *engine) keepOpen(id string, closeRec func()) {
	if e.open == nil {
		e.open = map[string]func(){}
	}
	e.open[id] = closeRec
}

// release closes session id's rollout (the chat left it); closing it
// again at exit does nothing.
func (e *engine) release(id string) {
	if f := e.open[id]; f != nil {
		f()
		delete(e.open, id)
	}
}

// recordAs starts persisting session id, working in cwd, into opts
// (unless ephemeral); the returned func closes its rollout.
func (e *engine) recordAs(opts *session.Options, id, cwd string) (closeRec func(), err error) {
	if e.ephemeral {
		return func() {}, nil
	}
	instructions := opts.Instructions // instructions / model_instructions_file
	if instructions == "" {
		instructions = session.DefaultInstructions
	}
	r, err := rollout.Create(e.home, rollout.SessionMeta{
		ID: id, Cwd: cwd, Originator: e.originator, CLIVersion: version,
		ModelProvider: e.client.Provider().ID, Model: e.cfg.Model, Instructions: instructions,
	}, time.Now())
	if err != nil {
		return nil, fmt.Errorf("record the session: %w", err)
	}
	opts.Recorder = recording.New(r, e.secrets)
	opts.Ledger = session.NewLedger(recording.LedgerSink(r))
	return func() { r.Close() }, nil
}

// resume loads a recorded session and keeps appending to its file.
func (e *engine) resume(path string) (*session.Session, *rollout.Rollout, error) {
	ro, err := rollout.Load(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := rollout.Open(path)
	if err != nil {
		return nil, nil, err
	}
	e.closers = append(e.closers, func() { r.Close() })
	e.keepOpen(ro.Meta.ID, func() { r.Close() })
	e.sessionID = ro.Meta.ID
	opts := e.opts
	opts.Recorder = recording.New(r, e.secrets)
	opts.Resumed, opts.Usage = ro.History, ro.Total
	opts.ResumedFrom, opts.ResumedMixed = resumedProvider(ro)
	opts.Ledger = session.NewLedger(recording.LedgerSink(r))
	var entries []session.LedgerEntry
	for _, le := range ro.Ledger {
		entries = append(entries, session.LedgerEntry{CallID: le.CallID, Name: le.Name, State: session.CallState(le.State)})
	}
	opts.Ledger.Restore(entries)
	return session.New(opts), ro, nil
}

// findSession resolves --last / an id (or prefix) to a rollout path.
func (e *engine) findSession(id string, last, all bool) (string, error) {
	var (
		ent rollout.Entry
		err error
	)
	switch {
	case id != "":
		ent, err = rollout.Find(e.home, id)
	case last:
		ent, err = rollout.Latest(e.home, e.ws.cwd, all)
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
		if m.Title != "" {
			fmt.Fprintf(&b, "  %q", m.Title)
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
