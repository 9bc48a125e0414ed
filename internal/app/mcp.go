package app

import (
	"context"
	"maps"
	"slices"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/tools/mcp"
)

// startMCP starts the enabled MCP servers of the config in the background;
// each session offers their tools as each comes up ([App.Open]). notice
// receives the servers' state changes (ready, failed, stopped) from the
// manager's goroutines; nil leaves them to the log. The manager is closed
// with the app.
func (a *App) startMCP(ctx context.Context, notice func(mcp.Notice)) {
	servers := MCPServerConfigs(a.cfg)
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

// MCPServerConfigs returns the enabled [mcp_servers] of cfg, by name.
func MCPServerConfigs(cfg config.Config) []mcp.ServerConfig {
	var out []mcp.ServerConfig
	for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
		s := cfg.MCPServers[name]
		if !s.Enabled {
			continue
		}
		out = append(out, mcp.ServerConfig{
			Name: name, Command: s.Command, Args: s.Args, Env: s.Env, EnvVars: s.EnvVars, Cwd: s.Cwd,
			URL: s.URL, BearerTokenEnvVar: s.BearerTokenEnvVar, HTTPHeaders: s.HTTPHeaders, EnvHTTPHeaders: s.EnvHTTPHeaders,
			StartupTimeout: s.StartupTimeout, ToolTimeout: s.ToolTimeout,
			EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools, ParallelToolCalls: s.SupportsParallelToolCalls,
			DefaultApproval: s.DefaultToolsApprovalMode, ToolApproval: s.ToolApprovalModes,
		})
	}
	return out
}
