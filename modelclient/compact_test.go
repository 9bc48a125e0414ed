package modelclient_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
)

// TestCompactRunsThroughTheRetryLayers: compaction gets the same 401
// recovery and HTTP-layer retries as sampling (429 included: it has no
// stream layer), waiting the server's delay.
func TestCompactRunsThroughTheRetryLayers(t *testing.T) {
	compacted := `{"output":[{"type":"compaction","encrypted_content":"opaque"}]}`
	srv := rt.NewServer(t, rt.Script{rt.Status(401), rt.Status(429, "Retry-After", "2"), rt.Status(502), rt.StatusBody(200, compacted)})
	p := provider.Custom("test")
	p.BaseURL = srv.URL
	var sleeps []time.Duration
	creds := &fakeCreds{refresh: answer(true, nil)}
	c := modelclient.New(modelclient.Options{
		Provider: p, Auth: creds, HTTPClient: srv.Client(), Rand: func() float64 { return 0.5 },
		Sleep: func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil },
	})
	defer c.Close()
	items, err := c.Compact(t.Context(), &modelclient.Prompt{}, modelclient.Settings{Model: "m"})
	if err != nil || len(items) != 1 || items[0].Type != "compaction" {
		t.Fatalf("Compact = %v, %v", items, err)
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second, 400 * time.Millisecond}, sleeps); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	var tokens []string
	for _, r := range srv.Requests() {
		tokens = append(tokens, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}
	if diff := cmp.Diff([]string{"tok-1", "tok-2", "tok-2", "tok-2"}, tokens); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
}
