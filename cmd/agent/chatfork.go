package main

import (
	"context"
	"errors"
	"time"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/tui"
)

// fork is the chat's /fork and Esc Esc: a new session, recorded as forked
// from the one in use, holding its first keep turns (all for -1), made
// the session of the next turns.
func (s *switchboard) fork(keep int, now time.Time) (tui.Resumed, error) {
	_, id := s.current()
	path, err := s.e.findSession(id, false, false)
	if err != nil {
		return tui.Resumed{}, err
	}
	src, err := rollout.Load(path)
	if err != nil {
		return tui.Resumed{}, err
	}
	if keep >= 0 {
		if err := firstTurns(src, keep); err != nil {
			return tui.Resumed{}, err
		}
	}
	r, err := rollout.Fork(s.e.home, src, newSessionID(), now)
	if err != nil {
		return tui.Resumed{}, err
	}
	r.Close()
	sess, ro, err := s.e.resume(r.Path())
	if err != nil {
		return tui.Resumed{}, err
	}
	return tui.Resumed{Engine: s.use(sess, ro.Meta.ID), Messages: transcript(ro)}, nil
}

// firstTurns cuts ro down to its first keep turns: the transcript's
// events and the history before its keep+1th user message, and the
// ledger of the calls left in it.
func firstTurns(ro *rollout.Rollout, keep int) error {
	users := 0
	for i, ev := range ro.Events {
		if ev.Type == rollout.EventUserMessage {
			if users == keep {
				ro.Events = ro.Events[:i]
				break
			}
			users++
		}
	}
	users = 0
	calls := map[string]bool{}
	for i, it := range ro.History {
		if it.Origin == transport.OriginSummary {
			return errors.New("the conversation was compacted: it can only be forked at its latest message")
		}
		if it.Type == "message" && it.Role == "user" && it.Origin == "" {
			if users == keep {
				ro.History = ro.History[:i]
				break
			}
			users++
		}
		if it.CallID != "" {
			calls[it.CallID] = true
		}
	}
	var ledger []rollout.LedgerEntry
	for _, le := range ro.Ledger {
		if calls[le.CallID] {
			ledger = append(ledger, le)
		}
	}
	ro.Ledger = ledger
	return nil
}

// forkHook is the tui's Fork hook, dated by now.
func (s *switchboard) forkHook(now func() time.Time) func(context.Context, int) (tui.Resumed, error) {
	return func(_ context.Context, keep int) (tui.Resumed, error) { return s.fork(keep, now()) }
}
