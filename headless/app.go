package headless

import (
	"github.com/agentcli/agent/headless/execprint"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/tools/mcp"
)

// AppHeader is what exec prints on stderr before a turn of session t of
// app a (agent version version); [RunTurn] adds the session id.
func AppHeader(a *app.App, t *app.Thread, version string) execprint.Header {
	ws, cfg := t.Workspace(), a.Config()
	return execprint.Header{
		Version: version, Workdir: ws.Cwd, Model: cfg.Model, Provider: a.Provider().ID,
		Approval: ws.Policy, Sandbox: string(ws.Sandbox.Mode), WritableRoots: ws.Sandbox.WritableRoots,
		ReasoningEffort: cfg.ModelReasoningEffort,
	}
}

// AppTools describes session t's tools to the printers: the shell, the
// working directory, and which MCP server and remote name each MCP tool
// has.
func AppTools(t *app.Thread) execprint.Tools {
	ws := t.Workspace()
	return execprint.Tools{Shell: ws.Shell, Cwd: ws.Cwd, MCPTool: func(name string) (string, string, bool) {
		tool, ok := t.Tools().Lookup(name)
		if !ok {
			return "", "", false
		}
		m, ok := tool.(*mcp.Tool)
		if !ok {
			return "", "", false
		}
		return m.Server(), m.Remote(), true
	}}
}
