package proxy_test

import (
	"net/http"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/proxy"
)

// TestUpstreamConnectionsAreReused: 32 clients streaming at once, three
// rounds, open 32 upstream connections, not 32 a round: the proxy's pool
// keeps as many idle connections as were busy (Go's default kept 2).
func TestUpstreamConnectionsAreReused(t *testing.T) {
	const clients, rounds = 32, 3
	srv := rt.NewServer(t, rt.Rounds(clients, rounds))
	p, err := proxy.New(proxy.Options{Upstream: mustURL(t, srv.URL)}) // the default transport
	if err != nil {
		t.Fatal(err)
	}
	base, cancel, wait := serve(t, p)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	if err := rt.RunRounds(t.Context(), client, base+"/responses", clients, rounds); err != nil {
		t.Error(err)
	}
	if n := srv.Conns(); n != clients {
		t.Errorf("upstream accepted %d connections for %d rounds of %d clients; want %d", n, rounds, clients, clients)
	}
	cancel()
	if err := wait(); err != nil {
		t.Error(err)
	}
}
