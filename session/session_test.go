package session_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
)

const ms = time.Millisecond

// harness runs turns against a fake server with a recording clock.
type harness struct {
	srv    *responsestest.Server
	sess   *session.Session
	mu     sync.Mutex
	sleeps []time.Duration
	events []session.Event
	// stopAfter cancels the turn when the n-th sleep is reached (0: never).
	stopAfter int
	cancel    context.CancelFunc
}

type option func(*provider.Info, *session.Options)

func newHarness(t *testing.T, script responsestest.Script, opts ...option) *harness {
	t.Helper()
	h := &harness{srv: responsestest.NewServer(t, script)}
	p := provider.Custom("test")
	p.BaseURL = h.srv.URL
	so := session.Options{}
	for _, o := range opts {
		o(&p, &so)
	}
	so.Client = modelclient.New(modelclient.Options{
		Provider:   p,
		SessionID:  "sess-1",
		HTTPClient: h.srv.Client(),
		Sleep:      h.sleep,
		Rand:       func() float64 { return 0.5 }, // jitter multiplier 1.0
	})
	if so.Sampling.Model == "" {
		so.Sampling.Model = "test-model"
	}
	h.sess = session.New(so)
	return h
}

func (h *harness) sleep(ctx context.Context, d time.Duration) error {
	h.mu.Lock()
	h.sleeps = append(h.sleeps, d)
	n := len(h.sleeps)
	h.mu.Unlock()
	if h.stopAfter > 0 && n >= h.stopAfter {
		h.cancel()
	}
	return ctx.Err()
}

func (h *harness) turn(t *testing.T, input string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.cancel = cancel
	return h.sess.Turn(ctx, input, func(ev session.Event) { h.events = append(h.events, ev) })
}

func (h *harness) messages() []string {
	var out []string
	for _, ev := range h.events {
		if m, ok := ev.(session.MessageDone); ok {
			out = append(out, m.Text)
		}
	}
	return out
}

func (h *harness) retries() []modelclient.Retry {
	var out []modelclient.Retry
	for _, ev := range h.events {
		if r, ok := ev.(session.Retry); ok {
			out = append(out, r.Retry)
		}
	}
	return out
}

// inputs returns the "input" array of every request, re-encoded.
func (h *harness) inputs(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, r := range h.srv.Requests() {
		in, ok := r.JSON["input"]
		if !ok {
			t.Fatalf("request %d has no input: %s", r.Attempt, r.Body)
		}
		out = append(out, cmp.Diff(nil, in)) // stable textual form
	}
	return out
}

func kindOf(t *testing.T, err error) modelclient.Kind {
	t.Helper()
	var te *session.TurnError
	if !errors.As(err, &te) {
		t.Fatalf("Turn error = %v (%T); want *session.TurnError", err, err)
	}
	return te.Failure.Kind
}

func TestRetriesServerErrorsThenStreams(t *testing.T) {
	rt := responsestest.Reply("r1", "m1", "hello there")
	h := newHarness(t, responsestest.Script{
		responsestest.Status(500), responsestest.Status(500), rt,
	})
	if err := h.turn(t, "hi"); err != nil {
		t.Fatalf("Turn: %v", err)
	}
	if diff := cmp.Diff([]string{"hello there"}, h.messages()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]time.Duration{200 * ms, 400 * ms}, h.sleeps); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
	in := h.inputs(t)
	if len(in) != 3 || in[0] != in[1] || in[1] != in[2] {
		t.Errorf("want 3 requests with identical input, got %d:\n%s", len(in), strings.Join(in, "\n---\n"))
	}
	for i, r := range h.retries() {
		if r.Layer != modelclient.LayerHTTP || r.Attempt != i+1 || r.Max != 4 || r.Class != provider.ClassServerError {
			t.Errorf("retry %d = %+v; want http layer attempt %d/4 server_error", i, r, i+1)
		}
	}
}

