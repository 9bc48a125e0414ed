package app

import (
	"context"
	"errors"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/transport"
)

// Fork is the chat's /fork and Esc Esc: a new session, recorded as forked
// from the one in use, holding its first keep turns (all for -1), made
// the session of the next turns. Its recording is returned for the
// transcript.
func (c *Chat) Fork(ctx context.Context, keep int) (*rollout.Rollout, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	path, err := c.a.FindSession(ctx, c.cur.ID, false, false)
	if err != nil {
		return nil, err
	}
	sp := c.spec
	sp.From, sp.Fork, sp.ForkTurns = path, true, keep
	t, err := c.a.Open(ctx, sp)
	if err != nil {
		return nil, err
	}
	c.use(t)
	return t.Recorded, nil
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
