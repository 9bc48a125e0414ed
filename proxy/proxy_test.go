package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gosse "github.com/tmaxmax/go-sse"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/proxy"
)

const atCapacity = "Selected model is at capacity. Please try a different model."

func TestRetriesOverloadedThenRelaysCleanStream(t *testing.T) {
	good := rt.Reply("r1", "m1", "hello from upstream")
	_, want := reference(t, good)
	srv := rt.NewServer(t, rt.Script{
		rt.Error(503, "server_error", "", atCapacity),
		rt.Error(503, "server_error", "", atCapacity),
		good,
	})
	h := newHarness(t, srv.URL, nil)

	resp, got, err := h.post(t, "/responses", requestBody)
	if err != nil {
		t.Fatalf("reading the relayed stream: %v", err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("status = %d; want 200\n%s", resp.StatusCode, got)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("relayed body differs from upstream's good attempt:\n got %q\nwant %q", got, want)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q", ct)
	}
	if v := resp.Header.Get(proxy.HeaderProxy); v != "1" {
		t.Errorf("%s = %q; want 1", proxy.HeaderProxy, v)
	}
	if v := resp.Header.Get(proxy.HeaderAttempts); v != "3" {
		t.Errorf("%s = %q; want 3", proxy.HeaderAttempts, v)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("upstream saw %d requests; want 3", len(reqs))
	}
	for i, r := range reqs {
		if string(r.Body) != requestBody || r.Path != "/v1/responses" {
			t.Errorf("upstream request %d: %s %q; want /v1/responses with the client's body", i, r.Path, r.Body)
		}
	}
	// The overloaded class's fixed schedule, jitter draw 0 (up-only jitter).
	if diff := cmp.Diff([]time.Duration{time.Second, 5 * time.Second}, h.recordedSleeps()); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
	h.settled(t, 1)
	logs := h.logs.String()
	if n := strings.Count(logs, "msg=RETRY "); n != 2 {
		t.Errorf("%d RETRY lines; want 2:\n%s", n, logs)
	}
	if !strings.Contains(logs, "msg=OK ") || !strings.Contains(logs, "class=overloaded") {
		t.Errorf("log lacks the OK line or the class:\n%s", logs)
	}
	if strings.Contains(logs, "PROMPT-SECRET-TEXT") {
		t.Errorf("the request body reached the log:\n%s", logs)
	}
	s := h.p.Stats()
	if s.Requests != 1 || s.OK != 1 || s.Retries != 2 || s.RetrySuccesses != 1 || s.ByClass["overloaded"].Retries != 2 {
		t.Errorf("stats = %+v", s)
	}
}

func TestErrorInFirstEventIsRetried(t *testing.T) {
	tests := []struct {
		name  string
		first rt.Attempt
	}{
		{"response.failed", rt.Stream(rt.Failed("r0", "server_error", "boom"))},
		{"response.failed after lifecycle events", rt.Stream(rt.Created("r0"), rt.InProgress("r0"), rt.Failed("r0", "server_error", "boom"))},
		{"error event", rt.Stream(rt.Event("error", map[string]any{
			"error": map[string]any{"type": "server_error", "code": "server_error", "message": "boom"},
		}))},
		{"dropped after response.created", rt.Stream(rt.Created("r0"), rt.Drop())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			good := rt.Reply("r1", "m1", "second time lucky")
			_, want := reference(t, good)
			srv := rt.NewServer(t, rt.Script{tt.first, good})
			h := newHarness(t, srv.URL, nil)
			resp, got, err := h.post(t, "/responses", requestBody)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("status %d, read error %v", resp.StatusCode, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("client saw %q; want only the good attempt %q", got, want)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("upstream saw %d requests; want 2", n)
			}
			if got := h.recordedSleeps(); len(got) != 1 {
				t.Errorf("sleeps = %v; want one", got)
			}
		})
	}
}

func TestFailureAfterCommitIsRelayedNotRetried(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "partial answer"), rt.Drop()),
	})
	h := newHarness(t, srv.URL, nil)
	resp, got, err := h.post(t, "/responses", requestBody)
	if resp.StatusCode != 200 {
		t.Fatalf("status = %d", resp.StatusCode)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error = %v; want io.ErrUnexpectedEOF (the client must see the stream break)", err)
	}
	if !strings.Contains(string(got), "partial answer") {
		t.Errorf("client saw %q; want the bytes streamed before the break", got)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("upstream saw %d requests; want 1", n)
	}
	if s := h.recordedSleeps(); len(s) != 0 {
		t.Errorf("slept %v; want no retry", s)
	}
	h.settled(t, 1)
	if logs := h.logs.String(); !strings.Contains(logs, "msg=FAILED") || !strings.Contains(logs, "committed=true") {
		t.Errorf("log lacks FAILED committed=true:\n%s", logs)
	}
}

