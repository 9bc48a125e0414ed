package tui

import (
	"fmt"
	"testing"

	"github.com/agentcli/agent/rollout"
)

// TestTranscriptLeavesOutRewoundTurns: a resumed chat shows the
// conversation as /rewind left it, not the turns it cut.
func TestTranscriptLeavesOutRewoundTurns(t *testing.T) {
	var evs []rollout.EventMsg
	turn := func(q, a string) {
		evs = append(evs, rollout.EventMsg{Type: rollout.EventTurnStarted}, rollout.EventMsg{Type: rollout.EventUserMessage, Message: q},
			rollout.EventMsg{Type: rollout.EventAgentMessage, Message: a}, rollout.EventMsg{Type: rollout.EventTurnCompleted})
	}
	turn("one", "answer one")
	turn("two", "answer two")
	turn("three", "answer three")
	evs = append(evs, rollout.EventMsg{Type: rollout.EventRolledBack, NumTurns: 2})
	turn("four", "answer four")
	var got []string
	for _, m := range Transcript(&rollout.Rollout{Events: evs}) {
		got = append(got, m.Text)
	}
	if fmt.Sprint(got) != "[one answer one four answer four]" {
		t.Errorf("transcript = %q", got)
	}
}
