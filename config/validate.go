package config

import (
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/tools"
)

// reasoningEfforts lists the values of model_reasoning_effort.
func reasoningEfforts() []string {
	return []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}
}

// reasoningSummaries lists the values of model_reasoning_summary.
func reasoningSummaries() []string { return []string{"auto", "concise", "detailed", "none"} }

// verbosities lists the values of model_verbosity.
func verbosities() []string { return []string{"low", "medium", "high"} }

// sandboxModes lists the values of sandbox_mode.
func sandboxModes() []string { return []string{"read-only", "workspace-write", "danger-full-access"} }

// maxEventBytes is the largest stream_max_event_bytes: an event is read
// into memory whole, and costs about twice its size there.
const maxEventBytes = 4 << 30

// maxMS is the largest millisecond count that fits a time.Duration.
const maxMS = math.MaxInt64 / int64(time.Millisecond)

// checker validates one layer, reporting at its source. Each check clears
// a value it rejects, so that nothing downstream sees it or reports it
// again.
type checker struct {
	src   *source
	probs *problems
	warns *warnings
}

// check reports and clears *v if it is set and ok rejects it. msg is a
// format taking the value.
func check[T any](c checker, path []string, v **T, ok func(T) bool, msg string) {
	if *v != nil && !ok(**v) {
		c.probs.add(c.src, path, msg, **v)
		*v = nil
	}
}

// enum checks that *v is one of allowed.
func (c checker) enum(path []string, v **string, allowed []string) {
	check(c, path, v, func(s string) bool { return slices.Contains(allowed, s) },
		"invalid value %q (expected one of: "+strings.Join(allowed, ", ")+")")
}

// nonEmpty checks that *v is not "".
func (c checker) nonEmpty(path []string, v **string) {
	if *v != nil && **v == "" {
		c.probs.add(c.src, path, "must not be empty")
		*v = nil
	}
}

// nonNegative checks that *v is at least 0.
func (c checker) nonNegative(path []string, v **int64) {
	check(c, path, v, func(n int64) bool { return n >= 0 }, "must not be negative, got %d")
}

// millis checks that *v is a positive number of milliseconds.
func (c checker) millis(path []string, v **int64) {
	check(c, path, v, func(n int64) bool { return n > 0 && n <= maxMS }, "must be a positive number of milliseconds, got %d")
}

// httpURL checks that *v is an absolute http or https URL.
func (c checker) httpURL(path []string, v **string) {
	check(c, path, v, func(s string) bool {
		u, err := url.Parse(s)
		return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
	}, "invalid URL %q (expected http:// or https://)")
}

// at returns path extended by keys, without aliasing path.
func at(path []string, keys ...string) []string {
	return append(slices.Clip(path), keys...)
}

