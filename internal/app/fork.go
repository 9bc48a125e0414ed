package app

import (
	"errors"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/transport"
)

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
