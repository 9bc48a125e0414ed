package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/config"
)

// TestCodexExampleConfig loads Codex's own example config, unchanged: it
// loads, and each key agent ignores gives exactly one warning.
func TestCodexExampleConfig(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "codex", "example-config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t, string(data), config.Options{})
	want := []string{
		"review_model",
		"model_supports_reasoning_summaries",
		"model_reasoning_summary_format",
		"history.file_opener", // after [history] in Codex's file
		"tui",
		// The keys written after [notice] are in it: the auth keys, project_doc_*.
		"notice.cli_auth_credentials_store", "notice.chatgpt_base_url", "notice.mcp_oauth_credentials_store",
		"notice.project_doc_max_bytes", "notice.project_doc_fallback_filenames",
		"tools",
		"features.unified_exec",
		"features.rmcp_client",
		"features.apply_patch_freeform",
		"features.view_image_tool",
		"features.web_search_request",
		"features.undo",
		"features.enable_experimental_windows_sandbox",
		"features.skills",
		"features.experimental_use_freeform_apply_patch", // after [features]
	}
	got := warningKeys(c.Warnings)
	if diff := cmp.Diff(sorted(want), sorted(got)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	for i, w := range c.Warnings {
		if i > 0 && w.Line < c.Warnings[i-1].Line {
			t.Errorf("warning %q comes after line %d: want the file's order", w.String(), c.Warnings[i-1].Line)
		}
		if strings.HasPrefix(w.Key, "notice.") {
			if !strings.Contains(w.String(), ": "+w.Key+": not one of Codex's [notice] keys; ignored (a key written below [notice] belongs to it") {
				t.Errorf("warning %q: want the key named as no [notice] key", w.String())
			}
			continue
		}
		if w.Line == 0 || !strings.HasSuffix(w.String(), ": "+w.Key+": Codex setting that agent ignores") {
			t.Errorf("warning %q: want path:line: key: Codex setting that agent ignores", w.String())
		}
	}
	// What it sets that agent implements is applied.
	if c.Model != "gpt-5.1-codex-max" || c.ModelVerbosity != "medium" || c.ModelReasoningSummary != "auto" ||
		c.ApprovalPolicy != "on-request" || c.SandboxMode != "read-only" || c.History.Persistence != "save-all" {
		t.Errorf("example settings not applied: %+v", c)
	}
}

// TestCodexUserConfig is a Codex user's config as the issue found it: it
// loads, with one warning per ignored key, and the built-in provider
// override and the granular approval policy take effect.
func TestCodexUserConfig(t *testing.T) {
	const file = `
model = "gpt-5.5"
file_opener = "cursor"
review_model = "gpt-5.5"
model_supports_reasoning_summaries = true
personality = "pragmatic"
experimental_instructions_file = "/etc/codex/instructions.md"
mcp_oauth_credentials_store = "keyring"
check_for_update_on_startup = false
disable_response_storage = true
approval_policy = { granular = { sandbox_approval = false, rules = true, mcp_elicitations = false } }

[ghost_snapshot]
disable_warnings = true
ignore_large_untracked_files = 100

[model_providers.openai]
name = "OpenAI (corp)"
base_url = "https://llm.corp.example/v1"
request_max_retries = 9

[profiles.deep]
model = "gpt-5.5"
features = { unified_exec = false }
tools_web_search = true
`
	c := mustLoad(t, file, config.Options{})
	want := []string{
		"file_opener", "review_model", "model_supports_reasoning_summaries", "personality",
		"mcp_oauth_credentials_store", "check_for_update_on_startup", "disable_response_storage",
		"approval_policy.granular.rules", "approval_policy.granular.mcp_elicitations",
		"ghost_snapshot", "profiles.deep.features", "profiles.deep.tools_web_search",
	}
	if diff := cmp.Diff(sorted(want), sorted(warningKeys(c.Warnings))); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if c.ApprovalPolicy != "never" {
		t.Errorf("granular sandbox_approval = false: ApprovalPolicy = %q, want never", c.ApprovalPolicy)
	}
	if c.ModelInstructionsFile != "/etc/codex/instructions.md" {
		t.Errorf("experimental_instructions_file: ModelInstructionsFile = %q", c.ModelInstructionsFile)
	}
	if p := c.Provider; p.ID != "openai" || p.Name != "OpenAI (corp)" || p.BaseURL != "https://llm.corp.example/v1" ||
		p.RequestMaxRetries != 9 || !p.RequiresOpenAIAuth {
		t.Errorf("[model_providers.openai] override: %+v", p)
	}
}

// TestCodexIgnoredKeys is the table of ignored keys: each, set alone, loads
// with exactly one warning naming it.
func TestCodexIgnoredKeys(t *testing.T) {
	for _, pattern := range config.CodexIgnoredKeys() {
		key := strings.ReplaceAll(pattern, "*", "x")
		t.Run(key, func(t *testing.T) {
			var file string
			switch parts := strings.Split(key, "."); {
			case len(parts) == 1:
				file = key + " = true\n"
			case parts[0] == "history", parts[0] == "otel":
				file = "[" + parts[0] + "]\n" + parts[1] + " = true\n"
			case parts[0] == "model_providers":
				file = "[model_providers.x]\nbase_url = \"http://h/v1\"\n" + parts[2] + " = true\n"
			case parts[0] == "mcp_servers":
				file = "[mcp_servers.x]\ncommand = \"srv\"\n" + parts[2] + " = true\n"
			default:
				file = "[" + strings.Join(parts[:2], ".") + "]\n" + parts[2] + " = true\n"
			}
			c := mustLoad(t, file, config.Options{})
			if got := warningKeys(c.Warnings); !slices.Equal(got, []string{key}) {
				t.Errorf("warnings = %q, want exactly [%s]", got, key)
			}
			// The same key given with -c warns once too, naming the argument.
			args := []string{key + "=1"}
			if strings.HasPrefix(key, "mcp_servers.") {
				args = append([]string{"mcp_servers.x.command=srv"}, args...)
			}
			if strings.HasPrefix(key, "model_providers.") {
				args = append([]string{"model_providers.x.base_url=http://h/v1"}, args...)
			}
			c, err := config.Load(config.Options{Overrides: args})
			if err != nil {
				t.Fatalf("-c %s=1: %v", key, err)
			}
			if len(c.Warnings) != 1 || c.Warnings[0].Override != key+"=1" {
				t.Errorf("-c warnings = %v", c.Warnings)
			}
		})
	}
	for _, name := range config.CodexFeatures() {
		c := mustLoad(t, "[features]\n"+name+" = true\n", config.Options{})
		if got := warningKeys(c.Warnings); !slices.Equal(got, []string{"features." + name}) {
			t.Errorf("features.%s: warnings = %q", name, got)
		}
	}
}

// TestCodexWarningOncePerRun: a key set in the file and again with -c
// warns once.
func TestCodexWarningOncePerRun(t *testing.T) {
	c := mustLoad(t, "personality = \"x\"\n", config.Options{Overrides: []string{"personality=y"}})
	if got := warningKeys(c.Warnings); !slices.Equal(got, []string{"personality"}) {
		t.Errorf("warnings = %q", got)
	}
}

// TestCodexWarningsInReadingOrder: the warnings come in the order people
// read the configuration, as its errors do: the file's by line (not in
// the order the keys are checked), then the overrides' in command-line
// order.
func TestCodexWarningsInReadingOrder(t *testing.T) {
	file := "review_model = \"x\"\n[profiles.p]\npersonality = \"x\"\n[history]\nfile_opener = \"vscode\"\n"
	c := mustLoad(t, file, config.Options{Overrides: []string{"sqlite_home=/x", "check_for_update_on_startup=false"}})
	want := []string{"review_model", "profiles.p.personality", "history.file_opener", "sqlite_home", "check_for_update_on_startup"}
	if got := warningKeys(c.Warnings); !slices.Equal(got, want) {
		t.Errorf("warnings = %q, want %q", got, want)
	}
	for i, w := range c.Warnings[:3] {
		if w.Line != []int{1, 3, 5}[i] {
			t.Errorf("warning %s: line %d, want %d", w.Key, w.Line, []int{1, 3, 5}[i])
		}
	}
}

// TestExampleListsIgnoredKeys: config.toml.example names every key agent
// ignores.
func TestExampleListsIgnoredKeys(t *testing.T) {
	ex := readExample(t)
	i := strings.Index(ex, "# Codex keys agent ignores.")
	if i < 0 {
		t.Fatal("config.toml.example has no \"Codex keys agent ignores\" section")
	}
	words := strings.FieldsFunc(ex[i:], func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == '\n' || r == '#' })
	for _, pattern := range config.CodexIgnoredKeys() {
		parts := strings.Split(pattern, ".")
		if !slices.Contains(words, parts[len(parts)-1]) {
			t.Errorf("config.toml.example does not list %s", pattern)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestProfileInstructionKeys: a profile's instructions file, compact prompt
// file and ChatGPT URL win over the top level's, as Codex's profiles do.
func TestProfileInstructionKeys(t *testing.T) {
	const file = `
model_instructions_file = "/top.md"
experimental_compact_prompt_file = "/top-compact.md"
chatgpt_base_url = "https://top.example/backend-api"

[profiles.a]
model_instructions_file = "/a.md"
experimental_compact_prompt_file = "/a-compact.md"
chatgpt_base_url = "https://a.example/backend-api"

[profiles.b]
experimental_instructions_file = "/b.md"
`
	c := mustLoad(t, file, config.Options{Profile: "a"})
	if c.ModelInstructionsFile != "/a.md" || c.ExperimentalCompactPromptFile != "/a-compact.md" ||
		c.ChatGPTBaseURL != "https://a.example/backend-api" || len(c.Warnings) != 0 {
		t.Errorf("profile a: %q %q %q, warnings %v", c.ModelInstructionsFile, c.ExperimentalCompactPromptFile, c.ChatGPTBaseURL, c.Warnings)
	}
	c = mustLoad(t, file, config.Options{Profile: "b"})
	if c.ModelInstructionsFile != "/b.md" || c.ExperimentalCompactPromptFile != "/top-compact.md" {
		t.Errorf("profile b: %q %q", c.ModelInstructionsFile, c.ExperimentalCompactPromptFile)
	}
	c = mustLoad(t, file, config.Options{})
	if c.ModelInstructionsFile != "/top.md" {
		t.Errorf("no profile: %q", c.ModelInstructionsFile)
	}
}

// TestTUIAlternateScreen: [tui] alternate_screen is read (auto, always,
// never; another value is an error naming the key); Codex's other [tui]
// keys load with one warning for the table.
func TestTUIAlternateScreen(t *testing.T) {
	c := mustLoad(t, "[tui]\nnotifications = false\nanimations = true\nalternate_screen = \"never\"\n", config.Options{})
	if c.AlternateScreen != "never" {
		t.Errorf("AlternateScreen = %q, want never", c.AlternateScreen)
	}
	if got := warningKeys(c.Warnings); !slices.Equal(got, []string{"tui"}) {
		t.Errorf("warnings = %q, want one for tui", got)
	}
	if c = mustLoad(t, "model = \"m\"\n", config.Options{}); c.AlternateScreen != "auto" {
		t.Errorf("default AlternateScreen = %q, want auto", c.AlternateScreen)
	}
	home := writeHome(t, "[tui]\nalternate_screen = \"sometimes\"\n")
	if _, err := config.Load(config.Options{Home: home}); err == nil || !strings.Contains(err.Error(), "tui.alternate_screen") {
		t.Errorf("a bad value: %v, want an error naming tui.alternate_screen", err)
	}
}

// TestCodexNotice: the [notice] table Codex writes into config.toml loads
// without a warning; a key in it that Codex does not write warns, and a
// value of the wrong type is an error, as everywhere.
func TestCodexNotice(t *testing.T) {
	c := mustLoad(t, "[notice]\nhide_full_access_warning = true\nhide_rate_limit_model_nudge = true\n"+
		"\"hide_gpt-5.1-codex-max_migration_prompt\" = true\nfast_default_opt_out = false\n[notice.model_migrations]\n\"gpt-5\" = \"gpt-5.1\"\n", config.Options{})
	if len(c.Warnings) != 0 {
		t.Errorf("Codex's [notice] warned: %v", c.Warnings)
	}
	c = mustLoad(t, "[notice]\nhide_full_acess_warning = true\n", config.Options{})
	if got := warningKeys(c.Warnings); !slices.Equal(got, []string{"notice.hide_full_acess_warning"}) ||
		!strings.Contains(c.Warnings[0].String(), `did you mean "hide_full_access_warning"`) {
		t.Errorf("a misspelt [notice] key: warnings %v; want it named with the key meant", c.Warnings)
	}
	if _, err := config.Load(config.Options{Home: writeHome(t, "[notice]\nhide_full_access_warning = \"yes\"\n")}); err == nil || !strings.Contains(err.Error(), "notice.hide_full_access_warning") {
		t.Errorf("a string for a [notice] flag: %v; want an error naming it", err)
	}
}
