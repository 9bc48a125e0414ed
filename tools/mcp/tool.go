package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/tools"
)

// maxOutputBytes caps the text fed back to the model for one call, as
// exec_command's default budget of 10000 tokens (four bytes a token).
const maxOutputBytes = 40000

var _ tools.Tool = (*Tool)(nil)

// Tool is one tool of an MCP server, offered to the model as a function
// named by [Names]. Its methods are safe for concurrent use.
type Tool struct {
	m      *Manager
	srv    *server
	remote *gomcp.Tool
	name   string
	spec   json.RawMessage
}

func newTool(m *Manager, s *server, remote *gomcp.Tool, name string) *Tool {
	b, err := json.Marshal(map[string]any{
		"type": "function", "name": name, "description": remote.Description,
		"strict": false, "parameters": parameters(remote.InputSchema),
	})
	if err != nil { // a schema that came from JSON marshals again
		b = []byte(`{"type":"function","name":` + quote(name) + `,"strict":false,"parameters":{"type":"object","properties":{}}}`)
	}
	return &Tool{m: m, srv: s, remote: remote, name: name, spec: b}
}

// Name implements [tools.Tool]: mcp__<server>__<tool>, see [Names].
func (t *Tool) Name() string { return t.name }

// Server returns the configured name of the tool's server.
func (t *Tool) Server() string { return t.srv.cfg.Name }

// Remote returns the tool's name on its server.
func (t *Tool) Remote() string { return t.remote.Name }

// Spec implements [tools.Tool]: a function whose parameters are the
// tool's input schema.
func (t *Tool) Spec() json.RawMessage { return t.spec }

// ParallelSafe implements [tools.Tool]: true when the server's
// supports_parallel_tool_calls is set.
func (t *Tool) ParallelSafe() bool { return t.srv.cfg.ParallelToolCalls }

// needsApproval is Codex 0.169's rule for a call of t beyond the
// approval policy's own (untrusted asks for every call), as measured
// (docs/codex-compat.md, section MCP): none in full access (policy never,
// sandbox danger-full-access); with the tool's approval_mode (else the
// server's default_tools_approval_mode) "approve" none, "prompt" always,
// "writes" unless the tool is annotated readOnlyHint; "auto" (the
// default) unless it is annotated readOnlyHint or both destructiveHint
// and openWorldHint false. An absent hint counts as MCP's default (true
// for destructiveHint and openWorldHint, false for readOnlyHint), so a
// tool without annotations needs approval.
func (t *Tool) needsApproval(policy string) bool {
	if policy == tools.PolicyNever && t.m.opts.Sandbox == tools.SandboxFullAccess {
		return false
	}
	mode := t.srv.cfg.ToolApproval[t.Remote()]
	if mode == "" {
		mode = t.srv.cfg.DefaultApproval
	}
	a := t.remote.Annotations
	if a == nil {
		a = &gomcp.ToolAnnotations{}
	}
	switch mode {
	case "approve":
		return false
	case "prompt":
		return true
	case "writes":
		return !a.ReadOnlyHint
	}
	if a.ReadOnlyHint {
		return false
	}
	return a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint
}

// errNeedsApproval is the output of a call refused under approval_policy
// never, in Codex 0.169's words.
const errNeedsApproval = "MCP tool call requires approval, but approval policy is never"

