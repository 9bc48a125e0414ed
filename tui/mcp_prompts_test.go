package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMCPPrompts: the MCP servers' prompts are in the / popup as
// /mcp__SERVER__PROMPT with their arguments and description; running one
// gets it with the arguments bound (positional words in order, NAME=value
// by name) and sends its text; a missing required argument, or a prompt
// the server fails to give, is one line and nothing is sent.
func TestMCPPrompts(t *testing.T) {
	t.Parallel()
	var got []map[string]string
	greet := MCPPrompt{Name: "mcp__docs__greet", Server: "docs", Description: "Greets someone.", Arguments: []MCPPromptArgument{
		{Name: "name", Required: true}, {Name: "style"},
	}}
	m := newLiveModel(t, Options{Engine: &recEngine{}, Commands: Commands{
		MCPPrompts: func() []MCPPrompt { return []MCPPrompt{greet, {Name: "mcp__docs__picture", Server: "docs"}} },
		GetMCPPrompt: func(_ context.Context, name string, args map[string]string) (string, error) {
			if name == "mcp__docs__picture" {
				return "", errors.New("its message 2 is an image; agent sends prompts as text only")
			}
			got = append(got, args)
			return "Say hello to " + args["name"] + ".", nil
		},
	}})
	typeText(m, "/gree")
	if view := plain(m.View()); !strings.Contains(view, "› /mcp__docs__greet NAME [STYLE]  Greets someone. (MCP server docs)") {
		t.Errorf("the popup lacks the MCP prompt:\n%s", view)
	}
	m.setComposer("")
	slashRun(m, "/mcp__docs__greet style=brief")
	if view := plain(m.View()); !strings.Contains(view, "prompt mcp__docs__greet: missing name=… (usage: /mcp__docs__greet NAME [STYLE])") || m.turn != nil || len(got) != 0 {
		t.Errorf("a missing argument was not refused in one line (turn %v, gets %v):\n%s", m.turn != nil, got, view)
	}
	slashRun(m, "/mcp__docs__picture")
	if view := plain(m.View()); !strings.Contains(view, "prompt mcp__docs__picture: its message 2 is an image") || m.turn != nil {
		t.Errorf("a failed prompts/get was not shown, or a turn started:\n%s", plain(m.View()))
	}
	slashRun(m, `/mcp__docs__greet Ada "very brief"`)
	if m.turn == nil {
		t.Fatalf("the prompt did not start a turn:\n%s", plain(m.View()))
	}
	if !strings.Contains(plain(m.View()), "› Say hello to Ada.") {
		t.Errorf("the prompt's text is not what was sent:\n%s", plain(m.View()))
	}
	if diff := cmp.Diff([]map[string]string{{"name": "Ada", "style": "very brief"}}, got); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
}

func TestMCPPromptBind(t *testing.T) {
	t.Parallel()
	p := MCPPrompt{Name: "p", Arguments: []MCPPromptArgument{{Name: "file", Required: true}, {Name: "why"}}}
	tests := []struct {
		line string
		want map[string]string
		err  string
	}{
		{line: "a.go", want: map[string]string{"file": "a.go"}},
		{line: "a.go it is slow", want: map[string]string{"file": "a.go", "why": "it is slow"}},
		{line: "why=slow a.go", want: map[string]string{"file": "a.go", "why": "slow"}},
		{line: "file=a.go why=slow extra", err: `every argument is named; "extra" is left over`},
		{line: "", err: "missing file=…"},
		{line: `"open`, err: "quote is not closed"},
		{line: "x=1", want: map[string]string{"file": "x=1"}}, // x is no argument of p
	}
	for _, tt := range tests {
		got, err := p.bind(tt.line)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("bind(%q) = %v, %v; want error %q", tt.line, got, err, tt.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(tt.want, got) {
			t.Errorf("bind(%q) = %v, %v; want %v", tt.line, got, err, tt.want)
		}
	}
	if _, err := (MCPPrompt{Name: "q"}).bind("words"); err == nil {
		t.Error("a prompt without arguments took words")
	}
}
