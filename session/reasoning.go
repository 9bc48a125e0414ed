package session

import (
	"encoding/json"
	"strings"

	"github.com/agentcli/agent/transport"
)

// webSearchDone is the event of a web_search_call item.
func webSearchDone(it transport.Item) WebSearchDone {
	var w struct {
		Action json.RawMessage `json:"action"`
	}
	_ = json.Unmarshal(it.Raw, &w)
	var a struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(w.Action, &a)
	return WebSearchDone{ItemID: it.ID, Query: a.Query, Action: w.Action}
}

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