func TestNonRetryablePassesThroughOnce(t *testing.T) {
	tests := []struct {
		name    string
		attempt rt.Attempt
	}{
		{"400 invalid request", rt.Error(400, "invalid_request_error", "", "Unsupported parameter: 'foo'")},
		{"401", rt.Status(401)},
		{"404 model not found", rt.Error(404, "invalid_request_error", "model_not_found", "The model `nope` does not exist")},
		{"429 quota", rt.Error(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota")},
		{"503 with a non-retryable keyword", rt.StatusBody(503, "unsupported model: gpt-x")},
		{"200 stream failing with context_length_exceeded", rt.Stream(rt.Failed("r", "context_length_exceeded", "too long"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantStatus, wantBody := reference(t, tt.attempt)
			srv := rt.NewServer(t, rt.Script{tt.attempt})
			h := newHarness(t, srv.URL, nil)
			resp, got, err := h.post(t, "/responses", requestBody)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != wantStatus || !bytes.Equal(got, wantBody) {
				t.Errorf("client got %d %q; want upstream's %d %q", resp.StatusCode, got, wantStatus, wantBody)
			}
			if v := resp.Header.Get(proxy.HeaderAttempts); v != "1" {
				t.Errorf("%s = %q; want 1", proxy.HeaderAttempts, v)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("upstream saw %d requests; want 1", n)
			}
			if s := h.recordedSleeps(); len(s) != 0 {
				t.Errorf("slept %v; want none", s)
			}
			h.settled(t, 1)
			if !strings.Contains(h.logs.String(), "msg=FAILED") {
				t.Errorf("no FAILED line:\n%s", h.logs)
			}
		})
	}
}

func TestKeywordsInContentAreNotFailures(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "the service is overloaded and at capacity; rate limit")})
	h := newHarness(t, srv.URL, nil)
	resp, _, err := h.post(t, "/responses", requestBody)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("upstream saw %d requests; want 1", n)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Status(503, "Retry-After", "2"),
		rt.Reply("r1", "m1", "ok"),
	})
	h := newHarness(t, srv.URL, nil)
	resp, _, err := h.post(t, "/responses", requestBody)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second}, h.recordedSleeps()); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
}

func TestBudgetRunsOutThenRelaysLastFailure(t *testing.T) {
	last := rt.Error(502, "server_error", "", "bad gateway #4")
	_, want := reference(t, last)
	srv := rt.NewServer(t, rt.Script{rt.Status(500), rt.Status(502), rt.Status(504), last})
	h := newHarness(t, srv.URL, func(o *proxy.Options) { o.MaxRetries = 3 })
	resp, got, err := h.post(t, "/responses", requestBody)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 502 || !bytes.Equal(got, want) {
		t.Errorf("client got %d %q; want the last attempt's 502 %q", resp.StatusCode, got, want)
	}
	if v := resp.Header.Get(proxy.HeaderAttempts); v != "4" {
		t.Errorf("%s = %q; want 4", proxy.HeaderAttempts, v)
	}
	// server_error: 200 ms doubling, jitter ±10% with draw 0.
	want3 := []time.Duration{180 * time.Millisecond, 360 * time.Millisecond, 720 * time.Millisecond}
	if diff := cmp.Diff(want3, h.recordedSleeps()); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
	h.settled(t, 1)
	if s := h.p.Stats(); s.Failed != 1 || s.ByClass["server_error"].Failures != 1 || s.ByClass["server_error"].Retries != 3 {
		t.Errorf("stats = %+v", s)
	}
}

func TestNegativeMaxRetriesDisablesRetries(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Status(503)})
	h := newHarness(t, srv.URL, func(o *proxy.Options) { o.MaxRetries = -1 })
	resp, _, _ := h.post(t, "/responses", requestBody)
	if resp.StatusCode != 503 || len(srv.Requests()) != 1 {
		t.Errorf("status %d after %d requests; want 503 after 1", resp.StatusCode, len(srv.Requests()))
	}
}

