package mcp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/internal/mcptest"
	"github.com/agentcli/agent/tools/mcp"
)

// TestPrompts: a stdio server's prompts are listed with their arguments
// and named as its tools are; prompts/get sends the arguments and returns
// the text; a prompt holding an image fails whole, naming the image; an
// unknown prompt fails; a server without prompts lists none.
func TestPrompts(t *testing.T) {
	bin := serverBinary(t)
	plain := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{
		{Name: "docs", Command: bin, Args: []string{"-prompts"}},
		{Name: "plain", URL: plain.URL},
	}})
	h.started(t)
	want := []mcp.Prompt{
		{Name: "mcp__docs__greet", Server: "docs", Remote: "greet", Description: "Greets someone.", Arguments: []mcp.PromptArgument{
			{Name: "name", Description: "who to greet", Required: true}, {Name: "style", Description: "how"},
		}},
		{Name: "mcp__docs__picture", Server: "docs", Remote: "picture", Description: "Describes a picture."},
	}
	if diff := cmp.Diff(want, h.m.Prompts()); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	text, err := h.m.GetPrompt(h.ctx, "mcp__docs__greet", map[string]string{"name": "Ada", "style": "brief"})
	if err != nil || text != "Say hello to Ada.\nMake it brief." {
		t.Errorf("greet = %q, %v", text, err)
	}
	if text, err := h.m.GetPrompt(h.ctx, "mcp__docs__picture", nil); err == nil || !strings.Contains(err.Error(), "its message 2 is an image") || text != "" {
		t.Errorf("picture = %q, %v; want the image named and no text", text, err)
	}
	if _, err := h.m.GetPrompt(h.ctx, "mcp__plain__greet", nil); err == nil || !strings.Contains(err.Error(), "no MCP prompt mcp__plain__greet") {
		t.Errorf("an unknown prompt: %v", err)
	}
}

// TestPromptListChanged: a prompt a server adds while it runs is listed.
func TestPromptListChanged(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{Prompts: true}})
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "web", URL: srv.URL}}})
	h.started(t)
	if n := len(h.m.Prompts()); n != 2 {
		t.Fatalf("%d prompts at start, want 2", n)
	}
	srv.MCP.AddPrompt(&gomcp.Prompt{Name: "late"}, func(context.Context, *gomcp.GetPromptRequest) (*gomcp.GetPromptResult, error) {
		return &gomcp.GetPromptResult{Messages: []*gomcp.PromptMessage{{Role: "user", Content: &gomcp.TextContent{Text: "late prompt"}}}}, nil
	})
	tick := time.NewTicker(5 * time.Millisecond) // polls the list; no delay is asserted
	defer tick.Stop()
	for len(h.m.Prompts()) != 3 {
		select {
		case <-tick.C:
		case <-h.ctx.Done():
			t.Fatalf("prompts after the change: %v", h.m.Prompts())
		}
	}
	if text, err := h.m.GetPrompt(h.ctx, "mcp__web__late", nil); err != nil || text != "late prompt" {
		t.Errorf("late = %q, %v", text, err)
	}
}
