package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/tools"
)

// The resource tools Codex 0.171 offers whenever MCP servers are
// configured, with its names and argument shapes: list_mcp_resources and
// list_mcp_resource_templates ({server?, cursor?}; every server when no
// server is named) and read_mcp_resource ({server, uri}). Their output is
// JSON, as Codex's: {"server"?, "resources"|"resourceTemplates", "nextCursor"?}
// (each resource with its "server") and {"server", "uri", "contents"}.
const (
	listResourcesTool = "list_mcp_resources"
	listTemplatesTool = "list_mcp_resource_templates"
	readResourceTool  = "read_mcp_resource"
)

// resourceTool is one of the three resource tools.
type resourceTool struct {
	m    *Manager
	name string
	spec json.RawMessage
}

var _ tools.Tool = (*resourceTool)(nil)

// resourceTools are the resource tools, specs as Codex words them.
func (m *Manager) resourceTools() []tools.Tool {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	fn := func(name, desc string, props map[string]any, required []string) tools.Tool {
		params := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if required != nil {
			params["required"] = required
		}
		b, _ := json.Marshal(map[string]any{"type": "function", "name": name, "description": desc, "strict": false, "parameters": params})
		return &resourceTool{m: m, name: name, spec: b}
	}
	return []tools.Tool{
		fn(listResourcesTool, "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible.",
			map[string]any{
				"server": str("Optional MCP server name. When omitted, lists resources from every configured server."),
				"cursor": str("Opaque cursor returned by a previous list_mcp_resources call for the same server."),
			}, nil),
		fn(listTemplatesTool, "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible.",
			map[string]any{
				"server": str("Optional MCP server name. When omitted, lists resource templates from all configured servers."),
				"cursor": str("Opaque cursor returned by a previous list_mcp_resource_templates call for the same server."),
			}, nil),
		fn(readResourceTool, "Read a specific resource from an MCP server given the server name and resource URI.",
			map[string]any{
				"server": str("MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."),
				"uri":    str("Resource URI to read. Must be one of the URIs returned by list_mcp_resources."),
			}, []string{"server", "uri"}),
	}
}

// Name implements [tools.Tool].
func (t *resourceTool) Name() string { return t.name }

// Spec implements [tools.Tool].
func (t *resourceTool) Spec() json.RawMessage { return t.spec }

// ParallelSafe implements [tools.Tool]: the calls only read.
func (t *resourceTool) ParallelSafe() bool { return true }

// Run implements [tools.Tool]. Listing or reading needs no approval (it
// changes nothing), as in Codex.
func (t *resourceTool) Run(ctx context.Context, inv *tools.Invocation) tools.Result {
	var a struct {
		Server string `json:"server"`
		Cursor string `json:"cursor"`
		URI    string `json:"uri"`
	}
	fail := func(msg string) tools.Result { return tools.Result{Output: msg, Status: tools.StatusFailed} }
	if in := inv.Call.Input; in != "" {
		if err := json.Unmarshal([]byte(in), &a); err != nil {
			return fail("failed to parse function arguments: " + err.Error())
		}
	}
	if t.name == readResourceTool && (a.Server == "" || a.URI == "") {
		return fail(readResourceTool + " needs server and uri")
	}
	if a.Cursor != "" && a.Server == "" {
		return fail("cursor can only be used when a server is specified")
	}
	if err := inv.Start(); err != nil {
		return tools.NotStarted(err)
	}
	var out any
	var err error
	switch t.name {
	case readResourceTool:
		out, err = t.read(ctx, a.Server, a.URI)
	default:
		out, err = t.list(ctx, a.Server, a.Cursor)
	}
	if err != nil {
		return fail(err.Error())
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fail(err.Error())
	}
	return tools.Result{Output: string(b), Status: tools.StatusCompleted}
}

// withServer is v (a resource or template) with its server's name, as
// Codex lists them.
func withServer(server string, v any) map[string]any {
	var m map[string]any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &m)
	if m == nil {
		m = map[string]any{}
	}
	m["server"] = server
	return m
}

// list lists the resources (or templates) of server, one page from
// cursor; of every ready server offering them, all pages, when server is
// "".
func (t *resourceTool) list(ctx context.Context, server, cursor string) (any, error) {
	key := "resources"
	if t.name == listTemplatesTool {
		key = "resourceTemplates"
	}
	if server != "" {
		s, cs, err := t.m.resourceSession(server)
		if err != nil {
			return nil, err
		}
		items, next, err := t.page(ctx, s, cs, cursor)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"server": server, key: items}
		if next != "" {
			out["nextCursor"] = next
		}
		return out, nil
	}
	all := []map[string]any{}
	for _, s := range t.m.servers {
		cs, err := t.m.session(s)
		if err != nil || !offersResources(cs) {
			continue
		}
		for cur := ""; ; {
			items, next, err := t.page(ctx, s, cs, cur)
			if err != nil {
				return nil, err
			}
			all = append(all, items...)
			if next == "" || next == cur {
				break
			}
			cur = next
		}
	}
	return map[string]any{key: all}, nil
}

// page is one page of s's resources or templates.
func (t *resourceTool) page(ctx context.Context, s *server, cs *gomcp.ClientSession, cursor string) ([]map[string]any, string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ToolTimeout)
	defer cancel()
	items := []map[string]any{}
	if t.name == listTemplatesTool {
		r, err := cs.ListResourceTemplates(ctx, &gomcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", fmt.Errorf("resources/templates/list failed on the MCP server %q: %w", s.cfg.Name, err)
		}
		for _, rt := range r.ResourceTemplates {
			items = append(items, withServer(s.cfg.Name, rt))
		}
		return items, r.NextCursor, nil
	}
	r, err := cs.ListResources(ctx, &gomcp.ListResourcesParams{Cursor: cursor})
	if err != nil {
		return nil, "", fmt.Errorf("resources/list failed on the MCP server %q: %w", s.cfg.Name, err)
	}
	for _, res := range r.Resources {
		items = append(items, withServer(s.cfg.Name, res))
	}
	return items, r.NextCursor, nil
}

// read reads uri from server.
func (t *resourceTool) read(ctx context.Context, server, uri string) (any, error) {
	s, cs, err := t.m.resourceSession(server)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ToolTimeout)
	defer cancel()
	r, err := cs.ReadResource(ctx, &gomcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("resources/read failed on the MCP server %q: %w", server, err)
	}
	return map[string]any{"server": server, "uri": uri, "contents": r.Contents}, nil
}

// resourceSession is the live session of the server called name, which
// must offer resources.
func (m *Manager) resourceSession(name string) (*server, *gomcp.ClientSession, error) {
	i := m.serverIndex(name)
	if i < 0 {
		return nil, nil, fmt.Errorf("unknown MCP server %q", name)
	}
	s := m.servers[i]
	cs, err := m.session(s)
	if err != nil {
		return nil, nil, err
	}
	if !offersResources(cs) {
		return nil, nil, errors.New("the MCP server " + fmt.Sprintf("%q", name) + " offers no resources")
	}
	return s, cs, nil
}

// offersResources reports whether the server declared resources.
func offersResources(cs *gomcp.ClientSession) bool {
	r := cs.InitializeResult()
	return r != nil && r.Capabilities != nil && r.Capabilities.Resources != nil
}
