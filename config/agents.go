package config

import (
	"path/filepath"
	"strings"
)

// Codex's defaults of [agents] (codex-rs core/src/config: agent_max_threads
// 6, agent_max_depth 1; job_max_runtime_seconds is documented as 1800).
const (
	DefaultAgentMaxThreads           = 6
	DefaultAgentMaxDepth             = 1
	DefaultAgentJobMaxRuntimeSeconds = 1800
)

// Agents is Codex's [agents] table: the limits of the subagents the model
// spawns (spawn_agent) and the roles declared in config.toml. Roles in
// agents/ folders are found by internal/app, which knows the folders.
type Agents struct {
	// MaxThreads is max_threads: at most this many subagents are open at
	// once in one session's tree.
	MaxThreads int
	// MaxDepth is max_depth: a session at this depth spawns no more (the
	// root is depth 0).
	MaxDepth int
	// JobMaxRuntimeSeconds is job_max_runtime_seconds: a subagent's turn
	// ends after this long.
	JobMaxRuntimeSeconds int64
	// Roles are the [agents.<name>] tables, by name.
	Roles map[string]AgentRole
}

// AgentRole is one [agents.<name>] table.
type AgentRole struct {
	// Description tells the model what the role is for.
	Description string
	// ConfigFile is the role's file (absolute; relative paths are taken
	// from config.toml's folder): its developer_instructions, model and
	// the rest; "" when the table declares none.
	ConfigFile string
	// NicknameCandidates are names the role's agents are shown by.
	NicknameCandidates []string
}

// agentsFile is [agents]: the limits, and every other key a role table.
type agentsFile struct {
	MaxThreads           *int64                   `toml:"max_threads"`
	MaxDepth             *int64                   `toml:"max_depth"`
	JobMaxRuntimeSeconds *int64                   `toml:"job_max_runtime_seconds"`
	InterruptMessage     *bool                    `toml:"interrupt_message"`
	Roles                map[string]agentRoleFile `toml:"*"`
}

// agentRoleFile is [agents.<name>].
type agentRoleFile struct {
	Description        *string   `toml:"description"`
	ConfigFile         *string   `toml:"config_file"`
	NicknameCandidates *[]string `toml:"nickname_candidates"`
}

func defaultAgents() Agents {
	return Agents{MaxThreads: DefaultAgentMaxThreads, MaxDepth: DefaultAgentMaxDepth,
		JobMaxRuntimeSeconds: DefaultAgentJobMaxRuntimeSeconds, Roles: map[string]AgentRole{}}
}

// agents checks [agents] of one layer.
func (c checker) agents(a *agentsFile) {
	if a == nil {
		return
	}
	check(c, []string{"agents", "max_threads"}, &a.MaxThreads, func(n int64) bool { return n >= 1 && n <= 1000 },
		"must be between 1 and 1000, got %d")
	check(c, []string{"agents", "max_depth"}, &a.MaxDepth, func(n int64) bool { return n >= 0 && n <= 100 },
		"must be between 0 and 100, got %d")
	check(c, []string{"agents", "job_max_runtime_seconds"}, &a.JobMaxRuntimeSeconds, func(n int64) bool { return n >= 1 && n <= 7*24*3600 },
		"must be between 1 and 604800 seconds (none is unbounded), got %d")
	if a.InterruptMessage != nil {
		c.warns.add(c.src, []string{"agents", "interrupt_message"}, ignoredMsg)
	}
	for _, name := range sortedKeys(a.Roles) {
		r := a.Roles[name]
		path := []string{"agents", name}
		if r.Description != nil && strings.TrimSpace(*r.Description) == "" {
			c.probs.add(c.src, at(path, "description"), "cannot be blank")
			r.Description = nil
		}
		if r.NicknameCandidates != nil {
			for _, n := range *r.NicknameCandidates {
				if strings.TrimSpace(n) == "" {
					c.probs.add(c.src, at(path, "nickname_candidates"), "cannot contain blank names")
					r.NicknameCandidates = nil
					break
				}
			}
		}
		a.Roles[name] = r
	}
}

// applyAgents overlays one layer's [agents]; dir is the folder relative
// config_file paths are taken from.
func (c *Config) applyAgents(a *agentsFile, dir string) {
	if a == nil {
		return
	}
	if a.MaxThreads != nil {
		c.Agents.MaxThreads = int(*a.MaxThreads)
	}
	if a.MaxDepth != nil {
		c.Agents.MaxDepth = int(*a.MaxDepth)
	}
	set(&c.Agents.JobMaxRuntimeSeconds, a.JobMaxRuntimeSeconds)
	if c.Agents.Roles == nil {
		c.Agents.Roles = map[string]AgentRole{}
	}
	for name, rf := range a.Roles {
		r := c.Agents.Roles[name]
		set(&r.Description, rf.Description)
		if rf.ConfigFile != nil {
			r.ConfigFile = *rf.ConfigFile
			if !filepath.IsAbs(r.ConfigFile) && dir != "" {
				r.ConfigFile = filepath.Join(dir, r.ConfigFile)
			}
		}
		set(&r.NicknameCandidates, rf.NicknameCandidates)
		c.Agents.Roles[name] = r
	}
}
