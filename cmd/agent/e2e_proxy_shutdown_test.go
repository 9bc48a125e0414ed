package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EProxySIGTERMAnswersWaitingRequests: a real `agent proxy` sent
// SIGTERM while one request waits out a 30 s retry backoff and another
// streams answers the waiting one 503 proxy_shutting_down at once (it got
// a bare connection close before), lets the stream finish whole, and
// exits 0 with its summary.
func TestE2EProxySIGTERMAnswersWaitingRequests(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "streaming"), rt.Barrier("streaming"), rt.Stall(),
			rt.TextDelta("m1", " on"), rt.Completed("r1")),
		rt.Status(503, "Retry-After", "30"),
	})
	cmd, _, stderr := agentCmd(t, bin, t.TempDir(), "proxy", "--listen", "127.0.0.1:0", "--upstream", srv.URL)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	base := agenttest.ProxyListening.FindStringSubmatch(agenttest.WaitForLine(t, stderr, agenttest.ProxyListening))[1]
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	post := func() (*http.Response, error) {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, base+"/responses",
			strings.NewReader(`{"model":"m","input":"hi","stream":true}`))
		return client.Do(req)
	}
	stream, err := post()
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	<-srv.Reached("streaming")
	answer := make(chan string, 1)
	go func() {
		resp, err := post()
		if err != nil {
			answer <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answer <- resp.Status + " " + string(b)
	}()
	agenttest.WaitForLine(t, stderr, regexp.MustCompile(`msg=RETRY .*delay=30s`))
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if got := <-answer; !strings.HasPrefix(got, "503 ") || !strings.Contains(got, "proxy_shutting_down") {
		t.Errorf("the request waiting to retry got %q; want 503 proxy_shutting_down", got)
	}
	srv.Release()
	if b, err := io.ReadAll(stream.Body); err != nil || !strings.Contains(string(b), "response.completed") {
		t.Errorf("the stream in flight at SIGTERM: %v after %q; want it whole", err, b)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("agent proxy after SIGTERM: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr.String(), "stopped after 2 requests (1 retries, 0 retry successes, 1 failed, 0 clients gone)") {
		t.Errorf("no summary naming the shutdown's answer:\n%s", stderr)
	}
}
