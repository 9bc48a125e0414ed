package tools

import (
	"context"
	"encoding/json"
)

// WebSearch is the Responses API's hosted web_search tool, offered as
// Codex offers it (config web_search): the server runs the searches and
// reports them as web_search_call items; agent never runs it.
type WebSearch struct {
	// Live allows live access to the web (web_search = "live"); else the
	// server answers from its cache ("cached").
	Live bool
}

// Name implements [Tool].
func (WebSearch) Name() string { return "web_search" }

// ParallelSafe implements [Tool].
func (WebSearch) ParallelSafe() bool { return true }

// Spec implements [Tool]: {"type":"web_search","external_web_access":...}.
func (w WebSearch) Spec() json.RawMessage {
	b, _ := json.Marshal(struct {
		Type   string `json:"type"`
		Access bool   `json:"external_web_access"`
	}{"web_search", w.Live})
	return b
}

// Run implements [Tool]: a function call by this name is answered, not run.
func (WebSearch) Run(context.Context, *Invocation) Result {
	return Result{Output: "web_search is run by the model's server, not called as a function", Status: StatusFailed}
}
