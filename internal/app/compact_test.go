package app

import (
	"testing"

	"github.com/agentcli/agent/config"
)

// TestKeepToolCalls: compact_keep_tool_calls reaches the session: unset is
// the session's default (5), 0 keeps none, N keeps N.
func TestKeepToolCalls(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, tt := range []struct {
		key  *int64
		want int
	}{{nil, 0}, {n(0), -1}, {n(12), 12}} {
		if got := keepToolCalls(config.Config{CompactKeepToolCalls: tt.key}); got != tt.want {
			t.Errorf("compact_keep_tool_calls %v: session keeps %d; want %d", tt.key, got, tt.want)
		}
	}
}
