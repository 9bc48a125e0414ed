package session_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

func withWS(p *provider.Info, _ *session.Options) { p.SupportsWebSockets = true }

func withStreamRetries(n int) option {
	return func(p *provider.Info, _ *session.Options) { p.StreamMaxRetries = n }
}

// withRetryMaxWait sets the time bound of a failure's retries ([retry]
// max_wait_ms; 0: none).
func withRetryMaxWait(d time.Duration) option {
	return func(p *provider.Info, _ *session.Options) { p.RetryMaxWait = d }
}

// methods lists how each recorded request arrived: GET (a refused
// handshake), WS (a response.create frame) or POST (SSE).
func methods(srv *rt.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		out = append(out, r.Method)
	}
	return out
}

func (h *harness) warnings() []string {
	var out []string
	for _, ev := range h.events {
		if w, ok := ev.(session.Warning); ok {
			out = append(out, w.Message)
		}
	}
	return out
}

// TestFallbackContracts runs the seed's fallback contracts as one table.
func TestFallbackContracts(t *testing.T) {
	reply := rt.Reply("r", "m", "answer")
	cut := rt.Stream(rt.Created("r"), rt.TextDelta("m", "x"), rt.Drop())
	tests := []struct {
		name       string
		script     rt.Script
		opts       []option
		methods    []string
		handshakes int
		sleeps     []time.Duration
		warned     bool
	}{
		{name: "426: one handshake, then one POST, no budget spent",
			script: rt.Script{rt.Status(426), reply}, methods: []string{"GET", "POST"}, handshakes: 1, warned: true},
		{name: "404 from a proxy that does not upgrade: fall back at once",
			script: rt.Script{rt.Status(404), reply}, methods: []string{"GET", "POST"}, handshakes: 1, warned: true},
		{name: "405: fall back at once",
			script: rt.Script{rt.Status(405), reply}, methods: []string{"GET", "POST"}, handshakes: 1, warned: true},
		{name: "handshake 503 is retried like any request",
			script: rt.Script{rt.Status(503), reply}, methods: []string{"GET", "WS"}, handshakes: 2, sleeps: []time.Duration{200 * ms}},
		{name: "handshake 429 honours Retry-After",
			script: rt.Script{rt.Status(429, "Retry-After", "3"), reply}, methods: []string{"GET", "WS"}, handshakes: 2, sleeps: []time.Duration{3 * time.Second}},
		{name: "budget exhausted on WS: initial + N WS attempts, warning, then one POST",
			script: rt.Script{cut, cut, cut, reply}, opts: []option{withStreamRetries(2)},
			methods: []string{"WS", "WS", "WS", "POST"}, handshakes: 3, sleeps: []time.Duration{200 * ms, 400 * ms}, warned: true},
		{name: "mid-stream drop then success on WS",
			script: rt.Script{cut, reply}, methods: []string{"WS", "WS"}, handshakes: 2, sleeps: []time.Duration{200 * ms}},
		{name: "error event then success on WS",
			script:  rt.Script{rt.Stream(rt.Created("r"), rt.Failed("r", "server_error", "boom")), reply},
			methods: []string{"WS", "WS"}, handshakes: 2, sleeps: []time.Duration{200 * ms}},
		{name: "wrapped 500 error frame then success on the same connection's successor",
			script: rt.Script{reply, rt.Status(500), reply}, methods: []string{"WS", "WS", "WS"}, handshakes: 2, sleeps: []time.Duration{200 * ms}},
		{name: "connection limit reached: retried with the full request",
			script:  rt.Script{rt.Stream(rt.Event("error", map[string]any{"status": 400, "error": map[string]any{"code": "websocket_connection_limit_reached", "message": "limit"}})), reply},
			methods: []string{"WS", "WS"}, handshakes: 2, sleeps: []time.Duration{200 * ms}},
		{name: "close frame then success",
			script:  rt.Script{rt.Stream(rt.Created("r"), rt.CloseWS(1011, "internal")), reply},
			methods: []string{"WS", "WS"}, handshakes: 2, sleeps: []time.Duration{200 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.script, append([]option{withWS}, tt.opts...)...)
			turns := 1
			if tt.name == "wrapped 500 error frame then success on the same connection's successor" {
				turns = 2
			}
			for range turns {
				if err := h.turn(t, "hi"); err != nil {
					t.Fatalf("Turn: %v", err)
				}
			}
			if diff := cmp.Diff(tt.methods, methods(h.srv)); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if n := len(h.srv.Handshakes()); n != tt.handshakes {
				t.Errorf("%d handshakes; want %d", n, tt.handshakes)
			}
			if diff := cmp.Diff(tt.sleeps, h.sleeps); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			w := h.warnings()
			if tt.warned != (len(w) == 1) || len(w) > 1 {
				t.Errorf("warnings = %q; want one: %v", w, tt.warned)
			}
			if tt.warned && !strings.HasPrefix(w[0], "Falling back from WebSockets to HTTPS transport: ") {
				t.Errorf("warning = %q", w[0])
			}
		})
	}
}

