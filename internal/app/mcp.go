package app

import (
	"context"

	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/tools/mcp"
)

// startMCP starts the enabled MCP servers of the config in the background;
// each session offers their tools as each comes up ([App.Open]). notice
// receives the servers' state changes (ready, failed, stopped) from the
// manager's goroutines; nil leaves them to the log. The manager is closed
// with the app.
func (a *App) startMCP(ctx context.Context, notice func(mcp.Notice)) {
	servers := setup.MCPServerConfigs(a.cfg)
	if len(servers) == 0 {
		return
	}
	m := mcp.New(mcp.Options{
		Servers:  servers,
		Policy:   a.ws.Policy,
		Sandbox:  string(a.ws.Sandbox.Mode),
		Cwd:      a.ws.Cwd,
		Getenv:   a.env.Getenv,
		Logger:   a.logger,
		OnNotice: notice,
		AskUser:  a.opts.AskUser,
		Version:  a.version,
	})
	m.Start(ctx)
	a.mcpServers = m
	a.closers = append(a.closers, func() { m.Close() })
}
