package session_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/retry/gate"
	"github.com/agentcli/agent/session"
)

// classRun is what one turn whose first attempt failed with one class
// showed: its retries, its gate cooldowns and its fallback warnings.
type classRun struct {
	retries   []modelclient.Retry
	cooldowns int
	warnings  []string
}

// runClass runs one turn on the fake clock against script, over
// WebSocket when ws (with no stream retries, so the first failure
// decides the transport), through a retry gate.
func runClass(t *testing.T, script rt.Script, ws bool) classRun {
	t.Helper()
	var run classRun
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, script)
		p := provider.Custom("test")
		p.BaseURL, p.SupportsWebSockets = srv.URL, ws
		p.StreamIdleTimeout = 10 * time.Second
		if ws {
			p.StreamMaxRetries = 0
		}
		var mu sync.Mutex
		ctx := gate.WithTrace(context.Background(), &gate.Trace{Cooldown: func(time.Duration) {
			mu.Lock()
			run.cooldowns++
			mu.Unlock()
		}})
		client := modelclient.New(modelclient.Options{
			Provider: p, HTTPClient: srv.Client(), Gate: gate.New(1),
			Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
			Rand:  func() float64 { return 0.5 },
		})
		defer client.Close()
		sess := session.New(session.Options{Client: client})
		_ = sess.Turn(ctx, "hi", func(ev session.Event) {
			switch e := ev.(type) {
			case session.Retry:
				run.retries = append(run.retries, e.Retry)
			case session.Warning:
				run.warnings = append(run.warnings, e.Message)
			}
		})
	})
	return run
}

// TestClassBehaviourIsTheTable: for every retry class, a failure of that
// class is treated as the retry policy table (provider.Behaviour) says,
// by every layer: the HTTP layer retries it or leaves it to the stream
// layer or its overload schedule, its wait cools the retry gate or not,
// Ctrl+R may cut that wait short or not, and a stream budget spent on it
// over WebSocket switches the session to HTTPS or not. A layer that
// decided a class's behaviour by its name would disagree with the table
// for some row here, and a class added to the table without a failure
// here fails the test.
func TestClassBehaviourIsTheTable(t *testing.T) {
	stall := rt.Stream(rt.Created("r0"), rt.Stall())
	// beforeFirstByte answers the request itself; overWS fails a
	// WebSocket attempt (a hanging handshake would be a transport
	// failure, so idle stalls a stream).
	beforeFirstByte := map[string]rt.Attempt{
		provider.ClassTransport:   rt.Status(408),
		provider.ClassServerError: rt.Status(503),
		provider.ClassRateLimit:   rt.Status(429),
		provider.ClassOverloaded:  rt.Status(529),
		provider.ClassIdle:        rt.Hang(),
	}
	overWS := map[string]rt.Attempt{
		provider.ClassTransport:   rt.Status(408),
		provider.ClassServerError: rt.Status(503),
		provider.ClassRateLimit:   rt.Status(429),
		provider.ClassOverloaded:  rt.Status(529),
		provider.ClassIdle:        stall,
	}
	for _, class := range provider.Classes() {
		does := provider.Behaviour(class)
		t.Run(class, func(t *testing.T) {
			first, ok := beforeFirstByte[class]
			if !ok {
				t.Fatalf("no failure of class %q here: add one", class)
			}
			run := runClass(t, rt.Script{first, rt.Reply("r", "m", "ok")}, false)
			if len(run.retries) != 1 || run.retries[0].Class != class {
				t.Fatalf("retries %+v; want one of class %s", run.retries, class)
			}
			r := run.retries[0]
			layer := modelclient.LayerStream
			switch {
			case does.HTTP:
				layer = modelclient.LayerHTTP
			case does.Overload:
				layer = modelclient.LayerOverload
			}
			if r.Layer != layer {
				t.Errorf("retried by the %s layer; the table (%+v) says %s", r.Layer, does, layer)
			}
			if cooled := run.cooldowns > 0; cooled != does.Cooldown {
				t.Errorf("the wait cooled the gate: %v; the table says %v", cooled, does.Cooldown)
			}
			if allowed := session.RetryNowAllowed(r); allowed != !does.Firm {
				t.Errorf("Ctrl+R may cut the wait short: %v; the table says firm: %v", allowed, does.Firm)
			}

			ws := runClass(t, rt.Script{overWS[class], rt.Reply("r", "m", "ok")}, true)
			fell := len(ws.warnings) == 1 && strings.HasPrefix(ws.warnings[0], "Falling back from WebSockets to HTTPS")
			if fell != !does.TransportNeutral {
				t.Errorf("fell back to HTTPS: %v (warnings %q); the table says neutral to the transport: %v",
					fell, ws.warnings, does.TransportNeutral)
			}
		})
	}
}
