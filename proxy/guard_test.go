package proxy_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/proxy"
)

// upstreamRecorder is an upstream that answers 200 and records the path
// and Authorization of each request it gets.
type upstreamRecorder struct {
	mu   sync.Mutex
	seen []string // "PATH AUTH"
}

func (u *upstreamRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.seen = append(u.seen, r.URL.EscapedPath()+" "+r.Header.Get("Authorization"))
	u.mu.Unlock()
	_, _ = io.WriteString(w, `{"ok":true}`)
}

func (u *upstreamRecorder) requests() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.seen...)
}

// rawRequest sends a request line and headers exactly as written (Host
// included, path unnormalised) to the proxy and returns the status.
func rawRequest(t *testing.T, h *harness, method, path string, header map[string]string) int {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(h.url, "http://"), "/v1")
	req, err := http.NewRequestWithContext(t.Context(), method, "http://"+addr+"/", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.URL.Opaque = path // sent as written: no cleaning by the client
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestProxyServesOnlyItsOwnMachine: a page in a browser reaches a loopback
// proxy through DNS rebinding (Host: attacker.example) or a cross-origin
// request (Origin set); neither may get the provider's key added.
func TestProxyServesOnlyItsOwnMachine(t *testing.T) {
	up := &upstreamRecorder{}
	srv := httptest.NewServer(up)
	defer srv.Close()
	h := newHarness(t, srv.URL+"/v1", func(o *proxy.Options) {
		o.Header = http.Header{"Authorization": {"Bearer provider-key"}}
	})
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(h.url, "http://"), "/v1"))
	refused := []struct {
		name   string
		method string
		path   string
		header map[string]string
		want   int
	}{
		{"rebinding host", "POST", "/v1/responses", map[string]string{"Host": "attacker.example:" + port}, http.StatusMisdirectedRequest},
		{"rebinding host without port", "POST", "/v1/responses", map[string]string{"Host": "attacker.example"}, http.StatusMisdirectedRequest},
		{"loopback name, other port", "POST", "/v1/responses", map[string]string{"Host": "localhost:1"}, http.StatusMisdirectedRequest},
		{"text/plain from a page", "POST", "/v1/responses", map[string]string{"Host": "attacker.example:" + port, "Origin": "http://attacker.example", "Content-Type": "text/plain"}, http.StatusMisdirectedRequest},
		{"origin on loopback", "POST", "/v1/responses", map[string]string{"Origin": "http://127.0.0.1:" + port}, http.StatusForbidden},
		{"origin null", "GET", "/v1/models", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"origin on stats", "GET", proxy.StatsPath, map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
	}
	for _, c := range refused {
		if got := rawRequest(t, h, c.method, c.path, c.header); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	if got := up.requests(); len(got) != 0 {
		t.Fatalf("refused requests reached upstream: %q", got)
	}

	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port} {
		if got := rawRequest(t, h, "GET", "/v1/models", map[string]string{"Host": host}); got != 200 {
			t.Errorf("Host %s: status %d, want 200", host, got)
		}
	}
}

// TestProxyAddsTheKeyOnlyOnAPIPaths: paths are cleaned before they are
// routed, and the provider's headers go only with its API paths.
func TestProxyAddsTheKeyOnlyOnAPIPaths(t *testing.T) {
	up := &upstreamRecorder{}
	srv := httptest.NewServer(up)
	defer srv.Close()
	h := newHarness(t, srv.URL+"/v1", func(o *proxy.Options) {
		o.Header = http.Header{"Authorization": {"Bearer provider-key"}}
	})
	for _, path := range []string{
		"/v1/files",
		"/v1/../x",
		"/v1/%2e%2e/x",
		"/v1/responses/../../admin",
		"/v1//responses",
		"/v1/models/../files",
		"/v1/organization/api_keys",
	} {
		rawRequest(t, h, "GET", path, nil)
	}
	rawRequest(t, h, "GET", "/v1/models", nil)
	rawRequest(t, h, "GET", "/v1/./models/gpt-x", nil)
	want := []string{
		"/v1/files ",
		"/v1/x ",
		"/v1/x ",
		"/v1/admin ",
		"/v1/responses Bearer provider-key",
		"/v1/files ",
		"/v1/organization/api_keys ",
		"/v1/models Bearer provider-key",
		"/v1/models/gpt-x Bearer provider-key",
	}
	got := up.requests()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("upstream saw:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A retried path keeps the key.
	srv2 := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "ok")})
	h2 := newHarness(t, srv2.URL, func(o *proxy.Options) {
		o.Header = http.Header{"Authorization": {"Bearer provider-key"}}
	})
	if resp, _, _ := h2.post(t, "/responses", requestBody); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := srv2.Requests()[0].Header.Get("Authorization"); got != "Bearer provider-key" {
		t.Errorf("Authorization on /v1/responses = %q", got)
	}
}

// TestAllowRemoteAcceptsAnyHostButNoOrigin: --allow-remote serves other
// machines (their Host names this one), but never a web page.
func TestAllowRemoteAcceptsAnyHostButNoOrigin(t *testing.T) {
	up := &upstreamRecorder{}
	srv := httptest.NewServer(up)
	defer srv.Close()
	h := newHarness(t, srv.URL+"/v1", func(o *proxy.Options) { o.AllowRemote = true })
	if got := rawRequest(t, h, "GET", "/v1/models", map[string]string{"Host": "build-box.lan:8787"}); got != 200 {
		t.Errorf("remote Host: status %d, want 200", got)
	}
	if got := rawRequest(t, h, "GET", "/v1/models", map[string]string{"Host": "build-box.lan:8787", "Origin": "http://build-box.lan"}); got != 403 {
		t.Errorf("Origin: status %d, want 403", got)
	}
	if got := len(up.requests()); got != 1 {
		t.Errorf("upstream got %d requests, want 1", got)
	}
}
