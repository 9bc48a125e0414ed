package proxy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/proxy"
)

// TestClientGoneIsCountedApart: a client that hangs up mid-stream, while
// its request waits to retry, or while the upstream has not answered yet
// is counted in client_gone with a GONE line, not as an upstream failure
// (it was "permanent" before), and its upstream request is cancelled:
// the handler could not finish otherwise, as the upstream never ends.
func TestClientGoneIsCountedApart(t *testing.T) {
	tests := []struct {
		name      string
		script    rt.Script
		committed bool
		// at picks the channel closed once the request is where the
		// client hangs up: the client read the stream's first byte, or
		// the proxy sleeps before a retry. Nil: the upstream got it.
		at func(read, sleeping <-chan struct{}) <-chan struct{}
	}{
		{"mid-stream", rt.Script{rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "partial"), rt.Stall())}, true,
			func(read, _ <-chan struct{}) <-chan struct{} { return read }},
		{"waiting to retry", rt.Script{rt.Status(503)}, false,
			func(_, sleeping <-chan struct{}) <-chan struct{} { return sleeping }},
		{"upstream not answering", rt.Script{rt.Hang()}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, tt.script)
			sleeping := make(chan struct{})
			h := newHarness(t, srv.URL, func(o *proxy.Options) {
				o.Sleep = func(ctx context.Context, _ time.Duration) error {
					close(sleeping)
					<-ctx.Done()
					return ctx.Err()
				}
			})
			ctx, cancel := context.WithCancel(t.Context())
			done, read := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := postJSON(ctx, h.client, h.url+"/responses", requestBody); err == nil {
					buf := make([]byte, 1)
					_, _ = resp.Body.Read(buf)
					close(read)
					<-ctx.Done()
					resp.Body.Close()
				}
			}()
			if tt.at != nil {
				<-tt.at(read, sleeping)
			}
			waitFor(t, func() bool { return len(srv.Requests()) == 1 })
			cancel()
			<-done
			h.settled(t, 1)
			s := h.p.Stats()
			if s.ClientGone != 1 || s.Failed != 0 || s.OK != 0 || len(s.ByClass) > 1 || s.InFlight != 0 {
				t.Errorf("stats = %+v; want one client gone, no failure", s)
			}
			logs := h.logs.String()
			want := "reason=closed committed=" + map[bool]string{true: "true", false: "false"}[tt.committed]
			if !strings.Contains(logs, "msg=GONE") || !strings.Contains(logs, want) || strings.Contains(logs, "msg=FAILED") {
				t.Errorf("log lacks GONE %s or has FAILED:\n%s", want, logs)
			}
		})
	}
}
