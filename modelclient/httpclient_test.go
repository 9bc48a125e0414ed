package modelclient

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestHTTPClientReusesConnections: 32 requests at once (exec --batch
// --jobs 32, or agent proxy's clients), three rounds, open 32 connections,
// not 32 a round: the pool keeps as many idle connections as were busy,
// as the reference client's does. Go's default kept 2 per host.
func TestHTTPClientReusesConnections(t *testing.T) {
	const clients, rounds = 32, 3
	var script rt.Script
	for r := range rounds {
		for range clients {
			script = append(script, rt.Stream(rt.Created("r"), rt.Quorum(fmt.Sprint("round ", r), clients), rt.Completed("r")))
		}
	}
	srv := rt.NewServer(t, script)
	hc, err := NewHTTPClient("")
	if err != nil {
		t.Fatal(err)
	}
	defer hc.CloseIdleConnections()
	for r := range rounds {
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/responses", strings.NewReader(`{}`))
				resp, err := hc.Do(req)
				if err != nil {
					t.Errorf("round %d: %v", r, err)
					return
				}
				defer resp.Body.Close()
				if b, err := io.ReadAll(resp.Body); err != nil || !strings.Contains(string(b), "response.completed") {
					t.Errorf("round %d: %v: %q", r, err, b)
				}
			})
		}
		wg.Wait()
	}
	if n := srv.Conns(); n != clients {
		t.Errorf("server accepted %d connections for %d rounds of %d requests; want %d", n, rounds, clients, clients)
	}
}