func TestUpstreamUnreachable(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	h := newHarness(t, dead.URL+"/v1", func(o *proxy.Options) { o.MaxRetries = 2 })
	resp, got, err := h.post(t, "/responses", requestBody)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(got), "upstream_unavailable") {
		t.Errorf("client got %d %s; want 502 upstream_unavailable", resp.StatusCode, got)
	}
	if diff := cmp.Diff([]time.Duration{180 * time.Millisecond, 360 * time.Millisecond}, h.recordedSleeps()); diff != "" {
		t.Errorf("transport-class delays (-want +got):\n%s", diff)
	}
}

func TestRequestBodyLimit(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{})
	h := newHarness(t, srv.URL, func(o *proxy.Options) { o.MaxBodyBytes = int64(len(requestBody)) - 1 })
	resp, got, _ := h.post(t, "/responses", requestBody)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(got), "request_too_large") {
		t.Errorf("client got %d %s; want 413", resp.StatusCode, got)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("upstream saw %d requests; want 0", n)
	}
}

// TestStreamIsRelayedUnbuffered: the client reads the first text delta
// while upstream is still stalled, so nothing waits for more bytes.
func TestStreamIsRelayedUnbuffered(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Stream(
		rt.Created("r1"), rt.TextDelta("m1", "early"), rt.Stall(), rt.TextDelta("m1", " late"), rt.Completed("r1"),
	)})
	h := newHarness(t, srv.URL, nil)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.url+"/responses", strings.NewReader(requestBody))
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	next, stop := iter.Pull2(gosse.Read(resp.Body, nil))
	defer stop()
	var types []string
	for len(types) < 2 {
		ev, err, ok := next()
		if !ok || err != nil {
			t.Fatalf("stream ended early after %v: %v", types, err)
		}
		types = append(types, ev.Type)
	}
	if diff := cmp.Diff([]string{"response.created", "response.output_text.delta"}, types); diff != "" {
		t.Fatalf("events before the stall (-want +got):\n%s", diff)
	}
	srv.Release()
	for {
		ev, err, ok := next()
		if !ok || err != nil {
			break
		}
		types = append(types, ev.Type)
	}
	if types[len(types)-1] != "response.completed" {
		t.Errorf("events = %v; want the rest after Release", types)
	}
}

func TestChatCompletionsRetried(t *testing.T) {
	var calls atomic.Int32
	answers := []func(w http.ResponseWriter){
		func(w http.ResponseWriter) {
			w.Header().Set("Retry-After-Ms", "1500")
			http.Error(w, `{"error":{"message":"Too Many Requests"}}`, http.StatusTooManyRequests)
		},
		func(w http.ResponseWriter) { // the seed's "200 with an error in the body"
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"error":{"message":"The server is overloaded"}}`)
		},
		func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","choices":[]}`)
		},
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("upstream path %s", r.URL.Path)
		}
		answers[min(int(calls.Add(1))-1, len(answers)-1)](w)
	}))
	defer up.Close()
	h := newHarness(t, up.URL+"/v1", nil)
	resp, got, err := h.post(t, "/chat/completions", `{"model":"m","messages":[]}`)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	if string(got) != `{"id":"c1","object":"chat.completion","choices":[]}` {
		t.Errorf("body = %s", got)
	}
	if calls.Load() != 3 {
		t.Errorf("upstream saw %d requests; want 3", calls.Load())
	}
	// The server's 1.5 s, then retry 2 on the overloaded schedule (its
	// second step: retries are numbered per request, not per class).
	if diff := cmp.Diff([]time.Duration{1500 * time.Millisecond, 5 * time.Second}, h.recordedSleeps()); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
}

func TestOtherPathsPassThroughOnce(t *testing.T) {
	var calls atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/api/v1/models" || r.URL.Query().Get("api-version") != "7" || r.URL.Query().Get("limit") != "2" {
			t.Errorf("upstream got %s", r.URL)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer provider-key" {
			t.Errorf("Authorization = %q", got)
		}
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer up.Close()
	h := newHarness(t, up.URL+"/api/v1", func(o *proxy.Options) {
		o.Header = http.Header{"Authorization": {"Bearer provider-key"}}
		o.Query = map[string][]string{"api-version": {"7"}}
	})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, h.url+"/models?limit=2", nil)
	req.Header.Set("Authorization", "Bearer client-dummy")
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || calls.Load() != 1 {
		t.Errorf("status %d after %d calls; want 503 after 1 (no retries off the retried paths)", resp.StatusCode, calls.Load())
	}
	if resp.Header.Get(proxy.HeaderProxy) != "1" || resp.Header.Get(proxy.HeaderAttempts) != "1" {
		t.Errorf("headers = %v", resp.Header)
	}
	h.settled(t, 1)
	if strings.Contains(h.logs.String(), "provider-key") {
		t.Errorf("the Authorization header reached the log:\n%s", h.logs)
	}
}

