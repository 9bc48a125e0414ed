package modelclient

import (
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestHTTPClientReusesConnections: 32 requests at once (exec --batch
// --jobs 32, or agent proxy's clients), three rounds, open 32 connections,
// not 32 a round: the pool keeps as many idle connections as were busy,
// as the reference client's does. Go's default kept 2 per host.
func TestHTTPClientReusesConnections(t *testing.T) {
	const clients, rounds = 32, 3
	srv := rt.NewServer(t, rt.Rounds(clients, rounds))
	hc, err := NewHTTPClient("")
	if err != nil {
		t.Fatal(err)
	}
	defer hc.CloseIdleConnections()
	if err := rt.RunRounds(t.Context(), hc, srv.URL+"/responses", clients, rounds); err != nil {
		t.Error(err)
	}
	if n := srv.Conns(); n != clients {
		t.Errorf("server accepted %d connections for %d rounds of %d requests; want %d", n, rounds, clients, clients)
	}
}
