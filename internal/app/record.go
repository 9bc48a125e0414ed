package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session/checkpoint"
	"github.com/agentcli/agent/session/failover"
)

// FindSession resolves --last (in the app's directory unless all) or an
// id (or prefix, or /rename's name) to the recorded session, as the index
// lists it (its rollout's Path, its Cwd).
func (a *App) FindSession(ctx context.Context, id string, last, all bool) (rollout.Entry, error) {
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
		return ent, errors.New("say which session: an ID or --last")
	}
	var ae *rollout.AmbiguousError
	if errors.As(err, &ae) {
		return ent, ambiguousSession(ae)
	}
	if errors.Is(err, rollout.ErrNotFound) {
		if id != "" {
			return ent, fmt.Errorf("no session %q", id)
		}
		return ent, errors.New("no recorded session in this directory (try --all)")
	}
	return ent, err
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

// stateOf folds events already loaded (a session resumed with its
// transcript) as [rollout.LoadState] folds them as they are read.
func stateOf(events []rollout.EventMsg) *recordedState {
	st := &recordedState{}
	for _, ev := range events {
		st.fold(ev)
	}
	return st
}

// recordedState is what a resumed session takes from its recording's
// events: its turns and its last provider switch.
type recordedState struct {
	turns    []checkpoint.Turn
	switched *failover.Candidate
}

// fold takes one recorded event, in order.
func (st *recordedState) fold(ev rollout.EventMsg) {
	st.turns = checkpoint.Fold(st.turns, ev)
	if ev.Type == rollout.EventProviderSwitch {
		st.switched = &failover.Candidate{Provider: ev.Provider, Model: ev.Model}
	}
}

// provider is where a recorded session's last responses came from: the
// last provider_switch folded into st, else the provider it was created
// with; mixed when it switched at all.
func (st *recordedState) provider(ro *rollout.Rollout) (from failover.Candidate, mixed bool) {
	if st.switched != nil {
		return *st.switched, true
	}
	return failover.Candidate{Provider: ro.Meta.ModelProvider, Model: ro.Meta.Model}, false
}