func TestProviderHeadersReplaceTheClients(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Status(500), rt.Reply("r1", "m1", "ok")})
	h := newHarness(t, srv.URL, func(o *proxy.Options) {
		o.Header = http.Header{"Authorization": {"Bearer provider-key-LEAKCHECK"}, "X-Team": {"infra"}}
	})
	resp, _, err := h.post(t, "/responses", requestBody, "Authorization", "Bearer client-dummy", "Accept-Encoding", "gzip")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	for i, r := range srv.Requests() {
		if got := r.Header.Get("Authorization"); got != "Bearer provider-key-LEAKCHECK" {
			t.Errorf("request %d Authorization = %q", i, got)
		}
		if got := r.Header.Get("X-Team"); got != "infra" {
			t.Errorf("request %d X-Team = %q", i, got)
		}
	}
	h.settled(t, 1)
	if logs := h.logs.String(); strings.Contains(logs, "LEAKCHECK") || strings.Contains(logs, "client-dummy") {
		t.Errorf("a credential reached the log:\n%s", logs)
	}
}

// TestGateBoundsConcurrentRetries: 20 clients all fail once, then every
// re-send blocks upstream until released. At most MaxConcurrentRetries
// re-sends may be in flight; the rest wait for the gate, and first
// attempts never do.
func TestGateBoundsConcurrentRetries(t *testing.T) {
	const clients, limit = 20, 3
	var (
		mu        sync.Mutex
		seen      = map[string]int{}
		inFlight  int
		maxFlight int
		total     atomic.Int32
	)
	release := make(chan struct{})
	entered := make(chan struct{}, clients)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		total.Add(1)
		id := r.Header.Get("X-Client")
		mu.Lock()
		seen[id]++
		first := seen[id] == 1
		if !first {
			inFlight++
			maxFlight = max(maxFlight, inFlight)
		}
		mu.Unlock()
		if first {
			http.Error(w, `{"error":{"message":"`+atCapacity+`"}}`, http.StatusServiceUnavailable)
			return
		}
		entered <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r\"}}\n\n")
	}))
	defer up.Close()
	h := newHarness(t, up.URL+"/v1", func(o *proxy.Options) { o.MaxConcurrentRetries = limit })

	var wg sync.WaitGroup
	statuses := make([]int, clients)
	for i := range clients {
		wg.Go(func() {
			resp, _, err := h.post(t, "/responses", requestBody, "X-Client", strconv.Itoa(i))
			if err != nil {
				t.Error(err)
			}
			statuses[i] = resp.StatusCode
		})
	}
	for range limit {
		<-entered
	}
	waitFor(t, func() bool {
		s := h.p.Stats()
		return s.Retrying == limit && s.Waiting == clients-limit
	})
	close(release)
	wg.Wait()

	if maxFlight != limit {
		t.Errorf("at most %d re-sends were in flight at once; want exactly %d", maxFlight, limit)
	}
	if total.Load() != 2*clients {
		t.Errorf("upstream saw %d requests; want %d", total.Load(), 2*clients)
	}
	for i, s := range statuses {
		if s != 200 {
			t.Errorf("client %d got %d", i, s)
		}
	}
	// A client may read the end of its body before its handler returns.
	waitFor(t, func() bool {
		s := h.p.Stats()
		return s.Requests == clients && s.RetrySuccesses == clients && s.Retrying == 0 && s.Waiting == 0
	})
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatal("condition not reached in 10s")
		case <-tick.C:
		}
	}
}

