package session_test

import (
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/hooks"
)

// TestRelayBetweenTurns: what another session relays while no turn runs
// reaches the next turn's front end, first, and is not recorded as the
// session's own; at most 100 wait, the oldest dropped.
func TestRelayBetweenTurns(t *testing.T) {
	h := newHarness(t, rt.Script{rt.Reply("r1", "m1", "hi")})
	for i := range 101 {
		h.sess.Relay(session.HookRun{Event: hooks.SubagentStop, Agent: "Euclid", AgentID: string(rune('a' + i%26))})
	}
	if err := h.turn(t, "hello"); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, ev := range h.events {
		if r, ok := ev.(session.HookRun); ok {
			if i != n || r.Agent != "Euclid" {
				t.Fatalf("event %d: %#v; want the relayed runs first", i, ev)
			}
			n++
		}
	}
	if n != 100 {
		t.Errorf("%d relayed runs reached the turn; want 100", n)
	}
	if r := h.events[0].(session.HookRun); r.AgentID != "b" {
		t.Errorf("the first relayed run is %q; want the oldest dropped", r.AgentID)
	}
}
