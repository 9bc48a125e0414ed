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

// TestIdleStallOnEveryWire: the liveness timer holds on the Chat
// Completions and Messages wires as on the Responses API: a stream that
// stalls after a delta is dropped after the idle timeout, retracted and
// retried on the idle class; the answer appears once.
func TestIdleStallOnEveryWire(t *testing.T) {
	for _, tt := range []struct {
		wire          string
		stall, answer rt.Attempt
	}{
		{provider.WireAPIChat, rt.Stream(rt.ChatDelta("stuck "), rt.Stall()), rt.ChatReply("fresh answer")},
		{provider.WireAPIAnthropic, rt.Claude(rt.ClaudeStart("msg_1", 5, 0, 0), rt.ClaudeText(0, "stuck ")[:2], rt.Stall()), rt.ClaudeReply("fresh answer")},
	} {
		t.Run(tt.wire, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := rt.NewPipeServer(t, rt.Script{tt.stall, tt.answer})
				p := provider.Custom("fake")
				p.BaseURL, p.WireAPI = srv.URL, tt.wire
				p.StreamIdleTimeout = 90 * time.Second
				client := modelclient.New(modelclient.Options{Provider: p, HTTPClient: srv.Client(), Rand: func() float64 { return 0.5 }})
				defer client.Close()
				sess := session.New(session.Options{Client: client, Sampling: modelclient.Settings{Model: "m"}})
				var got []string
				start := time.Now()
				err := sess.Turn(context.Background(), "hi", func(ev session.Event) {
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
				})
				if err != nil {
					t.Fatal(err)
				}
				if d := time.Since(start); d != 90*time.Second+200*time.Millisecond {
					t.Errorf("turn took %v on the fake clock; want 90.2s", d)
				}
				want := []string{"delta:stuck ", "retracted", "retry:stream:idle", "delta:fresh answer", "done:fresh answer"}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		})
	}
}
