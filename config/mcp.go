package config

import (
	"math"
	"reflect"
	"regexp"
	"time"

	"github.com/BurntSushi/toml"
)

// Defaults of [mcp_servers.<name>], as Codex's.
const (
	DefaultMCPStartupTimeout = 10 * time.Second
	DefaultMCPToolTimeout    = 60 * time.Second
)

// MCPServer is one [mcp_servers.<name>] table: a Model Context Protocol
// server whose tools the model may call. Exactly one of Command (a stdio
// server) and URL (a streamable HTTP server) is set.
type MCPServer struct {
	// Command and Args start a stdio server; Env is added to its
	// environment, and EnvVars names variables passed on from the agent's
	// own environment. Cwd is its working directory ("" = the session's).
	Command string
	Args    []string
	Env     map[string]string
	EnvVars []string
	Cwd     string
	// URL is a streamable HTTP endpoint. BearerTokenEnvVar names the
	// variable holding its bearer token; HTTPHeaders are sent as they are;
	// EnvHTTPHeaders map a header to the variable holding its value.
	URL               string
	BearerTokenEnvVar string
	HTTPHeaders       map[string]string
	EnvHTTPHeaders    map[string]string
	// StartupTimeout bounds the start; [DefaultMCPStartupTimeout] by
	// default (startup_timeout_sec, or the older startup_timeout_ms).
	StartupTimeout time.Duration
	// ToolTimeout bounds each call; [DefaultMCPToolTimeout] by default.
	ToolTimeout time.Duration
	// Enabled is true by default; false keeps the table but starts nothing.
	Enabled bool
	// EnabledTools, when non-nil, lists the only tools offered;
	// DisabledTools are then removed.
	EnabledTools  []string
	DisabledTools []string
	// SupportsParallelToolCalls lets its tools run alongside other calls.
	SupportsParallelToolCalls bool
	// DefaultToolsApprovalMode (default_tools_approval_mode) and
	// ToolApprovalModes (tools.<tool>.approval_mode) say when a call asks
	// for approval, as in Codex: "auto" ("" too: by the tool's
	// annotations), "prompt" (always), "writes" (unless the tool is
	// annotated read-only) or "approve" (never).
	DefaultToolsApprovalMode string
	ToolApprovalModes        map[string]string
}

// DefaultMCPServer returns the defaults an [mcp_servers.<name>] table
// starts from.
func DefaultMCPServer() MCPServer {
	return MCPServer{StartupTimeout: DefaultMCPStartupTimeout, ToolTimeout: DefaultMCPToolTimeout, Enabled: true}
}

// mcpServerFile is [mcp_servers.<name>].
type mcpServerFile struct {
	Command                   *string                `toml:"command"`
	Args                      *[]string              `toml:"args"`
	Env                       map[string]string      `toml:"env"`
	EnvVars                   *[]string              `toml:"env_vars"`
	Cwd                       *string                `toml:"cwd"`
	URL                       *string                `toml:"url"`
	BearerTokenEnvVar         *string                `toml:"bearer_token_env_var"`
	HTTPHeaders               map[string]string      `toml:"http_headers"`
	EnvHTTPHeaders            map[string]string      `toml:"env_http_headers"`
	StartupTimeoutSec         *float64               `toml:"startup_timeout_sec"`
	StartupTimeoutMS          *int64                 `toml:"startup_timeout_ms"`
	ToolTimeoutSec            *float64               `toml:"tool_timeout_sec"`
	Enabled                   *bool                  `toml:"enabled"`
	EnabledTools              *[]string              `toml:"enabled_tools"`
	DisabledTools             *[]string              `toml:"disabled_tools"`
	SupportsParallelToolCalls *bool                  `toml:"supports_parallel_tool_calls"`
	DefaultToolsApprovalMode  *string                `toml:"default_tools_approval_mode"`
	Tools                     map[string]mcpToolFile `toml:"tools"`
}

// mcpToolFile is [mcp_servers.<name>.tools.<tool>].
type mcpToolFile struct {
	ApprovalMode *string `toml:"approval_mode"`
}

// mcpApprovalModes are the values of Codex's approval_mode keys.
func mcpApprovalModes() []string { return []string{"auto", "prompt", "writes", "approve"} }

// mcpServerName is the shape of a server name, as in Codex: it becomes
// part of tool names.
var mcpServerName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// Keys only one kind of server takes.
func stdioOnlyKeys() []string { return []string{"args", "env", "env_vars", "cwd"} }
func httpOnlyKeys() []string {
	return []string{"bearer_token_env_var", "http_headers", "env_http_headers"}
}

// mcpServers checks the [mcp_servers] tables of one layer.
func (c checker) mcpServers(servers map[string]mcpServerFile) {
	for _, name := range sortedKeys(servers) {
		path := []string{"mcp_servers", name}
		if !mcpServerName.MatchString(name) {
			c.probs.add(c.src, path, "invalid server name %q (use letters, digits, _ and -)", name)
			delete(servers, name)
			continue
		}
		s := servers[name]
		hadCommand, hadURL := s.Command != nil, s.URL != nil
		c.nonEmpty(at(path, "command"), &s.Command)
		c.nonEmpty(at(path, "cwd"), &s.Cwd)
		if s.URL != nil {
			c.httpURL(at(path, "url"), &s.URL)
		}
		c.nonEmpty(at(path, "bearer_token_env_var"), &s.BearerTokenEnvVar)
		c.seconds(at(path, "startup_timeout_sec"), &s.StartupTimeoutSec)
		c.millis(at(path, "startup_timeout_ms"), &s.StartupTimeoutMS)
		c.seconds(at(path, "tool_timeout_sec"), &s.ToolTimeoutSec)
		c.enum(at(path, "default_tools_approval_mode"), &s.DefaultToolsApprovalMode, mcpApprovalModes())
		for _, tool := range sortedKeys(s.Tools) {
			tf := s.Tools[tool]
			c.enum(at(path, "tools", tool, "approval_mode"), &tf.ApprovalMode, mcpApprovalModes())
			s.Tools[tool] = tf
		}
		if hadCommand && s.Command == nil || hadURL && s.URL == nil {
			// Reported; checking its kind would only report it again.
			delete(servers, name)
			continue
		}
		servers[name] = s
	}
}

