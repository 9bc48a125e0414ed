package config_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
)

// firstError loads content and returns the first *config.Error reported,
// with the path of the file.
func firstError(t *testing.T, content string, opts config.Options) (*config.Error, string, error) {
	t.Helper()
	opts.Home = writeHome(t, content)
	_, err := config.Load(opts)
	if err == nil {
		t.Fatal("Load succeeded, want an error")
	}
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("Load error %v (%T) is not a *config.Error", err, err)
	}
	return ce, filepath.Join(opts.Home, config.FileName), err
}

func TestFileErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		line    int
		key     string
		msg     string // substring of Msg
	}{
		{"unknown top-level key", "# c\nmodel = \"x\"\nmodle = \"y\"\n", 3, "modle", `unknown key (did you mean "model"?)`},
		{"unknown provider key", "model = \"x\"\n\n[model_providers.x]\nname = \"X\"\nbse_url = \"u\"\nbase_url = \"http://h/v1\"\n", 5, "model_providers.x.bse_url", `did you mean "base_url"`},
		{"unknown key in inline table", "retry = { transport = { max_retriez = 1 } }\n", 1, "retry.transport.max_retriez", "unknown key"},
		{"unknown dotted key", "model = \"x\"\nfoo.bar = 1\n", 2, "foo", "unknown key"},
		{"unknown table", "\n[shell]\nx = 1\n", 2, "shell", "unknown key"},
		{"unknown retry class", "[retry.transprot]\nmax_retries = 1\n", 1, "retry.transprot", `did you mean "transport"`},
		{"unknown retry class far", "[retry.network]\nmax_retries = 1\n", 1, "retry.network", "expected one of: transport, server_error, rate_limit, overloaded, idle, max_concurrent_resends, max_wait_ms"},
		{"delays_ms outside overloaded", "[retry.transport]\n\ndelays_ms = [1]\n", 3, "retry.transport.delays_ms", "unknown key"},
		{"string expected", "\n\nmodel = 5\n", 3, "model", "expected a string, got integer"},
		{"integer expected", "[model_providers.x]\nrequest_max_retries = \"x\"\nbase_url = \"http://h/v1\"\n", 2, "model_providers.x.request_max_retries", "expected an integer, got string"},
		{"boolean feature", "[features]\nunbounded_connection_retries = 1\n", 2, "features.unbounded_connection_retries", "expected a boolean, got integer"},
		{"feature in nobody's schema", "[features]\nunbounded_conection_retries = true\n", 2, "features.unbounded_conection_retries", `unknown key (did you mean "unbounded_connection_retries"?)`},
		{"codex key typo", "personalty = \"x\"\n", 1, "personalty", `unknown key (did you mean "personality"?)`},
		{"granular missing", "approval_policy = { granular = { sandbox_approval = true } }\n", 1, "approval_policy.granular", "missing rules"},
		{"granular typo", "approval_policy = { granular = { sandbox_aproval = true, rules = true, mcp_elicitations = true } }\n", 1, "approval_policy.granular.sandbox_aproval", `did you mean "sandbox_approval"?`},
		{"array element", "notify = [\"a\", 1]\n", 1, "notify", "element 2: expected a string, got integer"},
		{"table expected", "model_providers = 1\n", 1, "model_providers", "expected a table, got integer"},
		{"array of tables", "[[profiles]]\nmodel = \"x\"\n", 1, "profiles", "expected a table, got array of tables"},
		{"quoted key", "[projects.\"/src/app\"]\ntrust_level = \"yes\"\n", 2, `projects."/src/app".trust_level`, `invalid value "yes"`},
		{"syntax error", "model = \"x\"\nmodel_provider = \"unterminated\n", 2, "model_provider", "syntax error"},
		{"duplicate key", "model = \"x\"\nmodel = \"y\"\n", 2, "model", "syntax error"},
		{"wire_api other", "[model_providers.x]\nwire_api = \"grpc\"\nbase_url = \"http://h/v1\"\n", 2, "model_providers.x.wire_api", `unknown wire_api "grpc"`},
		{"negative retries", "[model_providers.x]\nstream_max_retries = -1\nbase_url = \"http://h/v1\"\n", 2, "model_providers.x.stream_max_retries", "must not be negative"},
		{"zero timeout", "[model_providers.x]\nstream_idle_timeout_ms = 0\nbase_url = \"http://h/v1\"\n", 2, "model_providers.x.stream_idle_timeout_ms", "positive number of milliseconds"},
		{"tiny event bound", "[model_providers.x]\nstream_max_event_bytes = 100\nbase_url = \"http://h/v1\"\n", 2, "model_providers.x.stream_max_event_bytes", "must be a number of bytes from 1024 to 4294967296 (4 GiB), got 100"},
		{"bad base_url", "[model_providers.x]\nbase_url = \"corp.example/v1\"\n", 2, "model_providers.x.base_url", "invalid URL"},
		{"custom provider without base_url", "model = \"x\"\n[model_providers.x]\nenv_key = \"X_KEY\"\n", 2, "model_providers.x", "base_url is required for a custom provider"},
		{"bad enum", "approval_policy = \"sometimes\"\n", 1, "approval_policy", `invalid value "sometimes" (expected one of: untrusted, on-request, on-failure, never)`},
		{"bad profile enum", "[profiles.p]\nmodel_reasoning_effort = \"extreme\"\n", 2, "profiles.p.model_reasoning_effort", "invalid value"},
		{"unknown provider", "\nmodel_provider = \"nope\"\n", 2, "model_provider", `unknown model provider "nope" (known: demo, lmstudio, ollama, openai)`},
		{"unknown provider in profile", "profile = \"p\"\n[profiles.p]\nmodel_provider = \"nope\"\n", 3, "profiles.p.model_provider", "unknown model provider"},
		{"unknown profile", "profile = \"fast\"\n[profiles.slow]\n", 1, "profile", `(defined: slow)`},
		{"negative max_retries", "[retry.idle]\nmax_retries = -2\n", 2, "retry.idle.max_retries", "must not be negative"},
		{"negative compact_keep_tool_calls", "compact_keep_tool_calls = -1\n", 1, "compact_keep_tool_calls", "must not be negative"},
		{"zero base delay", "[retry.idle]\nbase_delay_ms = 0\n", 2, "retry.idle.base_delay_ms", "positive number of milliseconds"},
		{"jitter above 1", "[retry.rate_limit]\njitter = 1.5\n", 2, "retry.rate_limit.jitter", "between 0 and 1"},
		{"jitter nan", "[retry.rate_limit]\njitter = nan\n", 2, "retry.rate_limit.jitter", "between 0 and 1"},
		{"empty delays", "[retry.overloaded]\ndelays_ms = []\n", 2, "retry.overloaded.delays_ms", "non-empty list of positive"},
		{"negative delay", "[retry.overloaded]\ndelays_ms = [1000, -5]\n", 2, "retry.overloaded.delays_ms", "non-empty list of positive"},
		{"max below base", "[retry.transport]\nbase_delay_ms = 500\nmax_delay_ms = 100\n", 3, "retry.transport.max_delay_ms", "max_delay_ms (100) must not be below base_delay_ms (500)"},
		{"base above default max", "[retry.transport]\nbase_delay_ms = 120000\n", 2, "retry.transport.base_delay_ms", "must not be below base_delay_ms (120000)"},
		{"provider max below global base", "[retry.idle]\nbase_delay_ms = 500\n[model_providers.x.retry.idle]\nmax_delay_ms = 100\n[model_providers.x]\nbase_url = \"http://h/v1\"\n", 4, "model_providers.x.retry.idle.max_delay_ms", "must not be below"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, path, err := firstError(t, tt.content, config.Options{})
			want := &config.Error{Path: path, Line: tt.line, Key: tt.key, Msg: got.Msg}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			if !strings.Contains(got.Msg, tt.msg) {
				t.Errorf("Msg = %q, want it to contain %q", got.Msg, tt.msg)
			}
			if prefix := fmt.Sprintf("%s:%d: %s: ", path, tt.line, tt.key); !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("Error() = %q, want prefix %q", err.Error(), prefix)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("Error() = %q spans lines", err.Error())
			}
		})
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		name      string
		overrides []string
		key       string
		msg       string
	}{
		{"string fallback type error", []string{"model_providers.x.request_max_retries=x"}, "model_providers.x.request_max_retries", "expected an integer, got string"},
		{"toml type error", []string{"model=5"}, "model", "expected a string, got integer"},
		{"missing equals", []string{"model"}, "", "expected key=value"},
		{"empty key", []string{"=x"}, "", `invalid key "": empty key`},
		{"bad key", []string{"a b=1"}, "", `invalid key "a b"`},
		{"unknown key", []string{"modle=x"}, "modle", `did you mean "model"`},
		{"unknown provider", []string{"model_provider=nope"}, "model_provider", `unknown model provider "nope"`},
		{"unknown wire api", []string{"model_providers.openai.wire_api=grpc"}, "model_providers.openai.wire_api", `unknown wire_api "grpc"`},
		{"unknown class", []string{"retry.network.max_retries=1"}, "retry.network", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(config.Options{Overrides: tt.overrides})
			var got *config.Error
			if !errors.As(err, &got) {
				t.Fatalf("Load error %v is not a *config.Error", err)
			}
			want := &config.Error{Override: tt.overrides[0], Key: tt.key, Msg: got.Msg}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			if !strings.Contains(got.Msg, tt.msg) {
				t.Errorf("Msg = %q, want it to contain %q", got.Msg, tt.msg)
			}
			if prefix := "-c " + tt.overrides[0] + ": "; !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("Error() = %q, want prefix %q", err.Error(), prefix)
			}
		})
	}
}