func TestStatsEndpointAndLines(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Status(429), rt.Reply("r1", "m1", "a"),
		rt.Error(400, "invalid_request_error", "", "bad"),
	})
	h := newHarness(t, srv.URL, func(o *proxy.Options) { o.StatsEvery = 2 })
	h.post(t, "/responses", requestBody)
	h.post(t, "/responses", requestBody)
	h.settled(t, 2)

	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, strings.TrimSuffix(h.url, "/v1")+proxy.StatsPath, nil)
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got proxy.Stats
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := proxy.Stats{
		Requests: 2, OK: 1, Failed: 1, Retries: 1, RetrySuccesses: 1,
		ByClass: map[string]proxy.ClassStats{
			"rate_limit":      {Retries: 1},
			"invalid_request": {Failures: 1},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	// The STATS line follows the count.
	waitFor(t, func() bool {
		return strings.Contains(h.logs.String(), "msg=STATS requests=2 ok=1 failed=1 failed_after_commit=0 retries=1 retry_successes=1")
	})
}

func TestNewValidates(t *testing.T) {
	if _, err := proxy.New(proxy.Options{}); err == nil {
		t.Error("New without an upstream succeeded")
	}
	u := mustURL(t, "http://127.0.0.1:1/v1")
	if _, err := proxy.New(proxy.Options{Upstream: u, WebSocket: "sometimes"}); err == nil {
		t.Error("New with an unknown websocket mode succeeded")
	}
	if _, err := proxy.New(proxy.Options{Upstream: mustURL(t, "ftp://x/v1")}); err == nil {
		t.Error("New with an ftp upstream succeeded")
	}
}

// TestStreamRelayedToItsEndIsOK: a client (Codex does this) reads up to
// response.completed and closes the connection without waiting for the
// end of the body: the request is OK, not a failure.
func TestStreamRelayedToItsEndIsOK(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.MessageDone("m1", "answer"), rt.Completed("r1"), rt.Stall()),
	})
	h := newHarness(t, srv.URL, nil)
	ctx, cancel := context.WithCancel(t.Context())
	resp, err := postJSON(ctx, h.client, h.url+"/responses", requestBody)
	if err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(seen.String(), "response.completed") {
		n, err := resp.Body.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			t.Fatalf("read: %v after %q", err, seen.String())
		}
	}
	cancel()
	resp.Body.Close()
	h.settled(t, 1)
	if s := h.p.Stats(); s.OK != 1 || s.Failed != 0 || s.FailedAfterCommit != 0 {
		t.Errorf("stats ok=%d failed=%d failed_after_commit=%d; want 1, 0, 0", s.OK, s.Failed, s.FailedAfterCommit)
	}
	if logs := h.logs.String(); !strings.Contains(logs, "msg=OK") || strings.Contains(logs, "msg=FAILED") {
		t.Errorf("log does not say OK:\n%s", logs)
	}
}

// TestCutAfterCommitCountsAsFailedAfterCommit: the stats say a stream
// broke after its first bytes reached the client.
func TestCutAfterCommitCountsAsFailedAfterCommit(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "partial answer"), rt.Drop()),
	})
	h := newHarness(t, srv.URL, nil)
	h.post(t, "/responses", requestBody)
	h.settled(t, 1)
	if s := h.p.Stats(); s.Failed != 1 || s.FailedAfterCommit != 1 {
		t.Errorf("stats failed=%d failed_after_commit=%d; want 1 and 1", s.Failed, s.FailedAfterCommit)
	}
}

// TestServerDelayBeyondCapIsRelayedAtOnce: a 429 asking for an hour is not
// retried early after the class's cap: the client gets it at once, with
// the server's Retry-After.
func TestServerDelayBeyondCapIsRelayedAtOnce(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Status(429, "Retry-After", "3600")})
	h := newHarness(t, srv.URL, nil)
	resp, _, _ := h.post(t, "/responses", requestBody)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3600" {
		t.Errorf("status %d Retry-After %q; want 429 and 3600", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("upstream saw %d requests; want 1", n)
	}
	if s := h.recordedSleeps(); len(s) != 0 {
		t.Errorf("slept %v; want none", s)
	}
}

// TestRetryAfterDateOnTheProxysClock: a Retry-After HTTP date is measured
// against the proxy's clock (Options.Now), not the machine's: a server
// dated in 2030 asking to wait until 7 s after its date is waited 7 s.
func TestRetryAfterDateOnTheProxysClock(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	srv := rt.NewServer(t, rt.Script{
		rt.Status(503, "Retry-After", now.Add(7*time.Second).Format(http.TimeFormat)),
		rt.Reply("r1", "m1", "ok"),
	})
	h := newHarness(t, srv.URL, func(o *proxy.Options) { o.Now = func() time.Time { return now } })
	resp, _, err := h.post(t, "/responses", requestBody)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v", resp.StatusCode, err)
	}
	if diff := cmp.Diff([]time.Duration{7 * time.Second}, h.recordedSleeps()); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
}