// validate checks the values of one decoded layer that the types alone do
// not constrain.
func validate(l *layer, probs *problems, warns *warnings) {
	c := checker{src: l.src, probs: probs, warns: warns}
	f := &l.f
	c.nonEmpty([]string{"model"}, &f.Model)
	c.nonEmpty([]string{"model_provider"}, &f.ModelProvider)
	c.enum([]string{"model_reasoning_effort"}, &f.ModelReasoningEffort, reasoningEfforts())
	c.enum([]string{"model_reasoning_summary"}, &f.ModelReasoningSummary, reasoningSummaries())
	c.enum([]string{"model_verbosity"}, &f.ModelVerbosity, verbosities())
	f.approval = c.approval([]string{"approval_policy"}, f.ApprovalPolicy)
	c.enum([]string{"sandbox_mode"}, &f.SandboxMode, sandboxModes())
	c.enum([]string{"sandbox_fallback"}, &f.SandboxFallback, []string{"refuse", "best-effort"})
	c.enum([]string{"cli_auth_credentials_store"}, &f.CLIAuthCredentialsStore, []string{"file", "keyring", "auto", "ephemeral"})
	c.enum([]string{"forced_login_method"}, &f.ForcedLoginMethod, []string{"chatgpt", "api"})
	c.nonNegative([]string{"model_context_window"}, &f.ModelContextWindow)
	c.nonNegative([]string{"compact_keep_tool_calls"}, &f.CompactKeepToolCalls)
	c.nonNegative([]string{"model_auto_compact_token_limit"}, &f.ModelAutoCompactTokenLimit)
	c.nonNegative([]string{"tool_output_token_limit"}, &f.ToolOutputTokenLimit)
	c.enum([]string{"web_search"}, &f.WebSearch, []string{"cached", "live", "disabled"})
	c.models(f)
	c.nonNegative([]string{"project_doc_max_bytes"}, &f.ProjectDocMaxBytes)
	c.httpURL([]string{"openai_base_url"}, &f.OpenAIBaseURL)
	c.httpURL([]string{"chatgpt_base_url"}, &f.ChatGPTBaseURL)
	c.httpURL([]string{"auth_issuer"}, &f.AuthIssuer)
	c.httpURL([]string{"auth_token_url"}, &f.AuthTokenURL)
	c.nonEmpty([]string{"auth_client_id"}, &f.AuthClientID)
	if p := f.ShellEnvironmentPolicy; p != nil {
		c.enum([]string{"shell_environment_policy", "inherit"}, &p.Inherit, []string{"all", "core", "none"})
	}
	if h := f.History; h != nil {
		c.enum([]string{"history", "persistence"}, &h.Persistence, []string{"save-all", "none"})
		c.nonNegative([]string{"history", "max_bytes"}, &h.MaxBytes)
	}
	if t := f.TUI; t != nil {
		c.enum([]string{"tui", "alternate_screen"}, &t.AlternateScreen, []string{"auto", "always", "never"})
		c.nonEmpty([]string{"tui", "theme"}, &t.Theme)
		t.keys = c.keymap(t.Keymap)
	}
	for _, name := range sortedKeys(f.Projects) {
		p := f.Projects[name]
		c.enum([]string{"projects", name, "trust_level"}, &p.TrustLevel, []string{"trusted", "untrusted"})
		f.Projects[name] = p
	}
	for _, name := range sortedKeys(f.Profiles) {
		p := f.Profiles[name]
		path := []string{"profiles", name}
		c.nonEmpty(at(path, "model"), &p.Model)
		c.nonEmpty(at(path, "model_provider"), &p.ModelProvider)
		c.enum(at(path, "model_reasoning_effort"), &p.ModelReasoningEffort, reasoningEfforts())
		c.enum(at(path, "model_reasoning_summary"), &p.ModelReasoningSummary, reasoningSummaries())
		c.enum(at(path, "model_verbosity"), &p.ModelVerbosity, verbosities())
		p.approval = c.approval(at(path, "approval_policy"), p.ApprovalPolicy)
		c.enum(at(path, "sandbox_mode"), &p.SandboxMode, sandboxModes())
		f.Profiles[name] = p
	}
	for _, id := range sortedKeys(f.ModelProviders) {
		path := []string{"model_providers", id}
		p := f.ModelProviders[id]
		c.provider(path, &p)
		f.ModelProviders[id] = p
	}
	c.retry([]string{"retry"}, f.Retry.classes())
	if f.Retry != nil {
		check(c, []string{"retry", "max_concurrent_resends"}, &f.Retry.MaxConcurrentResends,
			func(n int64) bool { return n >= 1 && n <= 100 }, "must be between 1 and 100, got %v")
		check(c, []string{"retry", "max_wait_ms"}, &f.Retry.MaxWaitMS, func(n int64) bool { return n >= 0 && n <= maxMS },
			"must be 0 (no bound) or a positive number of milliseconds, got %d")
	}
	c.autoContinue([]string{"auto_continue"}, f.AutoContinue)
	c.proxy([]string{"proxy"}, f.Proxy)
	c.otel(f.Otel)
	c.mcpServers(f.MCPServers)
	c.agents(f.Agents)
}

// granularKeys are the categories of Codex's approval_policy.granular
// table; the first three are required, as in Codex.
func granularKeys() []string {
	return []string{"sandbox_approval", "rules", "mcp_elicitations", "skill_approval", "request_permissions"}
}

// approval checks an approval_policy value at path, a policy name or
// Codex's { granular = { ... } } table, and returns the policy agent
// applies, or nil when v is unset or invalid. Of the granular categories
// agent has only command approvals: sandbox_approval = true asks (on-request),
// false rejects every escalation without asking (never); each other
// category set gets a warning, as agent has no such prompt.
func (c checker) approval(path []string, v any) *string {
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		p := &v
		c.enum(path, &p, tools.Policies())
		return p
	case map[string]any:
		g, ok := v["granular"].(map[string]any)
		if len(v) != 1 || !ok {
			c.probs.add(c.src, path, `expected a policy name or { granular = { ... } }`)
			return nil
		}
		gpath := at(path, "granular")
		good := true
		for _, k := range sortedKeys(g) {
			if !slices.Contains(granularKeys(), k) {
				c.probs.add(c.src, at(gpath, k), "unknown key%s", hintNames(k, granularKeys()))
				good = false
			} else if _, isBool := g[k].(bool); !isBool {
				c.probs.add(c.src, at(gpath, k), "expected a boolean, got %s", typeName(g[k]))
				good = false
			}
		}
		if !good {
			return nil
		}
		var missing []string
		for _, k := range granularKeys()[:3] {
			if _, ok := g[k]; !ok {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			c.probs.add(c.src, gpath, "missing %s (sandbox_approval, rules and mcp_elicitations are required)",
				strings.Join(missing, ", "))
			return nil
		}
		for _, k := range granularKeys()[1:] {
			if _, ok := g[k]; ok {
				c.warns.add(c.src, at(gpath, k), "agent has no approval prompts of this kind; ignored")
			}
		}
		p := "never"
		if g["sandbox_approval"] == true {
			p = "on-request"
		}
		return &p
	}
	c.probs.add(c.src, path, "expected a string or a table, got %s", typeName(v))
	return nil
}

