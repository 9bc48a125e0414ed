package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestProxyCommandReusesUpstreamConnections: `agent proxy` with 32
// clients streaming at once, three rounds, opens 32 upstream connections
// (its own HTTP client's pool, with the secrets masking around it), not
// 32 a round as with Go's default of 2 idle connections per host.
func TestProxyCommandReusesUpstreamConnections(t *testing.T) {
	const clients, rounds = 32, 3
	var script rt.Script
	for r := range rounds {
		for range clients {
			script = append(script, rt.Stream(rt.Created("r"), rt.Quorum(fmt.Sprint("round ", r), clients),
				rt.TextDelta("m", "hi"), rt.Completed("r")))
		}
	}
	srv := rt.NewServer(t, script)
	p := startAgentProxy(t, t.TempDir(), nil, "--upstream", srv.URL)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	for r := range rounds {
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, p.url+"/responses", strings.NewReader(`{"stream":true}`))
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("round %d: %v", r, err)
					return
				}
				defer resp.Body.Close()
				if b, err := io.ReadAll(resp.Body); err != nil || !strings.Contains(string(b), "response.completed") {
					t.Errorf("round %d: status %d, %v: %q", r, resp.StatusCode, err, b)
				}
			})
		}
		wg.Wait()
	}
	if n := srv.Conns(); n != clients {
		t.Errorf("upstream accepted %d connections for %d rounds of %d clients; want %d", n, rounds, clients, clients)
	}
	if code := p.stop(); code != 0 {
		t.Errorf("agent proxy exit %d", code)
	}
}
