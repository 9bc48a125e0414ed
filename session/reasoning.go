package session

import (
	"encoding/json"
	"strings"

	"github.com/agentcli/agent/transport"
)

// reasoningText joins a reasoning item's summary parts.
func reasoningText(it transport.Item) string {
	var r struct {
		Summary []struct {
			Text string `json:"text"`
		} `json:"summary"`
	}
	if json.Unmarshal(it.Raw, &r) != nil {
		return ""
	}
	parts := make([]string, 0, len(r.Summary))
	for _, p := range r.Summary {
		parts = append(parts, p.Text)
	}
	return strings.Join(parts, "\n\n")
}
