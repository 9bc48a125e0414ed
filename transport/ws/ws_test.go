package ws_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/ws"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:1/v1/responses":                     "ws://127.0.0.1:1/v1/responses",
		"https://chatgpt.com/backend-api/codex/responses?a=b": "wss://chatgpt.com/backend-api/codex/responses?a=b",
	} {
		if got := ws.URL(in); got != want {
			t.Errorf("URL(%q) = %q; want %q", in, got, want)
		}
	}
}

func dial(t *testing.T, srv *rt.Server, opts ws.Options) (*ws.Conn, error) {
	t.Helper()
	opts.HTTPClient = srv.Client()
	return ws.Dial(t.Context(), srv.URL+"/responses", http.Header{"Authorization": {"Bearer k"}}, &opts)
}

func drain(s transport.Stream) ([]string, error) {
	defer s.Close()
	var got []string
	for e := range s.Events() {
		switch e := e.(type) {
		case transport.Created:
			got = append(got, "created")
		case transport.TextDelta:
			got = append(got, "delta:"+e.Delta)
		case transport.OutputItemDone:
			got = append(got, "done:"+e.Item.Text())
		case transport.Completed:
			got = append(got, "completed:"+e.ResponseID)
		}
	}
	return got, s.Err()
}

func TestRequestsReuseOneConnection(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two")})
	c, err := dial(t, srv, ws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, want := range [][]string{
		{"created", "delta:one", "done:one", "completed:r1"},
		{"created", "delta:two", "done:two", "completed:r2"},
	} {
		s, err := c.Open(t.Context(), []byte(`{"model":"m","input":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		got, err := drain(s)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request %d events (-want +got):\n%s", i, diff)
		}
	}
	if c.Broken() {
		t.Error("connection broken after two completed responses")
	}
	hs := srv.Handshakes()
	if len(hs) != 1 || hs[0].Header.Get("OpenAI-Beta") != ws.BetaHeader || hs[0].Header.Get("Authorization") != "Bearer k" {
		t.Errorf("handshakes = %+v; want one with the beta and auth headers", hs)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Conn != reqs[1].Conn || reqs[0].Method != "WS" {
		t.Fatalf("requests = %+v; want two frames on one connection", reqs)
	}
	var frame map[string]any
	if err := json.Unmarshal(reqs[0].Body, &frame); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"type": "response.create", "model": "m", "input": []any{}}, frame); diff != "" {
		t.Errorf("frame (-want +got):\n%s", diff)
	}
}

func TestHandshakeRefused(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Status(426)})
	_, err := dial(t, srv, ws.Options{})
	var he *transport.HandshakeError
	var st *transport.HTTPError
	if !errors.As(err, &he) || !errors.As(err, &st) || st.StatusCode != 426 {
		t.Errorf("err = %v; want a handshake HTTPError 426", err)
	}
}

func TestStreamFailures(t *testing.T) {
	tests := []struct {
		name  string
		steps []rt.Step
		check func(error) bool
	}{
		{"drop", []rt.Step{rt.Created("r"), rt.Drop()}, func(err error) bool { var re *transport.ReadError; return errors.As(err, &re) }},
		{"close frame", []rt.Step{rt.Created("r"), rt.CloseWS(4000, "bye")}, func(err error) bool {
			var ce *transport.CloseError
			return errors.As(err, &ce) && ce.Code == 4000 && ce.Reason == "bye"
		}},
		{"normal close before completed", []rt.Step{rt.Created("r"), rt.End()}, func(err error) bool {
			var ce *transport.CloseError
			return errors.As(err, &ce) && ce.Code == 1000
		}},
		{"binary frame", []rt.Step{rt.Binary("\x00\x01")}, func(err error) bool { return errors.Is(err, transport.ErrUnexpectedBinary) }},
		{"response.failed", []rt.Step{rt.Failed("r", "server_error", "x")}, func(err error) bool {
			var ae *transport.APIError
			return errors.As(err, &ae) && ae.Code == "server_error"
		}},
		{"wrapped error event", []rt.Step{rt.Event("error", map[string]any{"status": 429, "error": map[string]any{"code": "rate_limit_exceeded"}})}, func(err error) bool {
			var ae *transport.APIError
			return errors.As(err, &ae) && ae.Status == 429
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{rt.Stream(tt.steps...)})
			c, err := dial(t, srv, ws.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s, err := c.Open(t.Context(), []byte(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			_, err = drain(s)
			if !tt.check(err) {
				t.Errorf("err = %v (%T)", err, err)
			}
			if !c.Broken() {
				t.Error("a failed stream must break the connection")
			}
		})
	}
}

func TestIdleTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.Stall())})
		c, err := dial(t, srv, ws.Options{IdleTimeout: 300 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		s, err := c.Open(t.Context(), []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		_, err = drain(s)
		if !errors.Is(err, transport.ErrStreamIdle) {
			t.Errorf("err = %v; want ErrStreamIdle", err)
		}
		if d := time.Since(start); d != 300*time.Second {
			t.Errorf("idle after %v; want 300s", d)
		}
	})
}

// TestPingsAreNotLiveness: as over SSE, the idle timer counts events and
// their data, not the server's pings.
func TestPingsAreNotLiveness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		steps := []rt.Step{rt.Created("r")}
		for range 10 {
			steps = append(steps, rt.Sleep(30*time.Second), rt.Comment("ping"))
		}
		srv := rt.NewPipeServer(t, rt.Script{rt.Stream(steps...)})
		c, err := dial(t, srv, ws.Options{IdleTimeout: 60 * time.Second, ProgressTimeout: 100 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		s, err := c.Open(t.Context(), []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		_, err = drain(s)
		if !errors.Is(err, transport.ErrStreamIdle) {
			t.Errorf("err = %v; want ErrStreamIdle", err)
		}
		if d := time.Since(start); d != 60*time.Second {
			t.Errorf("took %v; want 60s", d)
		}
	})
}

func TestConnectTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := rt.NewPipeServer(t, rt.Script{rt.Hang()})
		start := time.Now()
		_, err := dial(t, srv, ws.Options{ConnectTimeout: 15 * time.Second})
		if !errors.Is(err, transport.ErrHandshakeTimeout) {
			t.Errorf("err = %v; want ErrHandshakeTimeout", err)
		}
		if d := time.Since(start); d != 15*time.Second {
			t.Errorf("took %v; want 15s", d)
		}
	})
}

func TestCancel(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.Barrier("b"), rt.Stall())})
	c, err := dial(t, srv, ws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(t.Context())
	s, err := c.Open(ctx, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		<-srv.Reached("b")
		cancel()
	}()
	if _, err := drain(s); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
}

// TestMessageTooLargeFailsAtOnce: a message over MaxMessageSize ends the
// stream with ErrEventTooLarge (which is not retried).
func TestMessageTooLargeFailsAtOnce(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r"), rt.MessageDone("m", strings.Repeat("x", 4<<10)), rt.Completed("r"))})
	c, err := dial(t, srv, ws.Options{MaxMessageSize: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.Open(t.Context(), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(s)
	if !errors.Is(err, transport.ErrEventTooLarge) || len(got) != 1 {
		t.Errorf("events %v, err %v; want created, then ErrEventTooLarge", got, err)
	}
}

// TestLargeMessagesCopiedOnce: over WebSocket, a 4 MiB delta is read into
// pieces and copied once into its string (not a doubling buffer and a
// copy); a 4 MiB output_text.done, which nobody reads, is not copied at
// all; a 4 MiB request body is sent without a copy. The pieces are
// reused by the next message.
func TestLargeMessagesCopiedOnce(t *testing.T) {
	const size = 4 << 20
	text := strings.Repeat("lorem ipsum ", size/12)
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r"),
		rt.Event("response.output_text.done", map[string]any{"item_id": "m", "text": text}),
		rt.TextDelta("m", text), rt.Completed("r"))})
	c, err := dial(t, srv, ws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := []byte(`{"model":"m","input":[{"type":"message","role":"user","content":"` + text + `"}]}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := c.Open(t.Context(), body)
	if err != nil {
		t.Fatal(err)
	}
	var delta int
	for ev := range s.Events() {
		if d, ok := ev.(transport.TextDelta); ok {
			delta = len(d.Delta)
		}
	}
	runtime.ReadMemStats(&after)
	s.Close()
	if s.Err() != nil || delta != len(text) {
		t.Fatalf("delta of %d bytes, %v; want the %d-byte delta", delta, s.Err(), len(text))
	}
	// The pieces (once, reused for the second big message) and the
	// delta's string; the in-process server's own copies of what it sends
	// and reads are counted too, about 4.5 more (25.7 MiB in all; a
	// doubling buffer and a copy per message, and the body copied to be
	// sent, made it 41.7).
	server := 5.5
	if raceDetector {
		server = 10 // its own allocations: 35.3 MiB in all, 67.2 before
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; float64(alloc) > (2+server)*size {
		t.Errorf("a 4 MiB body and two 4 MiB messages allocated %.1f MiB; want at most %.1f", float64(alloc)/(1<<20), (2+server)*size/(1<<20))
	}
}
