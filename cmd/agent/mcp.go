package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/headless/exitcode"
	"github.com/agentcli/agent/tools/mcp"
)

// printMCPNotice is exec's notice handler: one line on stderr per change.
func printMCPNotice(env Env) func(mcp.Notice) {
	return func(n mcp.Notice) { fmt.Fprintln(env.Stderr, "agent: mcp: "+stderrText(env, n.String())) }
}

// syncWriter serialises writes: MCP notices reach exec's stderr from the
// manager's goroutines while the turn writes to it.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
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
			names := slices.Sorted(maps.Keys(cfg.MCPServers))
			if asJSON {
				out := make([]mcpServerJSON, 0, len(names))
				for _, n := range names {
					out = append(out, newMCPServerJSON(n, cfg.MCPServers[n]))
				}
				return printJSON(env.Stdout, out)
			}
			if len(names) == 0 {
				fmt.Fprintln(env.Stdout, "No MCP servers configured. Add one with `agent mcp add NAME -- COMMAND [ARGS...]`.")
				return nil
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tTRANSPORT\tCOMMAND / URL\tSTATUS\tTOOLS")
			for _, n := range names {
				s := cfg.MCPServers[n]
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", n, mcpTransport(s), mcpTarget(s), enabledWord(s.Enabled), toolFilter(s))
			}
			return tw.Flush()
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
			name := args[0]
			s, ok := cfg.MCPServers[name]
			if !ok {
				return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("no MCP server named %q in %s", name, orNone(cfg.Path))}
			}
			if asJSON {
				return printJSON(env.Stdout, newMCPServerJSON(name, s))
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, name)
			row := func(k, v string) { fmt.Fprintf(tw, "  %s:\t%s\n", k, v) }
			row("status", enabledWord(s.Enabled))
			row("transport", mcpTransport(s))
			if s.URL != "" {
				row("url", s.URL)
				row("bearer_token_env_var", dash(s.BearerTokenEnvVar))
				row("http_headers", dash(maskedPairs(s.HTTPHeaders)))
				row("env_http_headers", dash(pairs(s.EnvHTTPHeaders)))
			} else {
				row("command", s.Command)
				row("args", dash(strings.Join(quoteArgs(s.Args), " ")))
				row("env", dash(maskedPairs(s.Env)))
				row("env_vars", dash(strings.Join(s.EnvVars, ", ")))
				row("cwd", dash(s.Cwd))
			}
			row("startup_timeout_sec", fmt.Sprint(s.StartupTimeout.Seconds()))
			row("tool_timeout_sec", fmt.Sprint(s.ToolTimeout.Seconds()))
			row("tools", toolFilter(s))
			row("remove", "agent mcp remove "+name)
			return tw.Flush()
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
			name, command := args[0], args[1:]
			if dash := cmd.ArgsLenAtDash(); dash != 1 && len(command) > 0 {
				return usageError(errors.New("put the server's command after --: agent mcp add NAME -- COMMAND [ARGS...]"))
			}
			s := config.DefaultMCPServer()
			switch {
			case url != "" && len(command) > 0:
				return usageError(errors.New("give either --url or a command after --, not both"))
			case url != "":
				if len(envPairs) > 0 {
					return usageError(errors.New("--env applies to stdio servers (a command), not to --url"))
				}
				s.URL, s.BearerTokenEnvVar = url, bearer
			case len(command) > 0:
				if bearer != "" {
					return usageError(errors.New("--bearer-token-env-var applies to --url servers"))
				}
				s.Command, s.Args = command[0], command[1:]
				for _, kv := range envPairs {
					k, v, ok := strings.Cut(kv, "=")
					if !ok || k == "" {
						return usageError(fmt.Errorf("--env %q: want KEY=VALUE", kv))
					}
					if s.Env == nil {
						s.Env = map[string]string{}
					}
					s.Env[k] = v
				}
			default:
				return usageError(errors.New("say how to reach the server: agent mcp add NAME -- COMMAND [ARGS...], or --url URL"))
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

// mcpEditError gives a failed edit its exit code: a config problem is a
// usage error, anything else (the disk) a failure.
func mcpEditError(err error) error {
	var ce *config.Error
	if errors.Is(err, config.ErrUneditable) || errors.As(err, &ce) {
		return usageError(err)
	}
	return &exitcode.Error{Code: exitcode.Failed, Err: err}
}

// mcpServerJSON is one server in `agent mcp list|get --json`; environment
// and header values are masked.
type mcpServerJSON struct {
	Name              string            `json:"name"`
	Enabled           bool              `json:"enabled"`
	Transport         string            `json:"transport"`
	Command           string            `json:"command,omitempty"`
	Args              []string          `json:"args,omitempty"`
	Env               map[string]string `json:"env,omitempty"`
	EnvVars           []string          `json:"env_vars,omitempty"`
	Cwd               string            `json:"cwd,omitempty"`
	URL               string            `json:"url,omitempty"`
	BearerTokenEnvVar string            `json:"bearer_token_env_var,omitempty"`
	HTTPHeaders       map[string]string `json:"http_headers,omitempty"`
	EnvHTTPHeaders    map[string]string `json:"env_http_headers,omitempty"`
	StartupTimeoutSec float64           `json:"startup_timeout_sec"`
	ToolTimeoutSec    float64           `json:"tool_timeout_sec"`
	EnabledTools      []string          `json:"enabled_tools"`
	DisabledTools     []string          `json:"disabled_tools,omitempty"`
}

func newMCPServerJSON(name string, s config.MCPServer) mcpServerJSON {
	mask := func(m map[string]string) map[string]string {
		if len(m) == 0 {
			return nil
		}
		out := make(map[string]string, len(m))
		for k := range m {
			out[k] = "*****"
		}
		return out
	}
	return mcpServerJSON{
		Name: name, Enabled: s.Enabled, Transport: mcpTransport(s),
		Command: s.Command, Args: s.Args, Env: mask(s.Env), EnvVars: s.EnvVars, Cwd: s.Cwd,
		URL: s.URL, BearerTokenEnvVar: s.BearerTokenEnvVar, HTTPHeaders: mask(s.HTTPHeaders), EnvHTTPHeaders: s.EnvHTTPHeaders,
		StartupTimeoutSec: s.StartupTimeout.Seconds(), ToolTimeoutSec: s.ToolTimeout.Seconds(),
		EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools,
	}
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func mcpTransport(s config.MCPServer) string {
	if s.URL != "" {
		return "streamable-http"
	}
	return "stdio"
}

// mcpTarget is the command line or the URL of s.
func mcpTarget(s config.MCPServer) string {
	if s.URL != "" {
		return s.URL
	}
	return strings.Join(quoteArgs(append([]string{s.Command}, s.Args...)), " ")
}

// quoteArgs quotes the arguments a shell would split.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`") {
			a = fmt.Sprintf("%q", a)
		}
		out[i] = a
	}
	return out
}

func enabledWord(on bool) string {
	if on {
		return "enabled"
	}
	return "disabled"
}

// toolFilter describes which tools of s are offered.
func toolFilter(s config.MCPServer) string {
	desc := "all"
	if s.EnabledTools != nil {
		desc = "only " + dash(strings.Join(s.EnabledTools, ", "))
	}
	if len(s.DisabledTools) > 0 {
		desc += " except " + strings.Join(s.DisabledTools, ", ")
	}
	return desc
}

func pairs(m map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return strings.Join(out, ", ")
}

// maskedPairs lists the keys of m with their values hidden: they are
// often secrets.
func maskedPairs(m map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"=*****")
	}
	return strings.Join(out, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(none: defaults)"
	}
	return s
}
