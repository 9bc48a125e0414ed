package session_test

import (
	"context"
	"fmt"
	"net/http"
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

// stormTransport answers 429 (Retry-After: 10) while the storm lasts on
// the fake clock, from one scripted server, and afterwards from another.
type stormTransport struct {
	until     time.Time
	storm, ok http.RoundTripper
}

func (s stormTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if time.Now().Before(s.until) {
		return s.storm.RoundTrip(r)
	}
	return s.ok.RoundTrip(r)
}

// stormRun runs n sessions' turns at once on the fake clock against a
// provider that refuses every request with 429 (Retry-After: 10) for
// 35 s: with one gate for all of them (agent's subagents: one app, one
// gate), or a gate each (n separate programs without agent's gate). It
// returns the 429s sent, the requests after the storm, and when the last
// turn ended.
func stormRun(t *testing.T, n int, shared bool) (refused, after int, took time.Duration) {
	var script rt.Script
	for range 20 * n {
		script = append(script, rt.Status(429, "Retry-After", "10"))
	}
	storm := rt.NewPipeServer(t, script)
	var replies rt.Script
	for i := range n {
		replies = append(replies, rt.Reply(fmt.Sprint("r", i), fmt.Sprint("m", i), "done"))
	}
	ok := rt.NewPipeServer(t, replies)
	start := time.Now()
	hc := &http.Client{Transport: stormTransport{until: start.Add(35 * time.Second),
		storm: storm.PipeClient().Transport, ok: ok.PipeClient().Transport}}
	p := provider.Custom("fake")
	p.BaseURL = storm.URL
	one := gate.New(3) // [retry] max_concurrent_resends' default
	var wg sync.WaitGroup
	for i := range n {
		g := one
		if !shared {
			g = gate.New(3)
		}
		client := modelclient.New(modelclient.Options{Provider: p, HTTPClient: hc, Gate: g, Rand: func() float64 { return 0.5 }})
		t.Cleanup(func() { client.Close() })
		sess := session.New(session.Options{Client: client})
		wg.Go(func() {
			if err := sess.Turn(context.Background(), fmt.Sprint("task ", i), func(session.Event) {}); err != nil {
				t.Errorf("session %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	return len(storm.Requests()), len(ok.Requests()), time.Since(start)
}

// TestFanOutUnderA429Storm: subagents share their app's retry gate, so
// under a 429 storm N of them send, after the first answer, what one
// session sends alone: one request per cooldown (the gate closes at the
// 429, waits the server's delay for everyone, then lets one probe through
// before the rest). Only the first attempts, sent before anyone had an
// answer, are N. A gate each (N separate programs) multiplies the
// requests by N.
func TestFanOutUnderA429Storm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 6
		single, _, singleTook := stormRun(t, 1, true)
		refused, after, took := stormRun(t, n, true)
		alone, _, _ := stormRun(t, n, false)
		t.Logf("429s during a 35 s storm: one session %d (done at %v); %d sessions sharing a gate %d (done at %v), after the storm %d; %d sessions with a gate each %d",
			single, singleTook, n, refused, took, after, n, alone)
		if single != 4 {
			t.Errorf("one session sent %d requests into the storm; want 4 (t=0, 10, 20, 30)", single)
		}
		// At most one session's requests plus the others' first attempts
		// (fewer when a first attempt starts after another's 429 closed
		// the gate).
		if most := single + n - 1; refused < single || refused > most {
			t.Errorf("%d sessions sharing the gate sent %d requests into the storm; want %d to %d: one session's %d plus at most the other %d first attempts",
				n, refused, single, most, single, n-1)
		}
		if after != n || took != singleTook {
			t.Errorf("after the storm: %d requests, done at %v; want one each (%d), done when one session is (%v)", after, took, n, singleTook)
		}
		if alone != n*single {
			t.Errorf("%d sessions with a gate each sent %d requests into the storm; want %d", n, alone, n*single)
		}
	})
}
