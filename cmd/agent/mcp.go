package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/tools/mcp"
)

// printMCPNotice is exec's notice handler: one line on stderr per change.
func printMCPNotice(env Env) func(mcp.Notice) {
	return func(n mcp.Notice) { fmt.Fprintln(env.Stderr, "agent: mcp: "+stderrText(env, n.String())) }
}

func newMCPCmd(env Env, g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List, show, add and remove MCP servers ([mcp_servers] in config.toml)",
		Long: `Manage the Model Context Protocol servers of $AGENT_HOME/config.toml. Their
tools are offered to the model as mcp__<server>__<tool>. add and remove edit
only the server's own [mcp_servers.NAME] table and keep the rest of the file,
comments included; the file is replaced atomically.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newMCPListCmd(env, g), newMCPGetCmd(env, g), newMCPAddCmd(env), newMCPRemoveCmd(env))
	return cmd
}

// loadMCPConfig loads the config the way the other commands do.
func loadMCPConfig(env Env, g *globalFlags) (config.Config, error) {
	_, cfg, err := env.loadConfig(g)
	return cfg, err
}

func newMCPListCmd(env Env, g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the configured MCP servers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadMCPConfig(env, g)
			if err != nil {
				return err
			}
			return mcpList(env.Stdout, cfg, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newMCPGetCmd(env Env, g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show one MCP server's settings",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadMCPConfig(env, g)
			if err != nil {
				return err
			}
			return mcpGet(env.Stdout, cfg, args[0], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newMCPAddCmd(env Env) *cobra.Command {
	var envPairs []string
	var url, bearer string
	cmd := &cobra.Command{
		Use:   "add NAME [--env K=V]... -- COMMAND [ARGS...] | add NAME --url URL [--bearer-token-env-var VAR]",
		Short: "Add (or replace) an MCP server in config.toml",
		Example: `  agent mcp add docs -- npx -y @acme/docs-mcp --stdio
  agent mcp add github --env GITHUB_HOST=github.example -- github-mcp
  agent mcp add figma --url https://mcp.figma.com/mcp --bearer-token-env-var FIGMA_TOKEN`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			s, err := mcpServerOf(args[1:], cmd.ArgsLenAtDash(), url, bearer, envPairs)
			if err != nil {
				return err
			}
			home, err := env.home()
			if err != nil {
				return err
			}
			replaced, err := config.SetMCPServer(home, name, s)
			if err != nil {
				return mcpEditError(err)
			}
			verb := "Added"
			if replaced {
				verb = "Updated"
			}
			fmt.Fprintf(env.Stdout, "%s MCP server %q in %s\n", verb, name, filepath.Join(home, config.FileName))
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&envPairs, "env", nil, "KEY=VALUE added to a stdio server's environment (repeatable)")
	cmd.Flags().StringVar(&url, "url", "", "the URL of a streamable HTTP server")
	cmd.Flags().StringVar(&bearer, "bearer-token-env-var", "", "with --url: the environment variable holding a bearer token")
	return cmd
}

func newMCPRemoveCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove an MCP server from config.toml",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := env.home()
			if err != nil {
				return err
			}
			path := filepath.Join(home, config.FileName)
			removed, err := config.RemoveMCPServer(home, args[0])
			if err != nil {
				return mcpEditError(err)
			}
			if !removed {
				return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("no MCP server named %q in %s", args[0], path)}
			}
			fmt.Fprintf(env.Stdout, "Removed MCP server %q from %s\n", args[0], path)
			return nil
		},
	}
}