// seconds checks that *v is a positive number of seconds that fits a
// time.Duration.
func (c checker) seconds(path []string, v **float64) {
	check(c, path, v, func(s float64) bool {
		return s > 0 && !math.IsInf(s, 0) && s*1000 <= float64(maxMS)
	}, "must be a positive number of seconds, got %v")
}

// resolveMCP builds c.MCPServers from every layer, table by table and key
// by key, then checks each server's kind where its keys were last set.
func (c *Config) resolveMCP(layers []layer, probs *problems) {
	where := map[string]map[string]location{} // server → key ("" = table) → where set
	for _, l := range layers {
		for _, name := range sortedKeys(l.f.MCPServers) {
			f := l.f.MCPServers[name]
			s, ok := c.MCPServers[name]
			if !ok {
				s = DefaultMCPServer()
			}
			c.MCPServers[name] = overlayMCP(s, f)
			path := []string{"mcp_servers", name}
			w := where[name]
			if w == nil {
				w = map[string]location{}
				where[name] = w
			}
			w[""] = location{l.src, path}
			for _, k := range f.keys() {
				w[k] = location{l.src, at(path, k)}
			}
		}
	}
	for _, name := range sortedKeys(where) {
		checkMCP(c.MCPServers[name], where[name], probs)
	}
}

// overlayMCP returns s with the keys set in f applied.
func overlayMCP(s MCPServer, f mcpServerFile) MCPServer {
	set(&s.Command, f.Command)
	set(&s.Args, f.Args)
	s.Env = overlayMap(s.Env, f.Env)
	set(&s.EnvVars, f.EnvVars)
	set(&s.Cwd, f.Cwd)
	set(&s.URL, f.URL)
	set(&s.BearerTokenEnvVar, f.BearerTokenEnvVar)
	s.HTTPHeaders = overlayMap(s.HTTPHeaders, f.HTTPHeaders)
	s.EnvHTTPHeaders = overlayMap(s.EnvHTTPHeaders, f.EnvHTTPHeaders)
	if ms := f.StartupTimeoutMS; ms != nil {
		s.StartupTimeout = millis(*ms)
	}
	if sec := f.StartupTimeoutSec; sec != nil {
		s.StartupTimeout = time.Duration(*sec * float64(time.Second))
	}
	if sec := f.ToolTimeoutSec; sec != nil {
		s.ToolTimeout = time.Duration(*sec * float64(time.Second))
	}
	set(&s.Enabled, f.Enabled)
	set(&s.EnabledTools, f.EnabledTools)
	set(&s.DisabledTools, f.DisabledTools)
	set(&s.SupportsParallelToolCalls, f.SupportsParallelToolCalls)
	set(&s.DefaultToolsApprovalMode, f.DefaultToolsApprovalMode)
	for _, name := range sortedKeys(f.Tools) {
		if m := f.Tools[name].ApprovalMode; m != nil {
			s.ToolApprovalModes = overlayMap(s.ToolApprovalModes, map[string]string{name: *m})
		}
	}
	return s
}

// keys lists the keys set in f.
func (f mcpServerFile) keys() []string {
	v := reflect.ValueOf(f)
	var out []string
	for _, fd := range fieldsOf(v.Type()) {
		if !v.FieldByIndex(fd.index).IsNil() {
			out = append(out, fd.name)
		}
	}
	return out
}

// checkMCP reports a server that is neither or both kinds, or mixes the
// keys of both, at the place the offending key was last set.
func checkMCP(s MCPServer, w map[string]location, probs *problems) {
	report := func(key, format string, args ...any) {
		loc, ok := w[key]
		if !ok {
			loc = w[""]
		}
		probs.add(loc.src, loc.path, format, args...)
	}
	switch {
	case s.Command == "" && s.URL == "":
		if !probs.about(w, "command", "url") { // a command of the wrong type is told already
			report("", "needs command (a stdio server) or url (a streamable HTTP server)")
		}
		return
	case s.Command != "" && s.URL != "":
		report("url", "command and url cannot both be set: command starts a stdio server, url connects to a streamable HTTP server")
		return
	}
	wrong, kind := httpOnlyKeys(), "streamable HTTP servers (url)"
	if s.URL != "" {
		wrong, kind = stdioOnlyKeys(), "stdio servers (command)"
	}
	for _, k := range wrong {
		if _, ok := w[k]; ok {
			report(k, "only applies to %s", kind)
		}
	}
}

// about reports whether a problem was found at one of keys of the server
// whose keys are located in w (a key whose value had the wrong type is
// not among them: it was never set).
func (p *problems) about(w map[string]location, keys ...string) bool {
	for _, k := range keys {
		key := toml.Key(at(w[""].path, k)).String()
		for _, e := range p.list {
			if e.Key == key {
				return true
			}
		}
	}
	return false
}
