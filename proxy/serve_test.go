package proxy_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
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

// TestServeAnswersWaitingRequestsAtShutdown: when the proxy stops, a
// request waiting out a retry's backoff and one queued behind the
// cooldown it set each get a 503 naming the shutdown (before, the
// connection was closed under them), at once, not after the
// ShutdownTimeout; a stream in flight finishes whole; Serve returns.
func TestServeAnswersWaitingRequestsAtShutdown(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "streaming"), rt.Barrier("streaming"), rt.Stall(),
			rt.TextDelta("m1", " on"), rt.Completed("r1")),
		rt.Status(429, "Retry-After", "30"), // a cooldown of the gate: later requests queue behind it
	})
	sleeping := make(chan struct{}, 1)
	p, err := proxy.New(proxy.Options{
		Upstream:  mustURL(t, srv.URL),
		Transport: &http.Transport{},
		Sleep: func(ctx context.Context, d time.Duration) error {
			sleeping <- struct{}{}
			<-ctx.Done() // a long backoff
			return ctx.Err()
		},
		ShutdownTimeout: time.Minute, // far beyond the 10 s serve() allows Serve to return
	})
	if err != nil {
		t.Fatal(err)
	}
	base, cancel, wait := serve(t, p)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()

	stream, err := postJSON(t.Context(), client, base+"/responses", requestBody)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	<-srv.Reached("streaming")
	answers := make(chan string, 2)
	ask := func() {
		resp, err := postJSON(context.Background(), client, base+"/responses", requestBody)
		if err != nil {
			answers <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		answers <- strconv.Itoa(resp.StatusCode) + " " + string(body)
	}
	go ask()
	<-sleeping // the 429's backoff, a cooldown
	go ask()
	waitFor(t, func() bool { return p.Stats().Waiting == 1 }) // queued behind the cooldown
	cancel()
	for range 2 {
		if got := <-answers; !strings.HasPrefix(got, "503 ") || !strings.Contains(got, `"code":"proxy_shutting_down"`) ||
			!strings.Contains(got, "shutting down") {
			t.Errorf("a waiting request got %q; want a 503 naming the shutdown", got)
		}
	}
	srv.Release()
	body, err := io.ReadAll(stream.Body)
	if err != nil || !strings.Contains(string(body), "response.completed") {
		t.Errorf("the stream in flight at shutdown: %v after %q; want it whole", err, body)
	}
	if err := wait(); err != nil {
		t.Errorf("Serve = %v", err)
	}
	if s := p.Stats(); s.Requests != 3 || s.OK != 1 || s.Failed != 2 || s.InFlight != 0 {
		t.Errorf("stats after Serve = %+v; want 1 OK and 2 answered 503", s)
	}
}

// TestServeCutsOffStreamsAfterShutdownTimeout: a stream that outlasts
// ShutdownTimeout is cut (the client sees the break), and Serve returns.
func TestServeCutsOffStreamsAfterShutdownTimeout(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "streaming"), rt.Barrier("streaming"), rt.Stall()),
	})
	p, err := proxy.New(proxy.Options{Upstream: mustURL(t, srv.URL), Transport: &http.Transport{}, ShutdownTimeout: time.Millisecond})
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
	defer resp.Body.Close()
	<-srv.Reached("streaming")
	cancel()
	if err := wait(); err != nil {
		t.Errorf("Serve = %v", err)
	}
	if body, err := io.ReadAll(resp.Body); err == nil {
		t.Errorf("the stream cut at shutdown ended cleanly: %q", body)
	}
	if s := p.Stats(); s.Requests != 1 || s.Failed != 1 || s.FailedAfterCommit != 1 || s.ClientGone != 0 {
		t.Errorf("stats after Serve = %+v; want one stream failed after commit, not a client gone", s)
	}
}