// TestFallbackIsSticky: after the switch, later turns never try WS again.
func TestFallbackIsSticky(t *testing.T) {
	h := newHarness(t, rt.Script{rt.Status(426), rt.Reply("r1", "m1", "a"), rt.Reply("r2", "m2", "b"), rt.Reply("r3", "m3", "c")}, withWS)
	for _, in := range []string{"one", "two", "three"} {
		if err := h.turn(t, in); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"GET", "POST", "POST", "POST"}, methods(h.srv)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if len(h.srv.Handshakes()) != 1 {
		t.Errorf("%d handshakes; want 1", len(h.srv.Handshakes()))
	}
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWSBodyEqualsSSEBody: the frame is the SSE body plus "type".
func TestWSBodyEqualsSSEBody(t *testing.T) {
	sse := newHarness(t, rt.Script{rt.Reply("r", "m", "x")})
	wsh := newHarness(t, rt.Script{rt.Reply("r", "m", "x")}, withWS)
	for _, h := range []*harness{sse, wsh} {
		if err := h.turn(t, "same prompt"); err != nil {
			t.Fatal(err)
		}
	}
	post := decode(t, sse.srv.Requests()[0].Body)
	frame := decode(t, wsh.srv.Requests()[0].Body)
	if frame["type"] != "response.create" {
		t.Errorf("frame type = %v", frame["type"])
	}
	delete(frame, "type")
	if diff := cmp.Diff(post, frame); diff != "" {
		t.Errorf("WS body differs from SSE body (-post +frame):\n%s", diff)
	}
}

// TestPreviousResponseIDChaining: a request that extends the previous one
// on the same connection carries previous_response_id and only the new
// items; after a reconnect the request is sent in full.
func TestPreviousResponseIDChaining(t *testing.T) {
	cut := rt.Stream(rt.Created("r2"), rt.Drop())
	h := newHarness(t, rt.Script{rt.Reply("r1", "m1", "first"), cut, rt.Reply("r3", "m3", "second")}, withWS)
	if err := h.turn(t, "one"); err != nil {
		t.Fatal(err)
	}
	if err := h.turn(t, "two"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests; want 3", len(reqs))
	}
	first, chained, full := decode(t, reqs[0].Body), decode(t, reqs[1].Body), decode(t, reqs[2].Body)
	if _, ok := first["previous_response_id"]; ok {
		t.Error("first request must not chain")
	}
	if chained["previous_response_id"] != "r1" || reqs[1].Conn != reqs[0].Conn {
		t.Errorf("second request previous_response_id = %v on conn %d (first on %d); want r1 on the same connection",
			chained["previous_response_id"], reqs[1].Conn, reqs[0].Conn)
	}
	in := chained["input"].([]any)
	if len(in) != 1 || !strings.Contains(string(reqs[1].Body), `"two"`) {
		t.Errorf("chained input = %v; want only the new user message", in)
	}
	if _, ok := full["previous_response_id"]; ok || reqs[2].Conn == reqs[1].Conn {
		t.Errorf("after a reconnect the request must be full on a new connection: %s", reqs[2].Body)
	}
	if n := len(full["input"].([]any)); n != 3 {
		t.Errorf("full request input has %d items; want 3 (one, first, two)", n)
	}
}

func TestTransportSetting(t *testing.T) {
	tests := []struct {
		name      string
		supports  bool
		transport string
		want      string
	}{
		{"auto uses WS where supported", true, provider.TransportAuto, "WS"},
		{"auto uses HTTPS where not", false, provider.TransportAuto, "POST"},
		{"https never tries WS", true, provider.TransportHTTPS, "POST"},
		{"websocket forces WS", false, provider.TransportWebSocket, "WS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, rt.Script{rt.Reply("r", "m", "x")}, func(p *provider.Info, _ *session.Options) {
				p.SupportsWebSockets, p.Transport = tt.supports, tt.transport
			})
			if err := h.turn(t, "hi"); err != nil {
				t.Fatal(err)
			}
			if got := methods(h.srv); len(got) != 1 || got[0] != tt.want {
				t.Errorf("requests = %v; want [%s]", got, tt.want)
			}
		})
	}
}

// TestPreviousResponseIDWithinAToolTurn: a two-request turn (a function
// call, then its output) sends previous_response_id with only the new items.
func TestPreviousResponseIDWithinAToolTurn(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("fc1", "call_1", "echo hi"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "done"),
	}, withWS, withTools(t, t.TempDir(), tools.PolicyNever, nil))
	if err := h.turn(t, "run"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 2 || reqs[0].Conn != reqs[1].Conn {
		t.Fatalf("want two requests on one connection, got %+v", reqs)
	}
	follow := decode(t, reqs[1].Body)
	if follow["previous_response_id"] != "r1" {
		t.Errorf("previous_response_id = %v; want r1", follow["previous_response_id"])
	}
	in := follow["input"].([]any)
	if len(in) != 1 || in[0].(map[string]any)["type"] != "function_call_output" {
		t.Errorf("input = %v; want only the call's output", in)
	}
}
