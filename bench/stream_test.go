package bench_test

import (
	"context"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// deltaStream is the attempt the whole-binary benchmark streams: n deltas
// of "lorem " in one assistant message.
func deltaStream(n int) rt.Attempt {
	steps := []rt.Step{rt.Created("resp_1"), rt.OutputItemAdded(map[string]any{
		"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []any{},
	})}
	d := rt.TextDelta("msg_1", "lorem ")
	for range n {
		steps = append(steps, d)
	}
	steps = append(steps, rt.MessageDone("msg_1", strings.Repeat("lorem ", n)), rt.Completed("resp_1"))
	return rt.Stream(steps...)
}

// BenchmarkTurnStream is the in-process half of the 50k-delta whole-binary
// benchmark: one session.Turn consuming a 50,000-delta SSE stream over
// loopback, events discarded as agent exec does when stderr is not a
// terminal. Profile it with -cpuprofile to see where the binary's time goes.
func BenchmarkTurnStream(b *testing.B) {
	const n = 50000
	a := deltaStream(n)
	srv := rt.NewServer(b, nil)
	p := provider.Custom("bench")
	p.BaseURL = srv.URL
	c := modelclient.New(modelclient.Options{Provider: p, SessionID: "bench", HTTPClient: srv.Client()})
	defer c.Close()
	b.ReportAllocs()
	for b.Loop() {
		srv.Append(a)
		s := session.New(session.Options{Client: c})
		deltas := 0
		err := s.Turn(context.Background(), "hi", func(ev session.Event) {
			if _, ok := ev.(session.TextDelta); ok {
				deltas++
			}
		})
		if err != nil || deltas != n {
			b.Fatalf("Turn = %v after %d deltas; want nil after %d", err, deltas, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/delta")
}

// BenchmarkDecodeDelta is the per-event cost that dominates long streams:
// transport.Decode of one response.output_text.delta payload.
func BenchmarkDecodeDelta(b *testing.B) {
	data := []byte(`{"type":"response.output_text.delta","content_index":0,"delta":"lorem ","item_id":"msg_1","output_index":0}`)
	b.ReportAllocs()
	for b.Loop() {
		ev, err := transport.Decode("response.output_text.delta", data)
		if d, ok := ev.(transport.TextDelta); err != nil || !ok || d.Delta != "lorem " {
			b.Fatalf("Decode = %#v, %v", ev, err)
		}
	}
}
