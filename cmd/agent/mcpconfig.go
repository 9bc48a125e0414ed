package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/exitcode"
)

// mcpList is agent mcp list: the configured MCP servers, a table or
// JSON (values of environment variables and headers masked).
func mcpList(w io.Writer, cfg config.Config, asJSON bool) error {
	names := slices.Sorted(maps.Keys(cfg.MCPServers))
	if asJSON {
		out := make([]mcpServerJSON, 0, len(names))
		for _, n := range names {
			out = append(out, newMCPServerJSON(n, cfg.MCPServers[n]))
		}
		return printJSON(w, out)
	}
	if len(names) == 0 {
		fmt.Fprintln(w, "No MCP servers configured. Add one with `agent mcp add NAME -- COMMAND [ARGS...]`.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tCOMMAND / URL\tSTATUS\tTOOLS")
	for _, n := range names {
		s := cfg.MCPServers[n]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", n, mcpTransport(s), mcpTarget(s), enabledWord(s.Enabled), toolFilter(s))
	}
	return tw.Flush()
}

// mcpGet is agent mcp get NAME: one server's settings, or an error
// (exit 1) when there is none of that name.
func mcpGet(w io.Writer, cfg config.Config, name string, asJSON bool) error {
	s, ok := cfg.MCPServers[name]
	if !ok {
		return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("no MCP server named %q in %s", name, orNone(cfg.Path))}
	}
	if asJSON {
		return printJSON(w, newMCPServerJSON(name, s))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
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
}

// mcpServerOf is the server agent mcp add describes: a command (after
// --, the position cobra.ArgsLenAtDash gives) with its --env pairs, or a --url with its bearer variable.
// Its errors are usage errors.
func mcpServerOf(command []string, atDash int, url, bearer string, envPairs []string) (config.MCPServer, error) {
	if atDash != 1 && len(command) > 0 {
		return config.MCPServer{}, usageError(errors.New("put the server's command after --: agent mcp add NAME -- COMMAND [ARGS...]"))
	}
	s := config.DefaultMCPServer()
	switch {
	case url != "" && len(command) > 0:
		return config.MCPServer{}, usageError(errors.New("give either --url or a command after --, not both"))
	case url != "":
		if len(envPairs) > 0 {
			return config.MCPServer{}, usageError(errors.New("--env applies to stdio servers (a command), not to --url"))
		}
		s.URL, s.BearerTokenEnvVar = url, bearer
	case len(command) > 0:
		if bearer != "" {
			return config.MCPServer{}, usageError(errors.New("--bearer-token-env-var applies to --url servers"))
		}
		s.Command, s.Args = command[0], command[1:]
		for _, kv := range envPairs {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return config.MCPServer{}, usageError(fmt.Errorf("--env %q: want KEY=VALUE", kv))
			}
			if s.Env == nil {
				s.Env = map[string]string{}
			}
			s.Env[k] = v
		}
	default:
		return config.MCPServer{}, usageError(errors.New("say how to reach the server: agent mcp add NAME -- COMMAND [ARGS...], or --url URL"))
	}
	return s, nil
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

// orNone is the config file's path, or what a config without one is
// (as /status says it).
func orNone(path string) string {
	if path == "" {
		return "(none: defaults)"
	}
	return path
}
