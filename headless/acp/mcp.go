package acp

import (
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentcli/agent/tools/mcp"
)

// mcpServers turns the MCP servers a client gives session/new or
// session/load into the session's own ([app.Spec].MCPServers): stdio ones
// (every agent must take them) and streamable HTTP ones (agent declares
// mcpCapabilities.http). Those of a transport agent does not declare (SSE,
// ACP) are named in the log and left out.
func (s *Server) mcpServers(list []sdk.McpServer) []mcp.ServerConfig {
	var out []mcp.ServerConfig
	for i, m := range list {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, mcp.ServerConfig{Name: m.Stdio.Name, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env})
		case m.Http != nil:
			headers := map[string]string{}
			for _, h := range m.Http.Headers {
				headers[h.Name] = h.Value
			}
			out = append(out, mcp.ServerConfig{Name: m.Http.Name, URL: m.Http.Url, HTTPHeaders: headers})
		case m.Sse != nil:
			s.opts.Log.Warn(fmt.Sprintf("MCP server %q of the client is not connected: agent takes stdio and http MCP servers, not sse (mcpCapabilities)", m.Sse.Name))
		default:
			s.opts.Log.Warn(fmt.Sprintf("MCP server %d of the client is not connected: agent takes stdio and http MCP servers (mcpCapabilities)", i))
		}
	}
	return out
}
