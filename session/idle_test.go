package session_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
)

// TestIdleStallThenSuccess runs on the fake clock over both transports: a
// stream that stalls after a delta is dropped after the idle timeout,
// retracted, and retried; the answer appears once.
func TestIdleStallThenSuccess(t *testing.T) {
	for _, wsMode := range []bool{false, true} {
		name := map[bool]string{false: "sse", true: "ws"}[wsMode]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := rt.NewPipeServer(t, rt.Script{
					rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "stuck "), rt.Stall()),
					rt.Reply("r2", "m2", "fresh answer"),
				})
				p := provider.Custom("fake")
				p.BaseURL, p.SupportsWebSockets = srv.URL, wsMode
				p.StreamIdleTimeout = 90 * time.Second
				client := modelclient.New(modelclient.Options{
					Provider: p, HTTPClient: srv.Client(), Rand: func() float64 { return 0.5 },
				})
				defer client.Close()
				sess := session.New(session.Options{Client: client})
				var events []session.Event
				start := time.Now()
				if err := sess.Turn(context.Background(), "hi", func(ev session.Event) { events = append(events, ev) }); err != nil {
					t.Fatal(err)
				}
				// 90 s idle, then the 200 ms idle-class backoff.
				if d := time.Since(start); d != 90*time.Second+200*time.Millisecond {
					t.Errorf("turn took %v on the fake clock; want 90.2s", d)
				}
				var got []string
				for _, ev := range events {
					switch e := ev.(type) {
					case session.TextDelta:
						got = append(got, "delta:"+e.Delta)
					case session.Retracted:
						got = append(got, "retracted")
					case session.Retry:
						got = append(got, "retry:"+e.Layer+":"+e.Class)
					case session.MessageDone:
						got = append(got, "done:"+e.Text)
					}
				}
				want := []string{"delta:stuck ", "retracted", "retry:stream:idle", "delta:fresh ", "delta:answer", "done:fresh answer"}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		})
	}
}
