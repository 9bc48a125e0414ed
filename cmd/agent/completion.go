package main

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/rollout"
)

// completedSessions caps the sessions completion offers, newest first.
const completedSessions = 100

// registerCompletions gives the shell completion (agent completion bash,
// zsh, fish) the values of agent's flags and arguments: the sandbox modes,
// approval policies and colour choices, the profiles and MCP servers of the
// home, and the recorded sessions for resume and fork. They are read when
// the shell asks, never while agent runs otherwise.
func registerCompletions(root *cobra.Command, env Env) {
	flags := map[string]cobra.CompletionFunc{
		"sandbox":          fixed("read-only\tcommands may read, not write", "workspace-write\tcommands may write in the workspace", "danger-full-access\tno sandbox"),
		"ask-for-approval": fixed("untrusted", "on-request", "on-failure", "never"),
		"color":            fixed("auto", "always", "never"),
		"local-provider":   fixed("ollama", "lmstudio"),
		"transport":        fixed("auto", "websocket", "https"),
		"log-level":        fixed("debug", "info", "warn", "error"),
		"profile":          profileNames(env),
	}
	args := map[string]cobra.CompletionFunc{
		"agent resume":      sessions(env),
		"agent fork":        sessions(env),
		"agent exec resume": sessions(env),
		"agent exec fork":   sessions(env),
		"agent mcp get":     mcpServers(env),
		"agent mcp remove":  mcpServers(env),
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		local := c.LocalFlags() // built afresh by each call: once per command
		for name, fn := range flags {
			if local.Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, fn) // a flag shared by two commands is registered once
			}
		}
		if fn, ok := args[c.CommandPath()]; ok && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = firstArg(fn)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// fixed offers values (each "value\tdescription" or a bare value).
func fixed(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// firstArg offers fn's values for the first argument only (the second of
// resume and fork is a prompt).
func firstArg(fn cobra.CompletionFunc) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fn(c, args, prefix)
	}
}

// profileNames offers the profiles of the home: NAME.config.toml files and
// [profiles.NAME] tables.
func profileNames(env Env) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		home, err := env.home()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return config.ProfileNames(home), cobra.ShellCompDirectiveNoFileComp
	}
}

// mcpServers offers the MCP servers of the home's config.toml.
func mcpServers(env Env) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		home, err := env.home()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		cfg, err := config.Load(config.Options{Home: home})
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []cobra.Completion
		for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
			s := cfg.MCPServers[name]
			out = append(out, cobra.CompletionWithDesc(name, s.Command+s.URL))
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// sessions offers the recorded sessions of every directory, newest first,
// by id with their name or first prompt; those of this directory first.
func sessions(env Env) cobra.CompletionFunc {
	return func(c *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		home, err := env.home()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		ctx, cancel := context.WithTimeout(cmpCtx(c), 5*time.Second)
		defer cancel()
		es, err := rollout.List(ctx, home, "", true, completedSessions)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		cwd, _ := os.Getwd()
		var here, elsewhere []cobra.Completion
		for _, e := range es {
			if !strings.HasPrefix(e.ID, prefix) && !strings.HasPrefix(e.Name, prefix) {
				continue
			}
			label := strings.Join(strings.Fields(e.Label()), " ")
			if e.Cwd == cwd {
				here = append(here, cobra.CompletionWithDesc(e.ID, label))
			} else {
				elsewhere = append(elsewhere, cobra.CompletionWithDesc(e.ID, label+" ("+e.Cwd+")"))
			}
		}
		return append(here, elsewhere...), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// cmpCtx is the command's context, or the background one before Execute
// gave it one.
func cmpCtx(c *cobra.Command) context.Context {
	if ctx := c.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