// TestNewlineOverrideIsString checks that a value smuggling in a second key
// is not TOML for one value, so it becomes a literal string.
func TestNewlineOverrideIsString(t *testing.T) {
	c, err := config.Load(config.Options{Overrides: []string{"model=\"a\"\nmodel_provider=\"b\""}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "\"a\"\nmodel_provider=\"b\""; c.Model != want || c.ModelProvider != "openai" {
		t.Errorf("model %q provider %q, want %q and openai", c.Model, c.ModelProvider, want)
	}
}

func TestProfileFlagUnknown(t *testing.T) {
	got, path, _ := firstError(t, "[profiles.a]\n[profiles.b]\n", config.Options{Profile: "c"})
	home := filepath.Dir(path)
	want := &config.Error{Path: path, Key: "profile", Msg: `unknown profile "c" given by --profile: no ` + filepath.Join(home, "c.config.toml") + ` and no [profiles.c] in ` + path + ` (defined: a, b)`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error mismatch (-want +got):\n%s", diff)
	}
}

func TestAllProblemsReported(t *testing.T) {
	const file = `model = 1
approval_policy = "x"

[model_providers.corp]
wire_api = "grpc"
bse_url = "u"
`
	home := writeHome(t, file)
	_, err := config.Load(config.Options{Home: home, Overrides: []string{"modle=x"}})
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		t.Fatalf("Load error %v is not joined", err)
	}
	type loc struct {
		Line     int
		Key      string
		Override string
	}
	var got []loc
	for _, e := range joined.Unwrap() {
		var ce *config.Error
		if !errors.As(e, &ce) {
			t.Fatalf("%v is not a *config.Error", e)
		}
		got = append(got, loc{ce.Line, ce.Key, ce.Override})
	}
	want := []loc{
		{1, "model", ""},
		{2, "approval_policy", ""},
		{4, "model_providers.corp", ""}, // bse_url is a typo: no base_url
		{5, "model_providers.corp.wire_api", ""},
		{6, "model_providers.corp.bse_url", ""},
		{0, "modle", "modle=x"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestTooManyProblems(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "unknown%d = 1\n", i)
	}
	_, err := config.Load(config.Options{Home: writeHome(t, b.String())})
	if err == nil || !strings.Contains(err.Error(), "10 more problems not shown") {
		t.Errorf("Load error = %v, want 20 problems and a count of the rest", err)
	}
}

func TestUnreadableFile(t *testing.T) {
	home := t.TempDir()
	// A directory named config.toml cannot be read as a file.
	if err := os.Mkdir(filepath.Join(home, config.FileName), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := config.Load(config.Options{Home: home})
	var pe *os.PathError
	if !errors.As(err, &pe) {
		t.Errorf("Load error = %v, want an *os.PathError", err)
	}
}
