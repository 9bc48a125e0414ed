package session_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/retry/gate"
	"github.com/agentcli/agent/session"
)

// TestRetryGateLayers walks one turn through both retry layers with a
// retry gate: the first request passes as a first attempt, every repeat
// (HTTP-layer retry, stream-layer re-send) as a re-send holding a slot,
// rate_limit and overloaded waits are cooldowns of the gate, and a slot is
// given back as soon as an answer's headers arrive, not when its stream
// ends.
func TestRetryGateLayers(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Status(503), // HTTP layer retries
		rt.Stream(rt.Created("r"), rt.TextDelta("m", "cut"), rt.Drop()),            // stream layer re-sends
		rt.Status(429, "Retry-After", "7"),                                         // HTTP retry inside the re-send: cooldown
		rt.Stream(rt.Created("r"), rt.Failed("r", "server_is_overloaded", "busy")), // stream layer: overloaded cooldown
		rt.Stream(rt.Created("r"), rt.Barrier("open"), rt.Stall(), rt.TextDelta("m", "ok"),
			rt.MessageDone("m", "ok"), rt.Completed("r")),
	})
	g := gate.New(1)
	var mu sync.Mutex
	var trace []string
	add := func(s string) {
		mu.Lock()
		trace = append(trace, s)
		mu.Unlock()
	}
	ctx := gate.WithTrace(t.Context(), &gate.Trace{
		Passed: func(resend bool) {
			if resend {
				add("re-send")
			} else {
				add("first attempt")
			}
		},
		Cooldown: func(d time.Duration) { add("cooldown " + d.String()) },
	})
	var sleeps []time.Duration
	p := provider.Custom("test")
	p.BaseURL = srv.URL
	client := modelclient.New(modelclient.Options{
		Provider: p, HTTPClient: srv.Client(), Gate: g,
		Sleep: func(ctx context.Context, d time.Duration) error {
			sleeps = append(sleeps, d)
			if s := g.Stats(); s.Resending != 0 {
				t.Errorf("sleeping %v holds %d slots; a backoff holds none", d, s.Resending)
			}
			return ctx.Err()
		},
		Rand: func() float64 { return 0.5 },
	})
	sess := session.New(session.Options{Client: client})
	go func() {
		<-srv.Reached("open")
		srv.Release()
	}()
	emit := func(ev session.Event) {
		// A delta is read from an open stream: its slot is back already.
		if _, ok := ev.(session.TextDelta); ok {
			if s := g.Stats(); s.Resending != 0 {
				add(fmt.Sprintf("an open stream holds %d slots", s.Resending))
			}
		}
	}
	if err := sess.Turn(ctx, "hi", emit); err != nil {
		t.Fatalf("Turn = %v", err)
	}
	want := []string{"first attempt", "re-send", "re-send", "cooldown 7s", "re-send", "cooldown 1.5s", "re-send"}
	if diff := cmp.Diff(want, trace); diff != "" {
		t.Errorf("gate trace (-want +got):\n%s", diff)
	}
	// 503: 200 ms; cut stream: 200 ms; 429: its Retry-After; overloaded:
	// 1 s scaled up by half (up-only jitter at Rand 0.5).
	if diff := cmp.Diff([]time.Duration{200 * ms, 200 * ms, 7 * time.Second, 1500 * ms}, sleeps); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if s := g.Stats(); s != (gate.Stats{}) {
		t.Errorf("gate after the turn = %+v; want idle", s)
	}
}
