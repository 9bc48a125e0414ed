package session_test

import (
	"context"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
)

// TestRetryNow: Session.RetryNow pressed once a retry is announced ends
// that wait at once (nothing waits on the clock), for a retry of the
// stream layer and a continuation alike; a press before the announcement,
// meant for an earlier wait, does not cut the next one.
func TestRetryNow(t *testing.T) {
	cut := rt.Stream(rt.Created("r"), rt.Drop())
	h := newHarness(t, rt.Script{cut, cut, rt.Reply("r3", "m3", "done")}, withStreamRetries(1),
		withContinue(session.ContinuePolicy{Enabled: true, Delays: []time.Duration{10 * time.Second}}))
	err := h.sess.Turn(context.Background(), "task", func(ev session.Event) {
		h.events = append(h.events, ev)
		if _, ok := ev.(session.Retry); ok {
			h.sess.RetryNow()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var layers []string
	for _, r := range h.retries() {
		layers = append(layers, r.Layer)
	}
	if len(h.srv.Requests()) != 3 || len(h.sleeps) != 0 || len(layers) != 2 ||
		layers[0] != modelclient.LayerStream || layers[1] != session.LayerContinue {
		t.Errorf("%d requests, waits %v, retries %v; want 3 requests, no wait, a stream retry and a continuation",
			len(h.srv.Requests()), h.sleeps, layers)
	}

	h = newHarness(t, rt.Script{cut, rt.Reply("r2", "m2", "done")}, withStreamRetries(1))
	h.sess.RetryNow() // nothing waits yet, and the retry's announcement drops it
	if err := h.turn(t, "task"); err != nil {
		t.Fatal(err)
	}
	if len(h.sleeps) != 1 {
		t.Errorf("waits %v; want the retry's one wait (a stale press does not cut it)", h.sleeps)
	}
}
