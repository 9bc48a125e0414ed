package session_test

import (
	"testing"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
)

// TestRetryNotice: one wording per waiting layer, as both front ends show
// it.
func TestRetryNotice(t *testing.T) {
	t.Parallel()
	f503 := modelclient.Failure{Kind: modelclient.KindServerError, Status: 503}
	tests := []struct {
		r    modelclient.Retry
		left time.Duration
		want string
	}{
		{modelclient.Retry{Layer: modelclient.LayerStream, Attempt: 2, Max: 5, Failure: f503}, 400 * time.Millisecond,
			"Reconnecting... 2/5 in 0.4s (503 Service Unavailable)"},
		{modelclient.Retry{Layer: session.LayerContinue, Attempt: 1, Max: 3, Failure: f503}, 2 * time.Second,
			"Continuing the turn 1/3 in 2.0s (503 Service Unavailable)"},
		{modelclient.Retry{Layer: modelclient.LayerConnection, Attempt: 7, Max: -1, Failure: f503}, 12 * time.Second,
			"Reconnecting... waiting for network; next try in 12s (503 Service Unavailable)"},
		{modelclient.Retry{Layer: modelclient.LayerHTTP, Attempt: 1, Max: 4, Failure: f503}, 90 * time.Second,
			"Retrying request... 1/4 in 1m30s (503 Service Unavailable)"},
		{modelclient.Retry{Layer: modelclient.LayerStream, Attempt: 1, Max: 3,
			Failure: modelclient.Failure{Kind: modelclient.KindOverloaded, Status: 529}}, time.Second,
			"Model at capacity; retrying 1/3 in 1.0s"},
	}
	for _, tt := range tests {
		got := session.RetryNotice(tt.r, tt.left)
		if len(got) < len(tt.want) || got[:len(tt.want)] != tt.want {
			t.Errorf("RetryNotice(%+v, %v) = %q, want %q…", tt.r, tt.left, got, tt.want)
		}
	}
}
