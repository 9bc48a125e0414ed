package modelclient_test

import (
	"testing"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
)

// TestDefaultBoundsHoldAtAnyJitter: with the default budgets, a model that
// stays at capacity ends its turn within 15 minutes and a 500 that never
// clears within 150 s, whatever the jitter draws (the fault matrix checks
// the exact midpoint waits).
func TestDefaultBoundsHoldAtAnyJitter(t *testing.T) {
	cont := 10*time.Second + 20*time.Second + 60*time.Second // auto-continue
	p := provider.Custom("x")
	overload := modelclient.PolicyOf(p.Retry, provider.ClassOverloaded)
	var total time.Duration
	for n := 1; n <= overload.MaxRetries; n++ {
		total += overload.Delay(n, 0.999999)
	}
	if total+cont > 15*time.Minute {
		t.Errorf("at capacity forever: %v of waits; want at most 15m", total+cont)
	}
	server := modelclient.PolicyOf(p.Retry, provider.ClassServerError)
	total = 0
	for range p.StreamMaxRetries + 1 { // the HTTP layer inside each stream attempt
		for n := 1; n <= p.RequestMaxRetries; n++ {
			total += server.Delay(n, 0.999999)
		}
	}
	for n := 1; n <= p.StreamMaxRetries; n++ {
		total += server.Delay(n, 0.999999)
	}
	if total+cont > 150*time.Second {
		t.Errorf("500 forever: %v of waits; want at most 150s", total+cont)
	}
}
