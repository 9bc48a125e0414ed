package app

import (
	"context"
	"fmt"

	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
)

// startMCP starts the enabled MCP servers of the config in the background;
// each session offers their tools as each comes up ([App.Open]). notice
// receives the servers' state changes (ready, failed, stopped) from the
// manager's goroutines; nil leaves them to the log. askUser answers the
// servers' elicitations (nil: declined); it is the app's option, not
// a.opts', which is built after the servers start. The manager is closed
// with the app.
func (a *App) startMCP(ctx context.Context, notice func(mcp.Notice), askUser func(context.Context, tools.UserInputRequest) (map[string][]string, bool)) {
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
		AskUser:  askUser,
		Version:  a.version,
	})
	m.Start(ctx)
	a.mcpServers = m
	a.closers = append(a.closers, func() { m.Close() })
}

// startSessionMCP starts the MCP servers a front end brings for this
// session alone (an ACP client's mcpServers) and waits until each is ready
// or has failed, so the session's first turn has their tools; they stop
// when the session closes. A subagent shares its parent's. A server named
// like one of config's is not started (config's wins) and is named in the
// notices returned.
func (t *Thread) startSessionMCP(ctx context.Context, sp Spec) []string {
	if sp.child != nil {
		t.mcp = sp.child.parent.mcp
		return nil
	}
	var servers []mcp.ServerConfig
	var notices []string
	for _, s := range sp.MCPServers {
		if _, clash := t.a.cfg.MCPServers[s.Name]; clash {
			notices = append(notices, fmt.Sprintf("MCP server %q of the client is not started: config.toml has a server of that name, which the session uses", s.Name))
			continue
		}
		servers = append(servers, s)
	}
	if len(servers) == 0 {
		return notices
	}
	m := mcp.New(mcp.Options{
		Servers: servers,
		Policy:  t.ws.Policy,
		Sandbox: string(t.ws.Sandbox.Mode),
		Cwd:     t.ws.Cwd,
		Getenv:  t.a.env.Getenv,
		Logger:  t.a.logger,
		AskUser: t.a.opts.AskUser,
		Version: t.a.version,
	})
	m.Start(context.WithoutCancel(ctx)) // they run until the session closes, past the request that opened it
	t.mcp = m
	t.closers = append(t.closers, func() { m.Close() })
	select {
	case <-m.Started():
	case <-ctx.Done():
	}
	for _, st := range m.Servers() {
		if st.State == mcp.Failed {
			notices = append(notices, fmt.Sprintf("MCP server %q of the client failed to start: %v", st.Name, st.Err))
		}
	}
	return notices
}
