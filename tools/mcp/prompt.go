package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompt is one prompt of a ready MCP server: a template the user runs
// (the chat offers it as the slash command /NAME), never the model.
type Prompt struct {
	// Name is mcp__<server>__<prompt>, by the rule of [Names] (the rule
	// Codex names MCP tools by); prompts and tools are named apart.
	Name string
	// Server is the configured name of its server, Remote its name there.
	Server, Remote string
	// Description says what it does ("" when the server says nothing).
	Description string
	// Arguments are what it takes, in the server's order.
	Arguments []PromptArgument
}

// PromptArgument is one argument of a [Prompt].
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// listPrompts lists the prompts of s (when its server offers prompts)
// within its startup timeout and keeps them. A failure is logged and
// leaves s without prompts: its tools work all the same.
func (m *Manager) listPrompts(ctx context.Context, s *server, cs *gomcp.ClientSession, log *slog.Logger) {
	if r := cs.InitializeResult(); r == nil || r.Capabilities == nil || r.Capabilities.Prompts == nil {
		return
	}
	lctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout)
	defer cancel()
	var list []*gomcp.Prompt
	for p, err := range cs.Prompts(lctx, nil) {
		if err != nil {
			log.Warn("mcp server: prompts/list failed; continuing without its prompts", "err", err)
			list = nil
			break
		}
		list = append(list, p)
	}
	m.mu.Lock() // only s's run calls this: no other writer of s.prompts races it
	s.prompts = list
	m.mu.Unlock()
}

// Prompts returns the prompts of the servers that are ready now, ordered
// by server name, then as each server lists them.
func (m *Manager) Prompts() []Prompt {
	m.mu.Lock()
	defer m.mu.Unlock()
	var keys []Key
	for _, s := range m.servers {
		if s.state == Ready {
			for _, p := range s.prompts {
				keys = append(keys, Key{s.cfg.Name, p.Name})
			}
		}
	}
	names := Names(keys)
	var out []Prompt
	for _, s := range m.servers {
		if s.state != Ready {
			continue
		}
		for _, p := range s.prompts {
			pr := Prompt{Name: names[Key{s.cfg.Name, p.Name}], Server: s.cfg.Name, Remote: p.Name, Description: p.Description}
			for _, a := range p.Arguments {
				if a != nil {
					pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
				}
			}
			out = append(out, pr)
		}
	}
	return out
}

// errPromptTimeout ends a prompts/get that outlasted the tool timeout.
var errPromptTimeout = errors.New("mcp: prompts/get timed out")

// GetPrompt sends prompts/get for the prompt called name (a
// [Prompt.Name]) with args, bounded by its server's tool timeout and by
// ctx, and returns the prompt's messages as one text: each message's
// text, a blank line between them. A message agent cannot send as text
// (an image or audio) fails the whole prompt, so nothing half of it is
// sent.
func (m *Manager) GetPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	var p *Prompt
	for _, pr := range m.Prompts() {
		if pr.Name == name {
			p = &pr
			break
		}
	}
	if p == nil {
		return "", fmt.Errorf("no MCP prompt %s (its server is not ready, or no longer offers it)", name)
	}
	s := m.servers[m.serverIndex(p.Server)]
	cs, err := m.session(s)
	if err != nil {
		return "", err
	}
	timeout := s.cfg.ToolTimeout
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := m.afterFunc()(timeout, func() { cancel(errPromptTimeout) })
	defer stop()
	r, err := cs.GetPrompt(cctx, &gomcp.GetPromptParams{Name: p.Remote, Arguments: args})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.Is(context.Cause(cctx), errPromptTimeout):
		return "", fmt.Errorf("prompts/get timed out after %s (tool_timeout_sec of server %q)", timeout, p.Server)
	default:
		return "", fmt.Errorf("prompts/get of server %q: %w", p.Server, err)
	}
	return promptText(r)
}

// promptText joins the text of r's messages.
func promptText(r *gomcp.GetPromptResult) (string, error) {
	var parts []string
	for i, msg := range r.Messages {
		if msg == nil {
			continue
		}
		switch c := msg.Content.(type) {
		case *gomcp.TextContent:
			parts = append(parts, c.Text)
		case *gomcp.EmbeddedResource:
			if c.Resource == nil || c.Resource.Text == "" {
				return "", fmt.Errorf("its message %d is a resource without text; agent sends prompts as text only", i+1)
			}
			parts = append(parts, c.Resource.Text)
		case *gomcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource: %s]", c.URI))
		case *gomcp.ImageContent:
			return "", fmt.Errorf("its message %d is an image; agent sends prompts as text only", i+1)
		case *gomcp.AudioContent:
			return "", fmt.Errorf("its message %d is audio; agent sends prompts as text only", i+1)
		default:
			return "", fmt.Errorf("its message %d is of a kind agent cannot send (%T)", i+1, c)
		}
	}
	text := strings.Join(parts, "\n\n")
	if strings.TrimSpace(text) == "" {
		return "", errors.New("it returned no text")
	}
	return text, nil
}

// serverIndex is the index of the server configured as name; the name
// comes from [Manager.Prompts], so it exists.
func (m *Manager) serverIndex(name string) int {
	for i, s := range m.servers {
		if s.cfg.Name == name {
			return i
		}
	}
	return -1
}

// afterFunc is [Options.AfterFunc] or its default.
func (m *Manager) afterFunc() func(time.Duration, func()) func() bool {
	if f := m.opts.AfterFunc; f != nil {
		return f
	}
	return func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
}
