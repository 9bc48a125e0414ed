package proxy_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
	"github.com/agentcli/agent/proxy"
)

// TestMain fails the package if a goroutine outlives the tests: every
// handler, relayed stream and idle upstream connection has an owner.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// harness is a proxy under test, served on loopback, with a recording
// Sleeper (no test waits for real) and a captured log.
type harness struct {
	p      *proxy.Proxy
	url    string // the proxy's base URL, ending in /v1
	client *http.Client
	logs   *syncbuf.Buffer

	mu     sync.Mutex
	sleeps []time.Duration
}

// newHarness starts a proxy in front of upstream (an API root such as
// rt.Server.URL). set, if non-nil, adjusts the options first. Jitter draws
// are 0, so delays are the policies' lower bounds.
func newHarness(t *testing.T, upstream string, set func(*proxy.Options)) *harness {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{logs: &syncbuf.Buffer{}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	opts := proxy.Options{
		Upstream:  u,
		Transport: tr,
		Sleep: func(ctx context.Context, d time.Duration) error {
			h.mu.Lock()
			h.sleeps = append(h.sleeps, d)
			h.mu.Unlock()
			return ctx.Err()
		},
		Rand:   func() float64 { return 0 },
		Logger: newLogger(h.logs),
	}
	if set != nil {
		set(&opts)
	}
	p, err := proxy.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.p = p
	srv := httptest.NewServer(p)
	h.url = srv.URL + "/v1"
	h.client = srv.Client()
	t.Cleanup(func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	return h
}

func (h *harness) recordedSleeps() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Duration(nil), h.sleeps...)
}

// post sends body to path through the proxy and reads the whole answer.
// readErr is the error that ended the body early, if any.
func (h *harness) post(t *testing.T, path, body string, header ...string) (resp *http.Response, got []byte, readErr error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, h.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err = h.client.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	got, readErr = io.ReadAll(resp.Body)
	return resp, got, readErr
}

// postJSON POSTs body to url with client, bound to ctx.
func postJSON(ctx context.Context, client *http.Client, url, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return client.Do(req)
}

// reference returns the exact bytes a lone upstream answers with a, so a
// relayed body can be compared byte for byte.
func reference(t *testing.T, a rt.Attempt) (int, []byte) {
	t.Helper()
	srv := rt.NewServer(t, rt.Script{a})
	resp, err := postJSON(t.Context(), srv.Client(), srv.URL+"/responses", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// requestBody is what the fake client sends; tests check it reaches
// upstream unchanged on every attempt and never reaches the log.
const requestBody = `{"model":"m","input":"PROMPT-SECRET-TEXT","stream":true}`

// newLogger is the proxy's text logger writing to w at debug level, so
// tests also see the lines a user gets with --log-level debug.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// settled waits until the proxy has finished n requests: a client can
// read the end of a body before its handler logs and counts it.
func (h *harness) settled(t *testing.T, n int64) {
	t.Helper()
	waitFor(t, func() bool { return h.p.Stats().Requests >= n })
}
