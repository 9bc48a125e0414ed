package proxy_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/proxy"
)

// serve runs p.Serve on a loopback listener until the returned cancel is
// called; wait returns Serve's result.
func serve(t *testing.T, p *proxy.Proxy) (base string, cancel context.CancelFunc, wait func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	var serveErr error
	go func() {
		defer close(done)
		serveErr = p.Serve(ctx, ln)
	}()
	wait = func() error {
		select {
		case <-done:
			return serveErr
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return 10s after its context ended")
			return nil
		}
	}
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String() + "/v1", cancel, wait
}

func TestServeShutsDownGracefully(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "ok")})
	tr := &http.Transport{}
	p, err := proxy.New(proxy.Options{Upstream: mustURL(t, srv.URL), Transport: tr})
	if err != nil {
		t.Fatal(err)
	}
	base, cancel, wait := serve(t, p)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := postJSON(t.Context(), client, base+"/responses", requestBody)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "response.completed") {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
	cancel()
	if err := wait(); err != nil {
		t.Errorf("Serve = %v; want nil after its context ended", err)
	}
	if resp, err := postJSON(t.Context(), client, base+"/responses", requestBody); err == nil {
		resp.Body.Close()
		t.Error("the proxy still answers after shutdown")
	}
}

// TestServeCutsOffWaitingRetries: a request waiting to retry when the
// proxy stops is cancelled once ShutdownTimeout passes; Serve returns.
func TestServeCutsOffWaitingRetries(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Status(503)})
	waiting := make(chan struct{})
	p, err := proxy.New(proxy.Options{
		Upstream:  mustURL(t, srv.URL),
		Transport: &http.Transport{},
		Sleep: func(ctx context.Context, d time.Duration) error {
			close(waiting)
			<-ctx.Done() // a long backoff
			return ctx.Err()
		},
		ShutdownTimeout: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	base, cancel, wait := serve(t, p)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	got := make(chan int, 1)
	go func() {
		resp, err := postJSON(context.Background(), client, base+"/responses", requestBody)
		if err != nil {
			got <- 0 // the connection was closed under the request: also fine
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	<-waiting
	cancel()
	if err := wait(); err != nil {
		t.Errorf("Serve = %v", err)
	}
	if code := <-got; code != 0 && code != http.StatusServiceUnavailable {
		t.Errorf("client got %d; want 503 or a closed connection", code)
	}
	if s := p.Stats(); s.Requests != 1 || s.InFlight != 0 {
		t.Errorf("stats after Serve = %+v; want the request finished", s)
	}
}