// TestCleanEndBeforeFinalEventIsCut: an upstream that ends its stream
// cleanly after bytes reached the client but before response.completed
// (or failed, incomplete) is a truncated answer: the client's stream is
// cut, not ended cleanly, and the request counts as failed_after_commit.
func TestCleanEndBeforeFinalEventIsCut(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "partial answer"), rt.End()),
	})
	h := newHarness(t, srv.URL, nil)
	resp, got, err := h.post(t, "/responses", requestBody)
	if resp.StatusCode != 200 {
		t.Fatalf("status = %d", resp.StatusCode)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error = %v; want io.ErrUnexpectedEOF (a stream without its final event must not look complete)", err)
	}
	if !strings.Contains(string(got), "partial answer") {
		t.Errorf("client saw %q; want the bytes streamed before the end", got)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("upstream saw %d requests; want 1", n)
	}
	h.settled(t, 1)
	if s := h.p.Stats(); s.OK != 0 || s.Failed != 1 || s.FailedAfterCommit != 1 {
		t.Errorf("stats ok=%d failed=%d failed_after_commit=%d; want 0, 1, 1", s.OK, s.Failed, s.FailedAfterCommit)
	}
	if logs := h.logs.String(); !strings.Contains(logs, "msg=FAILED") || !strings.Contains(logs, "committed=true") {
		t.Errorf("log lacks FAILED committed=true:\n%s", logs)
	}
}

// TestAnthropicMessagesRetried: a client of Anthropic's Messages API
// (Claude Code, an SDK) sending POST /v1/messages through the proxy is
// retried as Responses and Chat clients are: a 529 overloaded_error (its
// retry-after honoured), then a stream that fails with an overloaded
// error event right after message_start (nothing shown yet), then the
// answer, relayed byte for byte; the client's x-api-key passes through.
// A stream that ends cleanly before message_stop is cut, never relayed
// as complete.
func TestAnthropicMessagesRetried(t *testing.T) {
	answer := rt.ClaudeReply("the answer")
	up := rt.NewServer(t, rt.Script{
		rt.StatusBody(529, rt.ClaudeErrorBody("overloaded_error", "Overloaded"), "retry-after", "3"),
		rt.Claude(rt.ClaudeStart("msg_x", 5, 0, 0), rt.ClaudeError("overloaded_error", "Overloaded")),
		answer,
		rt.Claude(rt.ClaudeStart("msg_y", 5, 0, 0), rt.ClaudeText(0, "half"), rt.End()),
	})
	h := newHarness(t, up.URL, nil)
	const body = `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	resp, got, err := h.post(t, "/messages", body, "X-Api-Key", "sk-ant-client", "Anthropic-Version", "2023-06-01")
	if err != nil || resp.StatusCode != 200 || resp.Header.Get(proxy.HeaderAttempts) != "3" {
		t.Fatalf("status %d attempts %q err %v:\n%s", resp.StatusCode, resp.Header.Get(proxy.HeaderAttempts), err, got)
	}
	if _, want := reference(t, answer); string(got) != string(want) {
		t.Errorf("relayed body:\n%s\nwant the answer's bytes:\n%s", got, want)
	}
	reqs := up.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d upstream requests; want 3", len(reqs))
	}
	for _, q := range reqs {
		if q.Path != "/v1/messages" || q.Header.Get("X-Api-Key") != "sk-ant-client" || string(q.Body) != body {
			t.Errorf("upstream request %s x-api-key %q body %s", q.Path, q.Header.Get("X-Api-Key"), q.Body)
		}
	}
	sleeps := h.recordedSleeps()
	if len(sleeps) != 2 || sleeps[0] != 3*time.Second {
		t.Errorf("waits %v; want the server's 3 s, then the overload schedule's", sleeps)
	}

	_, got, err = h.post(t, "/messages", body)
	if err == nil || strings.Contains(string(got), "message_stop") {
		t.Errorf("a stream without message_stop: read error %v; want the response cut:\n%s", err, got)
	}
}
