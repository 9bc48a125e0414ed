package main

import (
	"net/http"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestProxyCommandReusesUpstreamConnections: `agent proxy` with 32
// clients streaming at once, three rounds, opens 32 upstream connections
// (its own HTTP client's pool, with the secrets masking around it), not
// 32 a round as with Go's default of 2 idle connections per host.
func TestProxyCommandReusesUpstreamConnections(t *testing.T) {
	t.Parallel()
	const clients, rounds = 32, 3
	srv := rt.NewServer(t, rt.Rounds(clients, rounds))
	p := startAgentProxy(t, t.TempDir(), nil, "--upstream", srv.URL)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	if err := rt.RunRounds(t.Context(), client, p.url+"/responses", clients, rounds); err != nil {
		t.Error(err)
	}
	if n := srv.Conns(); n != clients {
		t.Errorf("upstream accepted %d connections for %d rounds of %d clients; want %d", n, rounds, clients, clients)
	}
	if code := p.stop(); code != 0 {
		t.Errorf("agent proxy exit %d", code)
	}
}
