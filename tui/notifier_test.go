package tui

import (
	"strings"
	"testing"
)

// TestMCPCommandAndNotices: /mcp lists each server's state, tools,
// prompts and error; a posted failure shows once in the transcript.
func TestMCPCommandAndNotices(t *testing.T) {
	t.Parallel()
	n := NewNotifier()
	m, _ := newTestModel(t, Options{Notices: n, Commands: Commands{MCP: func() []MCPServer {
		return []MCPServer{
			{Name: "broken", State: "failed", Err: "exit status 3: cannot read my settings"},
			{Name: "docs", State: "ready", Tools: []string{"mcp__docs__search", "mcp__docs__fetch"}},
			{Name: "slow", State: "starting"},
		}
	}, MCPPrompts: func() []MCPPrompt { return []MCPPrompt{{Name: "mcp__docs__summarize", Server: "docs"}} }}})
	n.Post(`mcp: server "broken" failed to start: exit status 3; continuing without its tools`, true)
	quit := make(chan struct{})
	send(m, n.next(quit)())
	submit(m, "/mcp")
	view := plain(m.View())
	for _, want := range []string{
		`server "broken" failed to start`,
		"broken: failed · exit status 3: cannot read my settings",
		"docs: ready · 2 tools · 1 prompt", "    mcp__docs__search", "    mcp__docs__fetch",
		"    /mcp__docs__summarize (prompt)",
		"slow: starting",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if c := strings.Count(view, "failed to start"); c != 1 {
		t.Errorf("the failure is shown %d times:\n%s", c, view)
	}
	close(quit)
	if msg := n.next(quit)(); msg != nil {
		t.Errorf("next after quit with nothing posted = %v", msg)
	}
}