// provider checks one [model_providers.<id>] table at path.
func (c checker) provider(path []string, p *providerFile) {
	check(c, at(path, "wire_api"), &p.WireAPI, func(s string) bool {
		return s == provider.WireAPIResponses || s == provider.WireAPIChat || s == provider.WireAPIAnthropic
	}, `unknown wire_api %q; use "responses", "chat" or "anthropic"`)
	if p.BaseURL != nil && *p.BaseURL != "" {
		c.httpURL(at(path, "base_url"), &p.BaseURL)
	}
	c.nonNegative(at(path, "request_max_retries"), &p.RequestMaxRetries)
	c.nonNegative(at(path, "stream_max_retries"), &p.StreamMaxRetries)
	c.millis(at(path, "stream_idle_timeout_ms"), &p.StreamIdleTimeoutMS)
	c.millis(at(path, "stream_progress_timeout_ms"), &p.StreamProgressTimeoutMS)
	check(c, at(path, "stream_max_event_bytes"), &p.StreamMaxEventBytes, func(n int64) bool { return n >= 1<<10 && n <= maxEventBytes },
		"must be a number of bytes from 1024 to 4294967296 (4 GiB), got %d")
	c.enum(at(path, "transport"), &p.Transport, []string{provider.TransportAuto, provider.TransportWebSocket, provider.TransportHTTPS})
	c.millis(at(path, "websocket_connect_timeout_ms"), &p.WebSocketConnectTimeoutMS)
	check(c, at(path, "connection_max_wait_ms"), &p.ConnectionMaxWaitMS, func(n int64) bool { return n >= 0 && n <= maxMS },
		"must be 0 (wait until interrupted) or a positive number of milliseconds, got %d")
	c.retry(at(path, "retry"), p.Retry)
	c.autoContinue(at(path, "auto_continue"), p.AutoContinue)
	if a := p.Auth; a != nil {
		c.millis(at(path, "auth", "timeout_ms"), &a.TimeoutMS)
		c.millis(at(path, "auth", "refresh_interval_ms"), &a.RefreshIntervalMS)
	}
}

// autoContinue checks an auto_continue table at path.
func (c checker) autoContinue(path []string, a *autoContinueFile) {
	if a == nil {
		return
	}
	check(c, at(path, "delays_ms"), &a.DelaysMS, func(d []int64) bool {
		return len(d) <= 20 && !slices.ContainsFunc(d, func(n int64) bool { return n <= 0 || n > maxMS })
	}, "must be a list of at most 20 positive milliseconds, got %v")
	c.nonEmpty(at(path, "prompt"), &a.Prompt)
}

// retry checks a retry table at path, class by class.
func (c checker) retry(path []string, r *retryFile) {
	if r == nil {
		return
	}
	classes := r.classes()
	for _, class := range provider.Classes() {
		if cf := classes[class]; cf != nil {
			c.class(at(path, class), cf)
		}
	}
	if o := r.Overloaded; o != nil {
		check(c, at(path, provider.ClassOverloaded, "delays_ms"), &o.DelaysMS, func(d []int64) bool {
			return len(d) > 0 && !slices.ContainsFunc(d, func(n int64) bool { return n <= 0 || n > maxMS })
		}, "must be a non-empty list of positive milliseconds, got %v")
	}
}

// class checks the fields shared by every retry class.
func (c checker) class(path []string, cf *classFile) {
	c.nonNegative(at(path, "max_retries"), &cf.MaxRetries)
	c.millis(at(path, "base_delay_ms"), &cf.BaseDelayMS)
	c.millis(at(path, "max_delay_ms"), &cf.MaxDelayMS)
	check(c, at(path, "jitter"), &cf.Jitter, func(j float64) bool { return j >= 0 && j <= 1 },
		"must be between 0 and 1, got %v")
}

// classes returns the class tables of r by class name; unset ones are nil.
func (r *retryFile) classes() map[string]*classFile {
	m := map[string]*classFile{
		provider.ClassTransport:   r.Transport,
		provider.ClassServerError: r.ServerError,
		provider.ClassRateLimit:   r.RateLimit,
		provider.ClassIdle:        r.Idle,
		provider.ClassOverloaded:  nil,
	}
	if r.Overloaded != nil {
		m[provider.ClassOverloaded] = &r.Overloaded.classFile
	}
	return m
}

// schedules returns the fixed schedules (delays_ms) set in r by class
// name: only [retry.overloaded] takes one.
func (r *retryFile) schedules() map[string][]int64 {
	if r.Overloaded == nil || r.Overloaded.DelaysMS == nil {
		return nil
	}
	return map[string][]int64{provider.ClassOverloaded: *r.Overloaded.DelaysMS}
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
