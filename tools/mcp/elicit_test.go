package mcp_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agentcli/agent/internal/mcptest"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
)

// TestElicitation: agent declares elicitation, so a server's form reaches
// it: without anyone to ask (exec) it is declined and the tool's answer,
// which the model sees, says so; in the chat its fields are questions (an
// enum a choice, text a note) and the answers go back as the form's
// content.
func TestElicitation(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{Elicit: true}})
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "trips", URL: srv.URL}}})
	h.started(t)
	if res, _ := h.call(t, "mcp__trips__book", `{}`, nil); res.Output != "the user declined" {
		t.Errorf("without a person: %q (%s); want the server told of a decline", res.Output, res.Status)
	}

	var asked tools.UserInputRequest
	h2 := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "trips", URL: srv.URL}},
		AskUser: func(_ context.Context, req tools.UserInputRequest) (map[string][]string, bool) {
			asked = req
			return map[string][]string{"name": {"(type the value as a note)", tools.NotePrefix + "Ann"}, "seat": {"aisle"}}, true
		}})
	h2.started(t)
	if res, _ := h2.call(t, "mcp__trips__book", `{}`, nil); res.Output != "booked Ann at aisle" {
		t.Errorf("answered in the chat: %q (%s)", res.Output, res.Status)
	}
	if len(asked.Questions) != 2 || asked.Questions[1].ID != "seat" ||
		!slices.Equal([]string{asked.Questions[1].Options[0].Label, asked.Questions[1].Options[1].Label}, []string{"window", "aisle"}) {
		t.Errorf("questions asked: %+v", asked.Questions)
	}
	h3 := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "trips", URL: srv.URL}},
		AskUser: func(context.Context, tools.UserInputRequest) (map[string][]string, bool) { return nil, false }})
	h3.started(t)
	if res, _ := h3.call(t, "mcp__trips__book", `{}`, nil); res.Output != "the user cancelled" {
		t.Errorf("dismissed: %q", res.Output)
	}
}
