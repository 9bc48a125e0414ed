package config_test

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/shellenv"
	"github.com/agentcli/agent/provider"
)

// writeHome returns a fresh agent home holding content as config.toml.
func writeHome(t *testing.T, content string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// mustLoad loads content with opts and fails the test on error.
func mustLoad(t *testing.T, content string, opts config.Options) config.Config {
	t.Helper()
	opts.Home = writeHome(t, content)
	c, err := config.Load(opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestLoadNoFile(t *testing.T) {
	for _, home := range []string{"", t.TempDir()} {
		got, err := config.Load(config.Options{Home: home})
		if err != nil {
			t.Fatalf("Load(%q): %v", home, err)
		}
		if diff := cmp.Diff(config.Default(), got); diff != "" {
			t.Errorf("Load(%q) mismatch (-want +got):\n%s", home, diff)
		}
	}
}

func TestDefault(t *testing.T) {
	c := config.Default()
	if c.Path != "" || c.Model != "gpt-5.5" || c.ModelProvider != "openai" || c.ApprovalPolicy != "" {
		t.Errorf("Default() = path %q model %q provider %q approval %q", c.Path, c.Model, c.ModelProvider, c.ApprovalPolicy)
	}
	if !c.Features.UnboundedConnectionRetries {
		t.Error("UnboundedConnectionRetries is false by default")
	}
	if diff := cmp.Diff(provider.Builtins()["openai"], c.Provider); diff != "" {
		t.Errorf("Provider mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(provider.DefaultRetry(), c.Retry); diff != "" {
		t.Errorf("Retry mismatch (-want +got):\n%s", diff)
	}
}

// readExample returns config.toml.example from the repository root.
func readExample(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "config.toml.example"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// uncomment enables every optional setting of the example: its
// "# key = value" and "# [table]" lines.
func uncomment(s string) string {
	setting := regexp.MustCompile(`(?m)^# ((?:[A-Za-z0-9_."/-]+ = .*)|(?:\[.*\]))$`)
	return setting.ReplaceAllString(s, "$1")
}

func TestExampleLoads(t *testing.T) {
	ex := readExample(t)
	c := mustLoad(t, ex, config.Options{})
	// The active settings of the example are the defaults.
	if diff := cmp.Diff(provider.DefaultRetry(), c.Retry); diff != "" {
		t.Errorf("example [retry] differs from the defaults (-want +got):\n%s", diff)
	}
	def := config.Default()
	for id, want := range def.Providers {
		if diff := cmp.Diff(want, c.Providers[id]); diff != "" {
			t.Errorf("example changes built-in %s (-want +got):\n%s", id, diff)
		}
	}
	corp := provider.Custom("corp")
	if diff := cmp.Diff(corp.RequestMaxRetries, c.Providers["corp"].RequestMaxRetries); diff != "" {
		t.Errorf("corp request_max_retries (-want +got):\n%s", diff)
	}
	def.Path, def.Providers, def.Provider = c.Path, c.Providers, c.Provider
	if diff := cmp.Diff(def, c); diff != "" {
		t.Errorf("example top-level settings differ from the defaults (-want +got):\n%s", diff)
	}

	// model_catalog_json names a models.json beside config.toml.
	home := writeHome(t, uncomment(ex))
	if err := os.WriteFile(filepath.Join(home, "models.json"), []byte(`{"models": [{"slug": "gpt-5.4-mini", "context_window": 128000}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	full, err := config.Load(config.Options{Home: home})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if w := full.Catalog.Window("gpt-5.4-mini"); w != 128000 {
		t.Errorf("uncommented example: gpt-5.4-mini's window %d; want the catalogue file's 128000", w)
	}
	if m, _ := full.Catalog.Lookup("qwen3-coder"); m.Limit.Context != 262144 || m.Cost == nil || full.MaxCostUSD != 2.5 {
		t.Errorf("uncommented example: qwen3-coder %+v, max_cost_usd %v", m, full.MaxCostUSD)
	}
	if full.Profile != "fast" || full.Model != "gpt-5.4-mini" {
		t.Errorf("uncommented example: profile %q model %q, want fast, gpt-5.4-mini", full.Profile, full.Model)
	}
}

// TestExampleDocumentsEveryKey keeps config.toml.example in step with the
// loader: every key the loader accepts must be set in the example, actively
// or as a "# key = value" line.
func TestExampleDocumentsEveryKey(t *testing.T) {
	var tree map[string]any
	md, err := toml.Decode(uncomment(readExample(t)), &tree)
	if err != nil {
		t.Fatal(err)
	}
	var have [][]string
	for _, k := range md.Keys() {
		have = append(have, k)
	}
	for _, pattern := range config.KnownKeys() {
		want := strings.Split(pattern, ".")
		joined := func(k []string) bool { // a key with dots in its name: Codex's "hide_gpt-5.1-..."
			return strings.HasPrefix(strings.Join(k, "."), pattern) && !strings.Contains(pattern, "*")
		}
		if !slices.ContainsFunc(have, func(k []string) bool { return matchKey(want, k) || joined(k) }) {
			t.Errorf("config.toml.example does not document %s", pattern)
		}
	}
}

// matchKey reports whether key matches pattern or lies below it, where "*"
// matches any part.
func matchKey(pattern, key []string) bool {
	if len(key) < len(pattern) {
		return false
	}
	for i := range pattern {
		if pattern[i] != "*" && pattern[i] != key[i] {
			return false
		}
	}
	return true
}

func TestPrecedence(t *testing.T) {
	const file = `
model = "file-model"
model_reasoning_effort = "high"
approval_policy = "untrusted"
profile = "p1"

[profiles.p1]
model = "p1-model"
model_reasoning_effort = "low"

[profiles.p2]
model = "p2-model"
sandbox_mode = "read-only"
`
	type result struct {
		Profile, Model, Effort, Approval, Sandbox string
	}
	tests := []struct {
		name string
		opts config.Options
		want result
	}{
		{"file profile key", config.Options{}, result{"p1", "p1-model", "low", "untrusted", ""}},
		{"flag beats profile key", config.Options{Profile: "p2"}, result{"p2", "p2-model", "high", "untrusted", "read-only"}},
		{"override selects profile", config.Options{Overrides: []string{"profile=p2"}}, result{"p2", "p2-model", "high", "untrusted", "read-only"}},
		{"override beats profile", config.Options{Overrides: []string{"model=o3", "model_reasoning_effort=minimal"}}, result{"p1", "o3", "minimal", "untrusted", ""}},
		{"later override wins", config.Options{Overrides: []string{"model=a", "model=b"}}, result{"p1", "b", "low", "untrusted", ""}},
		{"override edits profile", config.Options{Overrides: []string{"profiles.p1.model=edited"}}, result{"p1", "edited", "low", "untrusted", ""}},
		{"override defines profile", config.Options{Profile: "p3", Overrides: []string{"profiles.p3.approval_policy=never"}}, result{"p3", "file-model", "high", "never", ""}},
		{"model flag beats all", config.Options{Model: "flag", Overrides: []string{"model=o3"}}, result{"p1", "flag", "low", "untrusted", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, file, tt.opts)
			got := result{c.Profile, c.Model, c.ModelReasoningEffort, c.ApprovalPolicy, c.SandboxMode}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOverrides(t *testing.T) {
	const file = `
[model_providers.corp]
base_url = "https://corp.example/v1"
http_headers = { "X-A" = "1" }
`
	c := mustLoad(t, file, config.Options{Overrides: []string{
		`model="o3"`,          // TOML string
		"model_provider=corp", // bare word: literal string
		"model_providers.corp.stream_max_retries=10",
		`model_providers.corp.http_headers."X-B"=2x`,
		"model_providers.openai.request_max_retries = 7",
		"features.unbounded_connection_retries=false",
		"features.shell_tool=true",
		`projects."/src/a=b".trust_level=trusted`,
		"notify=[\"notify-send\", \"done\"]",
		"history.max_bytes=1024",
	}})
	got := map[string]any{
		"model":              c.Model,
		"provider":           c.ModelProvider,
		"stream_max_retries": c.Provider.StreamMaxRetries,
		"base_url":           c.Provider.BaseURL,
		"headers":            c.Provider.HTTPHeaders,
		"openai_retries":     c.Providers["openai"].RequestMaxRetries,
		"unbounded":          c.Features.UnboundedConnectionRetries,
		"warnings":           warningKeys(c.Warnings),
		"projects":           c.Projects,
		"notify":             c.Notify,
		"history":            c.History,
	}
	want := map[string]any{
		"model":              "o3",
		"provider":           "corp",
		"stream_max_retries": 10,
		"base_url":           "https://corp.example/v1",
		"headers":            map[string]string{"X-A": "1", "X-B": "2x"},
		"openai_retries":     7,
		"unbounded":          false,
		"warnings":           []string{"features.shell_tool"},
		"projects":           map[string]config.Project{"/src/a=b": {TrustLevel: "trusted"}},
		"notify":             []string{"notify-send", "done"},
		"history":            config.History{Persistence: "save-all", MaxBytes: 1024},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestProviders(t *testing.T) {
	const file = `
model_provider = "corp"
openai_base_url = "https://proxy.example/openai/v1"

[model_providers.corp]
base_url = "https://corp.example/v1"
request_max_retries = 1000
stream_max_retries = 0
stream_idle_timeout_ms = 1500
stream_max_event_bytes = 1048576
supports_websockets = true
query_params = { api-version = "2025-04-01-preview" }
env_http_headers = { "X-Trace" = "TRACE" }
`
	c := mustLoad(t, file, config.Options{})
	want := provider.Custom("corp")
	want.BaseURL = "https://corp.example/v1"
	want.RequestMaxRetries = provider.MaxRequestMaxRetries // clamped
	want.StreamMaxRetries = 0                              // explicit 0 overwrites
	want.StreamIdleTimeout = 1500 * time.Millisecond
	want.StreamMaxEventBytes = 1 << 20
	want.SupportsWebSockets = true
	want.QueryParams = map[string]string{"api-version": "2025-04-01-preview"}
	want.EnvHTTPHeaders = map[string]string{"X-Trace": "TRACE"}
	if diff := cmp.Diff(want, c.Provider); diff != "" {
		t.Errorf("corp mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, c.Providers["corp"]); diff != "" {
		t.Errorf("Providers[corp] mismatch (-want +got):\n%s", diff)
	}
	if got := c.Providers["openai"].BaseURL; got != "https://proxy.example/openai/v1" {
		t.Errorf("openai base URL = %q, want the openai_base_url", got)
	}
	ids := slices.Sorted(maps.Keys(c.Providers))
	if diff := cmp.Diff([]string{"corp", "demo", "lmstudio", "ollama", "openai"}, ids); diff != "" {
		t.Errorf("provider ids (-want +got):\n%s", diff)
	}
}

func TestRetryOverlay(t *testing.T) {
	const file = `
[retry.rate_limit]
max_retries = 3
base_delay_ms = 500

[retry.overloaded]
delays_ms = [100, 200]

[model_providers.corp]
base_url = "https://corp.example/v1"

[model_providers.corp.retry.rate_limit]
base_delay_ms = 700
jitter = 0

[model_providers.corp.retry.idle]
max_retries = 0
`
	c := mustLoad(t, file, config.Options{Overrides: []string{"model_providers.corp.retry.transport.max_delay_ms=900"}})

	global := provider.DefaultRetry()
	rl := global[provider.ClassRateLimit]
	rl.MaxRetries, rl.BaseDelay = 3, 500*time.Millisecond
	global[provider.ClassRateLimit] = rl
	ov := global[provider.ClassOverloaded]
	ov.Delays = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}
	global[provider.ClassOverloaded] = ov
	if diff := cmp.Diff(global, c.Retry); diff != "" {
		t.Errorf("global retry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(global, c.Providers["openai"].Retry); diff != "" {
		t.Errorf("openai gets the global policy (-want +got):\n%s", diff)
	}

	corp := maps.Clone(global)
	rl.BaseDelay, rl.Jitter = 700*time.Millisecond, 0 // max_retries 3 stays from [retry]
	corp[provider.ClassRateLimit] = rl
	idle := corp[provider.ClassIdle]
	idle.MaxRetries = 0
	corp[provider.ClassIdle] = idle
	tr := corp[provider.ClassTransport]
	tr.MaxDelay = 900 * time.Millisecond
	corp[provider.ClassTransport] = tr
	if diff := cmp.Diff(corp, c.Providers["corp"].Retry); diff != "" {
		t.Errorf("corp retry (-want +got):\n%s", diff)
	}
}

func TestCodexKeys(t *testing.T) {
	const file = `
model_verbosity = "high"
service_tier = "priority"
model_context_window = 272000
sandbox_mode = "workspace-write"
hide_agent_reasoning = true

[sandbox_workspace_write]
writable_roots = ["/tmp/a"]
network_access = true

[mcp_servers.docs]
command = "docs"
args = ["--stdio"]
env = { A = "1" }
`
	c := mustLoad(t, file, config.Options{Overrides: []string{"mcp_servers.docs.command=other"}})
	got := map[string]any{
		"verbosity": c.ModelVerbosity,
		"tier":      c.ServiceTier,
		"window":    c.ModelContextWindow,
		"sandbox":   c.SandboxMode,
		"hide":      c.HideAgentReasoning,
		"sww":       c.SandboxWorkspaceWrite,
		"features":  c.Features,
		"mcp":       c.MCPServers,
	}
	want := map[string]any{
		"verbosity": "high",
		"tier":      "priority",
		"window":    int64(272000),
		"sandbox":   "workspace-write",
		"hide":      true,
		"sww":       config.SandboxWorkspaceWrite{WritableRoots: []string{"/tmp/a"}, NetworkAccess: true},
		"features":  config.Features{UnboundedConnectionRetries: true, Goals: true},
		"mcp": map[string]config.MCPServer{"docs": {Command: "other", Args: []string{"--stdio"}, Env: map[string]string{"A": "1"},
			StartupTimeout: 10 * time.Second, ToolTimeout: time.Minute, Enabled: true}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestShellEnvironmentPolicy(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, toml string
		overrides  []string
		want       shellenv.Policy
	}{
		{"absent: the default policy", "", nil, shellenv.Policy{}},
		{"every key", `[shell_environment_policy]
inherit = "core"
ignore_default_excludes = true
exclude = ["AWS_*"]
set = { CI = "1" }
include_only = ["*PATH*"]
experimental_use_profile = false
`, nil, shellenv.Policy{Inherit: shellenv.InheritCore, IgnoreDefaultExcludes: true, Exclude: []string{"AWS_*"}, Set: map[string]string{"CI": "1"}, IncludeOnly: []string{"*PATH*"}}},
		{"-c overrides one key, keeps the rest", `[shell_environment_policy]
inherit = "none"
set = { A = "1" }
`, []string{`shell_environment_policy.set.B="2"`, `shell_environment_policy.inherit="all"`},
			shellenv.Policy{Inherit: shellenv.InheritAll, Set: map[string]string{"A": "1", "B": "2"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(c.toml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(config.Options{Home: home, Overrides: c.overrides})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.ShellEnvironmentPolicy, c.want) {
				t.Errorf("policy = %+v, want %+v", cfg.ShellEnvironmentPolicy, c.want)
			}
		})
	}
}

func TestShellEnvironmentPolicyErrors(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	src := "[shell_environment_policy]\ninherit = \"some\"\nexclude = \"AWS_*\"\nunknown = 1\n"
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := config.Load(config.Options{Home: home})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"config.toml:2: shell_environment_policy.inherit: invalid value \"some\" (expected one of: all, core, none)",
		"config.toml:3: shell_environment_policy.exclude",
		"config.toml:4: shell_environment_policy.unknown: unknown key",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// warningKeys returns the keys the warnings name, in order.
func warningKeys(ws []config.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Key)
	}
	return out
}