func TestStreamCutRetractsPartialText(t *testing.T) {
	h := newHarness(t, responsestest.Script{
		responsestest.Stream(
			responsestest.Created("r1"),
			responsestest.TextDelta("m1", "partial "),
			responsestest.TextDelta("m1", "answ"),
			responsestest.Drop(),
		),
		responsestest.Reply("r2", "m2", "the full answer"),
	})
	if err := h.turn(t, "hi"); err != nil {
		t.Fatalf("Turn: %v", err)
	}
	if diff := cmp.Diff([]string{"the full answer"}, h.messages()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	var retracted []string
	for _, ev := range h.events {
		if r, ok := ev.(session.Retracted); ok {
			retracted = append(retracted, r.ItemIDs...)
		}
	}
	if diff := cmp.Diff([]string{"m1"}, retracted); diff != "" {
		t.Errorf("retracted (-want +got):\n%s", diff)
	}
	in := h.inputs(t)
	if len(in) != 2 || in[0] != in[1] {
		t.Errorf("the retry must resend exactly the recorded history; inputs:\n%s", strings.Join(in, "\n---\n"))
	}
	if got := h.retries(); len(got) != 1 || got[0].Layer != modelclient.LayerStream || got[0].Class != provider.ClassTransport {
		t.Errorf("retries = %+v; want one stream-layer transport retry", got)
	}
	// Only the successful attempt's items are in history.
	hist := h.sess.History()
	if len(hist) != 2 || hist[1].Text() != "the full answer" {
		t.Errorf("history = %+v", hist)
	}
}

// TestDoneItemBeforeCutIsNotCarried: a message the failed attempt
// completed is shown, but the retry carries nothing of that attempt.
func TestDoneItemBeforeCutIsNotCarried(t *testing.T) {
	h := newHarness(t, responsestest.Script{
		responsestest.Stream(
			responsestest.Created("r1"),
			responsestest.MessageDone("m1", "first part"),
			responsestest.End(), // clean EOF without response.completed
		),
		responsestest.Reply("r2", "m2", "second part"),
	})
	if err := h.turn(t, "hi"); err != nil {
		t.Fatalf("Turn: %v", err)
	}
	if diff := cmp.Diff([]string{"first part", "second part"}, h.messages()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	reqs := h.srv.Requests()
	if n := len(reqs[1].JSON["input"].([]any)); n != 1 {
		t.Errorf("retry input has %d items; want 1 (the user message only)", n)
	}
}

func TestContextWindowExceededIsNotRetried(t *testing.T) {
	h := newHarness(t, responsestest.Script{
		responsestest.Stream(responsestest.Created("r1"), responsestest.Failed("r1", "context_length_exceeded", "Your input exceeds the context window")),
	})
	err := h.turn(t, "hi")
	if kindOf(t, err) != modelclient.KindContextWindow {
		t.Errorf("kind = %v; want context_window", kindOf(t, err))
	}
	if !strings.Contains(err.Error(), "context window is full") {
		t.Errorf("message %q does not say the context window is full", err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests; want 1", n)
	}
	if len(h.sleeps) != 0 {
		t.Errorf("slept %v; want no waits", h.sleeps)
	}
}

// retryRow is a row of TestRetryTable: the server's script, an option,
// the outcome (kind, or ok), the waits and the layers of the retries.
type retryRow struct {
	name   string
	script responsestest.Script
	opt    option
	kind   modelclient.Kind // KindPermanent with ok=true means success
	ok     bool
	sleeps []time.Duration
	layers []string
}

// failedStream is an attempt whose stream ends in response.failed.
func failedStream(code, msg string) responsestest.Attempt {
	return responsestest.Stream(responsestest.Created("r"), responsestest.Failed("r", code, msg))
}

// fiveOf is a script of a five times.
func fiveOf(a responsestest.Attempt) responsestest.Script {
	return responsestest.Script{a, a, a, a, a}
}

// retriedRows are the failures retried, layer by layer.
func retriedRows() []retryRow {
	st := responsestest.Status
	reply := responsestest.Reply("r", "m", "ok")
	cut := responsestest.Stream(responsestest.Created("r"), responsestest.TextDelta("m", "x"), responsestest.Drop())
	return []retryRow{
		{name: "500 once (http layer)", script: responsestest.Script{st(500), reply}, ok: true,
			sleeps: []time.Duration{200 * ms}, layers: []string{"http"}},
		{name: "502 nested: http budget spent, then a stream retry with a fresh http budget",
			script: append(append(fiveOf(st(502)), st(502)), reply), ok: true,
			sleeps: []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 200 * ms, 200 * ms},
			layers: []string{"http", "http", "http", "http", "stream", "http"}},
		{name: "stream budget exhausted",
			script: responsestest.Script{cut, cut, cut, cut, cut, cut},
			kind:   modelclient.KindTransport,
			sleeps: []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms},
			layers: []string{"stream", "stream", "stream", "stream", "stream"}},
		{name: "stream budget from config",
			script: responsestest.Script{cut, cut, cut},
			opt:    func(p *provider.Info, _ *session.Options) { p.StreamMaxRetries = 2 },
			kind:   modelclient.KindTransport,
			sleeps: []time.Duration{200 * ms, 400 * ms}, layers: []string{"stream", "stream"}},
		{name: "http budget zero leaves 5xx to the stream layer",
			script: responsestest.Script{st(503), reply},
			opt:    func(p *provider.Info, _ *session.Options) { p.RequestMaxRetries = 0 },
			ok:     true, sleeps: []time.Duration{200 * ms}, layers: []string{"stream"}},
		{name: "response.incomplete for an unknown reason retried", script: responsestest.Script{
			responsestest.Stream(responsestest.Created("r"), responsestest.Incomplete("r", "")), reply},
			ok: true, sleeps: []time.Duration{200 * ms}, layers: []string{"stream"}},
		{name: "response.failed server_error retried", script: responsestest.Script{failedStream("server_error", "boom"), reply},
			ok: true, sleeps: []time.Duration{200 * ms}, layers: []string{"stream"}},
		{name: "429 Retry-After wins over backoff", script: responsestest.Script{st(429, "Retry-After", "2"), reply},
			ok: true, sleeps: []time.Duration{2 * time.Second}, layers: []string{"stream"}},
		{name: "429 Retry-After-Ms", script: responsestest.Script{st(429, "Retry-After-Ms", "750"), reply},
			ok: true, sleeps: []time.Duration{750 * ms}, layers: []string{"stream"}},
		{name: "429 without hint uses the rate_limit class backoff", script: responsestest.Script{st(429), st(429), reply},
			ok: true, sleeps: []time.Duration{time.Second, 2 * time.Second}, layers: []string{"stream", "stream"}},
		{name: "rate_limit_exceeded try again in 1.5s", script: responsestest.Script{
			failedStream("rate_limit_exceeded", "Rate limit reached. Please try again in 1.5s."), reply},
			ok: true, sleeps: []time.Duration{1500 * ms}, layers: []string{"stream"}},
		{name: "503 at capacity uses the overload schedule", script: responsestest.Script{
			responsestest.Error(503, "server_error", "", "Selected model is at capacity. Please try a different model."), reply},
			ok: true, sleeps: []time.Duration{1500 * ms}, layers: []string{"overload"}},
		{name: "overloaded forever ends inside the 50 s bound: the third wait shortened to what is left of 45 s", script: fiveOf(failedStream("server_is_overloaded", "busy"))[:4],
			kind:   modelclient.KindOverloaded,
			sleeps: []time.Duration{1500 * ms, 7500 * ms, 36 * time.Second},
			layers: []string{"overload", "overload", "overload"}},
		{name: "overloaded schedule exhausted (no time bound)", script: append(fiveOf(failedStream("server_is_overloaded", "busy")), failedStream("server_is_overloaded", "busy")),
			opt:    func(p *provider.Info, _ *session.Options) { p.RetryMaxWait = 0 },
			kind:   modelclient.KindOverloaded,
			sleeps: []time.Duration{1500 * ms, 7500 * ms, 45 * time.Second, 180 * time.Second, 360 * time.Second},
			layers: []string{"overload", "overload", "overload", "overload", "overload"}},
	}
}

// notRetriedRows are the failures not retried (or capped), each ending
// the turn with its kind.
func notRetriedRows() []retryRow {
	st := responsestest.Status
	cut := responsestest.Stream(responsestest.Created("r"), responsestest.TextDelta("m", "x"), responsestest.Drop())
	return []retryRow{
		{name: "server delay beyond the class cap pauses at once", script: responsestest.Script{st(429, "Retry-After", "86400")},
			kind: modelclient.KindRateLimited},
		{name: "per-class cap", script: responsestest.Script{cut, cut},
			opt: func(p *provider.Info, _ *session.Options) {
				c := p.Retry[provider.ClassTransport]
				c.MaxRetries = 1
				p.Retry[provider.ClassTransport] = c
			},
			kind: modelclient.KindTransport, sleeps: []time.Duration{200 * ms}, layers: []string{"stream"}},
		{name: "400 not retried", script: responsestest.Script{responsestest.Error(400, "invalid_request_error", "", "bad field")},
			kind: modelclient.KindInvalidRequest},
		{name: "401 with an API key not retried", script: responsestest.Script{st(401)}, kind: modelclient.KindAuth},
		{name: "403 not retried", script: responsestest.Script{st(403)}, kind: modelclient.KindPermanent},
		{name: "404 not retried", script: responsestest.Script{st(404)}, kind: modelclient.KindPermanent},
		{name: "quota not retried", script: responsestest.Script{responsestest.Error(429, "insufficient_quota", "insufficient_quota", "no money")},
			kind: modelclient.KindQuota},
		{name: "usage limit not retried", script: responsestest.Script{responsestest.Error(429, "usage_limit_reached", "", "limit")},
			kind: modelclient.KindUsageLimit},
		{name: "invalid prompt not retried", script: responsestest.Script{failedStream("invalid_prompt", "no")}, kind: modelclient.KindInvalidRequest},
	}
}

// TestRetryTable has one row per error class and layer: exact request
// counts and exact waits (jitter fixed at ×1.0).
func TestRetryTable(t *testing.T) {
	tests := slices.Concat(retriedRows(), notRetriedRows())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []option
			if tt.opt != nil {
				opts = append(opts, tt.opt)
			}
			h := newHarness(t, tt.script, opts...)
			err := h.turn(t, "hi")
			if tt.ok {
				if err != nil {
					t.Fatalf("Turn: %v", err)
				}
			} else if got := kindOf(t, err); got != tt.kind {
				t.Errorf("kind = %v; want %v (err %v)", got, tt.kind, err)
			}
			if want := len(tt.script); len(h.srv.Requests()) != want {
				t.Errorf("%d requests; want %d", len(h.srv.Requests()), want)
			}
			if diff := cmp.Diff(tt.sleeps, h.sleeps); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			var layers []string
			for _, r := range h.retries() {
				layers = append(layers, r.Layer)
			}
			if diff := cmp.Diff(tt.layers, layers); diff != "" {
				t.Errorf("retry layers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnboundedConnectionRetries: a host that is not this machine
// refuses connections (a loopback refusal ends quickly instead): the
// connection layer alone retries, unbounded, 5 s doubling.
func TestUnboundedConnectionRetries(t *testing.T) {
	var ip string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			ip = n.IP.String()
			break
		}
	}
	if ip == "" {
		t.Skip("no non-loopback IPv4 address")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skip(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close() // nothing listens: every connect is refused

	h := &harness{stopAfter: 3} // three connection waits
	p := provider.Custom("offline")
	p.BaseURL = dead
	h.sess = session.New(session.Options{
		UnboundedConnectionRetries: true,
		Client: modelclient.New(modelclient.Options{
			Provider: p, HTTPClient: &http.Client{},
			Sleep: h.sleep, Rand: func() float64 { return 0.5 },
		}),
	})
	err = h.turn(t, "hi")
	if kindOf(t, err) != modelclient.KindCanceled {
		t.Errorf("kind = %v; want canceled", kindOf(t, err))
	}
	var conn []time.Duration
	for _, r := range h.retries() {
		if r.Layer == modelclient.LayerConnection {
			conn = append(conn, r.Delay)
			if r.Max != -1 {
				t.Errorf("connection retry max = %d; want -1 (unbounded)", r.Max)
			}
		}
	}
	want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second}
	if diff := cmp.Diff(want, conn); diff != "" {
		t.Errorf("connection waits (-want +got):\n%s", diff)
	}
	// The HTTP layer leaves connect failures to the connection layer:
	// every wait is one of its.
	if diff := cmp.Diff(want, h.sleeps); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestConnectionRetriesDisabledSpendStreamBudget(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	h := &harness{}
	p := provider.Custom("offline")
	p.BaseURL, p.RequestMaxRetries, p.StreamMaxRetries = dead, 0, 2
	h.sess = session.New(session.Options{Client: modelclient.New(modelclient.Options{
		Provider: p, HTTPClient: &http.Client{}, Sleep: h.sleep, Rand: func() float64 { return 0.5 },
	})})
	err = h.turn(t, "hi")
	if kindOf(t, err) != modelclient.KindConnect {
		t.Errorf("kind = %v; want connect", kindOf(t, err))
	}
	if diff := cmp.Diff([]time.Duration{200 * ms, 400 * ms}, h.sleeps); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}

func TestUsageAccumulates(t *testing.T) {
	h := newHarness(t, responsestest.Script{
		responsestest.Stream(responsestest.Created("r1"), responsestest.MessageDone("m1", "a"), responsestest.CompletedUsage("r1", 100, 40, 10, 3)),
		responsestest.Stream(responsestest.Created("r2"), responsestest.MessageDone("m2", "b"), responsestest.CompletedUsage("r2", 200, 0, 20, 0)),
	})
	if err := h.turn(t, "one"); err != nil {
		t.Fatal(err)
	}
	if err := h.turn(t, "two"); err != nil {
		t.Fatal(err)
	}
	last := h.events[len(h.events)-1].(session.TurnCompleted)
	if last.Last.InputTokens != 200 || last.Total.InputTokens != 300 || last.Total.CachedInputTokens != 40 || last.Total.OutputTokens != 30 {
		t.Errorf("usage = %+v", last)
	}
	// The second turn's request carries the whole history.
	if n := len(h.srv.Requests()[1].JSON["input"].([]any)); n != 3 {
		t.Errorf("second request has %d input items; want 3", n)
	}
}
