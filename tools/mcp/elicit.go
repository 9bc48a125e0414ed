package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/tools"
)

// elicit answers a server's elicitation/create (the client declares the
// capability): with [Options.AskUser] (the chat) the form's fields are
// asked as questions in the chat's question box, a choice for an enum or
// a boolean, a typed note for text and numbers; without it (agent exec,
// nobody to ask) the request is declined, and the server tells the model
// so through its tool's result. A URL elicitation is declined: agent
// opens no browser.
func (m *Manager) elicit(ctx context.Context, server string, req *gomcp.ElicitRequest) (*gomcp.ElicitResult, error) {
	p := req.Params
	ask := m.opts.AskUser
	if ask == nil || p.Mode == "url" {
		return &gomcp.ElicitResult{Action: "decline"}, nil
	}
	fields := formFields(p.RequestedSchema)
	if len(fields) == 0 { // a bare confirmation
		fields = []formField{{name: "", kind: "confirm"}}
	}
	var qs []tools.Question
	for _, f := range fields {
		q := tools.Question{ID: f.name, Header: trimHeader(f.name), Question: strings.TrimSpace(fmt.Sprintf("%s (MCP server %q) %s", p.Message, server, f.title))}
		switch f.kind {
		case "confirm":
			q.Header, q.Options = "Confirm", []tools.Option{{Label: "Accept"}, {Label: "Decline"}}
		case "boolean":
			q.Options = []tools.Option{{Label: "true"}, {Label: "false"}}
		case "enum":
			for _, v := range f.enum {
				q.Options = append(q.Options, tools.Option{Label: v})
			}
		default:
			q.Options = []tools.Option{{Label: "(type the value as a note)", Description: f.kind}}
		}
		qs = append(qs, q)
	}
	answers, ok := ask(ctx, tools.UserInputRequest{CallID: "elicitation:" + server, Questions: qs})
	if !ok {
		return &gomcp.ElicitResult{Action: "cancel"}, nil
	}
	content := map[string]any{}
	for _, f := range fields {
		choice, note := "", ""
		for _, a := range answers[f.name] {
			if n, isNote := strings.CutPrefix(a, tools.NotePrefix); isNote {
				note = n
			} else {
				choice = a
			}
		}
		switch f.kind {
		case "confirm":
			if choice != "Accept" {
				return &gomcp.ElicitResult{Action: "decline"}, nil
			}
			return &gomcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		case "boolean":
			if choice != "" {
				content[f.name] = choice == "true"
			}
		case "enum":
			if choice != "" {
				content[f.name] = choice
			}
		case "number", "integer":
			if n, err := strconv.ParseFloat(strings.TrimSpace(note), 64); err == nil {
				content[f.name] = n
			}
		default:
			if note != "" {
				content[f.name] = note
			}
		}
	}
	return &gomcp.ElicitResult{Action: "accept", Content: content}, nil
}

// formField is one property of an elicitation's requested schema.
type formField struct {
	name, title, kind string // kind: string, number, integer, boolean, enum
	enum              []string
}

// formFields reads the flat object schema of an elicitation, its
// properties in name order.
func formFields(schema any) []formField {
	var s struct {
		Properties map[string]struct {
			Type        string   `json:"type"`
			Title       string   `json:"title"`
			Description string   `json:"description"`
			Enum        []string `json:"enum"`
		} `json:"properties"`
	}
	b, err := json.Marshal(schema)
	if err != nil || json.Unmarshal(b, &s) != nil {
		return nil
	}
	var out []formField
	for name, p := range s.Properties {
		f := formField{name: name, kind: p.Type, title: strings.TrimSpace(p.Title + ": " + p.Description)}
		f.title = strings.Trim(f.title, ": ")
		if len(p.Enum) > 0 {
			f.kind, f.enum = "enum", p.Enum
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// trimHeader cuts a question header to the 12 characters the box shows.
func trimHeader(s string) string {
	if r := []rune(s); len(r) > 12 {
		return string(r[:12])
	}
	return s
}
