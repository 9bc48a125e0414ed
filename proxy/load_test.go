package proxy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/proxy"
)

// loadScript is rounds rounds of clients streams each; every stream of a
// round waits upstream until all clients of the round are in flight.
func loadScript(clients, rounds int) rt.Script {
	var s rt.Script
	for r := range rounds {
		for range clients {
			s = append(s, rt.Stream(rt.Created("r"), rt.Quorum(fmt.Sprint("round ", r), clients),
				rt.TextDelta("m", "hi"), rt.Completed("r")))
		}
	}
	return s
}

// runRounds sends rounds rounds of clients concurrent streaming POSTs to
// url with client, each round after the last has been read whole.
func runRounds(ctx context.Context, t *testing.T, client *http.Client, url string, clients, rounds int) {
	t.Helper()
	for r := range rounds {
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				resp, err := postJSON(ctx, client, url, requestBody)
				if err != nil {
					t.Errorf("round %d: %v", r, err)
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				if err != nil || resp.StatusCode != 200 || !strings.Contains(string(b), "response.completed") {
					t.Errorf("round %d: status %d, %v: %q", r, resp.StatusCode, err, b)
				}
			})
		}
		wg.Wait()
	}
}

// TestUpstreamConnectionsAreReused: 32 clients streaming at once, three
// rounds, open 32 upstream connections, not 32 a round: the proxy's pool
// keeps as many idle connections as were busy (Go's default kept 2).
func TestUpstreamConnectionsAreReused(t *testing.T) {
	const clients, rounds = 32, 3
	srv := rt.NewServer(t, loadScript(clients, rounds))
	p, err := proxy.New(proxy.Options{Upstream: mustURL(t, srv.URL)}) // the default transport
	if err != nil {
		t.Fatal(err)
	}
	base, cancel, wait := serve(t, p)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer client.CloseIdleConnections()
	runRounds(t.Context(), t, client, base+"/responses", clients, rounds)
	if n := srv.Conns(); n != clients {
		t.Errorf("upstream accepted %d connections for %d rounds of %d clients; want %d", n, rounds, clients, clients)
	}
	cancel()
	if err := wait(); err != nil {
		t.Error(err)
	}
}
