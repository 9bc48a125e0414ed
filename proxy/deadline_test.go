package proxy_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
	"github.com/agentcli/agent/proxy"
)

// netPipeListener serves net.Pipe connections: unbuffered, so a client
// that stops reading blocks the proxy's next write, as a full socket
// buffer would. It is safe inside a synctest bubble.
type netPipeListener struct {
	conns     chan net.Conn
	closed    chan struct{}
	closeOnce sync.Once
}

func newNetPipeListener() *netPipeListener {
	return &netPipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *netPipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	srv, cli := net.Pipe()
	select {
	case l.conns <- srv:
		return cli, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *netPipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *netPipeListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return nil
}

func (l *netPipeListener) Addr() net.Addr { return &net.UnixAddr{Name: "pipe", Net: "pipe"} }

// pipeProxy serves a proxy in front of upstream on a netPipeListener in
// the current synctest bubble; it returns a client of it and a stop that
// shuts the proxy down and waits for Serve.
func pipeProxy(t *testing.T, upstream *rt.Server, writeTimeout time.Duration) (p *proxy.Proxy, client *http.Client, stop func()) {
	t.Helper()
	p, err := proxy.New(proxy.Options{
		Upstream:     mustURL(t, upstream.URL),
		Transport:    upstream.PipeClient().Transport,
		WriteTimeout: writeTimeout,
		AllowRemote:  true, // a pipe has no host and port to check Host against
	})
	if err != nil {
		t.Fatal(err)
	}
	_, client, stop = servePipe(t, p)
	return p, client, stop
}

// servePipe serves p on a netPipeListener in the current synctest bubble;
// it returns the base URL clients use, a client and a stop that shuts p
// down and waits for Serve.
func servePipe(t *testing.T, p *proxy.Proxy) (base string, client *http.Client, stop func()) {
	t.Helper()
	ln := newNetPipeListener()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Serve(ctx, ln); err != nil {
			t.Error(err)
		}
	}()
	tr := &http.Transport{DialContext: ln.dial}
	return "http://proxy.invalid/v1", &http.Client{Transport: tr}, func() { cancel(); <-done; tr.CloseIdleConnections() }
}

// TestStalledClientIsCutAfterWriteTimeout: a client that reads the start
// of a stream and then stops reading is cut off exactly WriteTimeout after
// the write it left blocked, counted in client_gone, and the upstream
// stream it held is closed. Before, the handler (and the upstream stream)
// waited for ever.
func TestStalledClientIsCutAfterWriteTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Second
		big := strings.Repeat("x", 64<<10)
		up := rt.NewPipeServer(t, rt.Script{rt.Stream(rt.Created("r1"),
			rt.TextDelta("m1", big), rt.TextDelta("m1", big), rt.TextDelta("m1", big), rt.Stall())})
		p, client, stop := pipeProxy(t, up, timeout)
		defer stop()
		resp, err := postJSON(t.Context(), client, "http://proxy.invalid/v1/responses", requestBody)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if _, err := resp.Body.Read(make([]byte, 1)); err != nil { // then it stops reading
			t.Fatal(err)
		}
		start := time.Now()
		time.Sleep(timeout - time.Millisecond)
		synctest.Wait()
		if s := p.Stats(); s.Requests != 0 || s.InFlight != 1 {
			t.Fatalf("after %v: stats %+v; want the stream still held", time.Since(start), s)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if s := p.Stats(); s.Requests != 1 || s.ClientGone != 1 || s.Failed != 0 || s.InFlight != 0 {
			t.Errorf("after %v: stats %+v; want the client cut off and counted gone", time.Since(start), s)
		}
		if _, err := io.ReadAll(resp.Body); err == nil {
			t.Error("the cut stream read to a clean end")
		}
	})
}

// TestSlowReaderIsNotCut: a client that reads late, but within
// WriteTimeout of each write, gets the whole stream: the deadline bounds
// each write, not the stream (which lasts twice as long).
func TestSlowReaderIsNotCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Second
		steps := []rt.Step{rt.Created("r1")}
		for range 5 {
			steps = append(steps, rt.TextDelta("m1", "slow"), rt.Sleep(time.Second))
		}
		up := rt.NewPipeServer(t, rt.Script{rt.Stream(append(steps, rt.Completed("r1"))...)})
		p, client, stop := pipeProxy(t, up, timeout)
		defer stop()
		resp, err := postJSON(t.Context(), client, "http://proxy.invalid/v1/responses", requestBody)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		start := time.Now()
		var got strings.Builder
		buf := make([]byte, 64<<10)
		for {
			// Each read comes 5 s late: the stream then waits up to
			// twice that in all, the first read taking what the
			// client's buffer holds, the next the write that waits.
			time.Sleep(timeout / 2)
			n, err := resp.Body.Read(buf)
			got.Write(buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("read: %v after %q", err, got.String())
			}
		}
		if !strings.Contains(got.String(), "response.completed") {
			t.Errorf("stream = %q; want it whole", got.String())
		}
		if d := time.Since(start); d < 2*timeout {
			t.Errorf("the stream took %v; the test means one outlasting the write timeout", d)
		}
		synctest.Wait()
		if s := p.Stats(); s.OK != 1 || s.ClientGone != 0 {
			t.Errorf("stats %+v; want the slow stream OK", s)
		}
	})
}

// TestStalledClientOfAPassThroughIsCut: a client that stops reading a
// large pass-through download (a path that is not retried) is cut off
// after WriteTimeout too, and counted as gone, not as a failed request.
func TestStalledClientOfAPassThroughIsCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 10 * time.Second
		upLn := newNetPipeListener()
		upSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The body starts a second after the headers: by then
			// httputil.ReverseProxy's first (timer) flush has run. Were it
			// still waiting for the copy's mutex, which synctest does not
			// count as durably blocked, the bubble's clock would stop.
			_ = http.NewResponseController(w).Flush()
			time.Sleep(time.Second)
			chunk := []byte(strings.Repeat("x", 32<<10))
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		})}
		go func() { _ = upSrv.Serve(upLn) }()
		upTr := &http.Transport{DialContext: upLn.dial}
		logs := &syncbuf.Buffer{}
		p, err := proxy.New(proxy.Options{Upstream: mustURL(t, "http://upstream.invalid/v1"), Transport: upTr,
			WriteTimeout: timeout, Logger: newLogger(logs), AllowRemote: true}) // a pipe has no port
		if err != nil {
			t.Fatal(err)
		}
		base, client, stop := servePipe(t, p)
		defer func() { stop(); _ = upSrv.Close(); upTr.CloseIdleConnections() }()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/files/f1/content", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		start := time.Now()
		time.Sleep(time.Second + timeout) // the client reads nothing
		synctest.Wait()
		if s := p.Stats(); s.Requests != 1 || s.ClientGone != 1 || s.Failed != 0 {
			t.Errorf("after %v: stats %+v; want the stalled download cut off and counted gone", time.Since(start), s)
		}
		if !strings.Contains(logs.String(), "msg=GONE") || !strings.Contains(logs.String(), "reason=stalled") {
			t.Errorf("log lacks GONE reason=stalled:\n%s", logs)
		}
	})
}