// Run implements [tools.Tool]: it asks for approval when the policy says
// so, marks the invocation started and sends one tools/call, bounded by
// the server's tool timeout and by ctx.
func (t *Tool) Run(ctx context.Context, inv *tools.Invocation) tools.Result {
	call := &tools.MCPCall{Server: t.Server(), Tool: t.Remote()}
	res := tools.Result{MCP: call}
	fail := func(st tools.Status, msg string) tools.Result {
		res.Output, res.Status, call.Error = msg, st, msg
		return res
	}
	args, err := arguments(inv.Call.Input)
	call.Arguments = args
	if err != nil {
		call.Arguments = mustJSON(inv.Call.Input)
		return fail(tools.StatusFailed, "failed to parse function arguments: "+err.Error())
	}
	req := tools.ApprovalRequest{
		CallID:  inv.Call.ID,
		Kind:    "mcp",
		Command: t.name + " " + string(args),
		Workdir: fmt.Sprintf("MCP server %q", t.Server()),
	}
	policy := inv.PolicyOr(t.m.opts.Policy)
	if tools.NeedsApproval(policy, "", req) || t.needsApproval(policy) {
		if policy == tools.PolicyNever {
			return fail(tools.StatusDeclined, errNeedsApproval)
		}
		switch d := inv.Approve(ctx, req); d.Kind {
		case tools.Deny:
			msg := "mcp tool call rejected by user"
			if d.Note != "" {
				msg += ": " + d.Note
			}
			return fail(tools.StatusDeclined, msg)
		case tools.AbortTurn:
			res.AbortTurn = true
			return fail(tools.StatusAborted, "aborted by user")
		}
	}
	cs, err := t.m.session(t.srv)
	if err != nil {
		return fail(tools.StatusFailed, err.Error())
	}
	timeout := t.srv.cfg.ToolTimeout
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := t.m.afterFunc()(timeout, func() { cancel(errToolTimeout) })
	defer stop()
	if err := inv.Start(); err != nil {
		return tools.NotStarted(err)
	}
	r, err := cs.CallTool(cctx, &gomcp.CallToolParams{Name: t.Remote(), Arguments: args})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return fail(tools.StatusAborted, "aborted: the turn was interrupted during the MCP tool call")
	case errors.Is(context.Cause(cctx), errToolTimeout):
		return fail(tools.StatusFailed, fmt.Sprintf("the MCP tool call timed out after %s (tool_timeout_sec of server %q)", timeout, t.Server()))
	case stopped(err):
		if why := t.m.awaitStop(ctx, t.srv); why != nil {
			err = why // the exit status and last stderr line say more
		}
		return fail(tools.StatusFailed, fmt.Sprintf("the MCP server %q stopped during the call: %v", t.Server(), err))
	default:
		return fail(tools.StatusFailed, fmt.Sprintf("the MCP tool call failed: %v", err))
	}
	res.Output, res.Images = output(r)
	res.Status = tools.StatusCompleted
	if r.IsError {
		res.Status = tools.StatusFailed
	}
	call.Result = resultJSON(r)
	return res
}

// errToolTimeout ends a tool call that outlasted its ToolTimeout.
var errToolTimeout = errors.New("mcp: tool call timed out")

// stopped reports whether err says the connection to the server ended,
// as when the server process exits.
func stopped(err error) bool {
	return errors.Is(err, gomcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// arguments checks that input is a JSON object ("" means {}).
func arguments(input string) (json.RawMessage, error) {
	if strings.TrimSpace(input) == "" {
		return json.RawMessage("{}"), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(input), &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, errors.New("the arguments must be a JSON object")
	}
	return json.RawMessage(input), nil
}

// parameters turns an MCP input schema into function parameters: a JSON
// Schema object, which the Responses API requires to be of type object
// with properties.
func parameters(schema any) map[string]any {
	var m map[string]any
	if b, err := json.Marshal(schema); err == nil {
		_ = json.Unmarshal(b, &m) // a non-object schema leaves m nil
	}
	if m == nil {
		m = map[string]any{}
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if m["type"] == "object" {
		if _, ok := m["properties"]; !ok {
			m["properties"] = map[string]any{}
		}
	}
	return m
}

// output renders a result for the model: the text of its content, one
// block a line, with other kinds of content described, and its images as
// data: URLs, which reach the model as images; the structured content when
// there is no content. The text is cut in the middle past [maxOutputBytes].
func output(r *gomcp.CallToolResult) (string, []string) {
	var parts, images []string
	for _, c := range r.Content {
		switch c := c.(type) {
		case *gomcp.TextContent:
			parts = append(parts, c.Text)
		case *gomcp.ImageContent:
			images = append(images, "data:"+c.MIMEType+";base64,"+base64.StdEncoding.EncodeToString(c.Data))
		case *gomcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *gomcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource: %s]", c.URI))
		case *gomcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource: %s]", c.Resource.URI))
			}
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 && r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		parts = append(parts, string(b))
	}
	return truncate(strings.Join(parts, "\n"), maxOutputBytes), images
}

// truncate keeps the head and tail of s within limit bytes.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	head, tail := limit/2, limit-limit/2
	return fmt.Sprintf("%s\n…%d bytes truncated…\n%s", s[:head], len(s)-limit, s[len(s)-tail:])
}

// resultJSON is r as front ends show it: content and structured_content.
func resultJSON(r *gomcp.CallToolResult) json.RawMessage {
	v := struct {
		Content           []gomcp.Content `json:"content"`
		StructuredContent any             `json:"structured_content,omitempty"`
	}{Content: r.Content, StructuredContent: r.StructuredContent}
	if v.Content == nil {
		v.Content = []gomcp.Content{}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// mustJSON returns s as a JSON string.
func mustJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func quote(s string) string { return string(mustJSON(s)) }
