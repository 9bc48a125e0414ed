package setup

import (
	"maps"
	"slices"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/tools/mcp"
)

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
