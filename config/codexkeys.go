package config

import (
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// This file lists the keys of Codex's config.toml that agent accepts but
// does not use. A Codex config loads unchanged: each such key gives one
// [Warning] per run instead of an error, and a key in nobody's schema is
// still an unknown key. The list is Codex CLI 0.169's ConfigToml
// (codex-rs/core/config.schema.json) plus the legacy keys its example
// configs still carry (config/testdata/codex/example-config.toml).

// codexIgnoredKeys are dotted key patterns in which "*" stands for a name
// the user chooses (a profile, a provider id). A pattern naming a table
// covers everything below it with its one warning.
func codexIgnoredKeys() []string {
	top := []string{
		"allow_login_shell", "analytics", "approvals_reviewer", "apps",
		"apps_mcp_product_sku", "audio", "auto_review", "background_terminal_max_timeout",
		"check_for_update_on_startup", "commit_attribution", "debug", "default_permissions",
		"desktop", "disable_paste_burst", "experimental_realtime_start_instructions",
		"experimental_realtime_ws_backend_prompt", "experimental_realtime_ws_base_url",
		"experimental_realtime_ws_model", "experimental_realtime_ws_startup_context",
		"experimental_thread_config_endpoint", "experimental_thread_store",
		"experimental_use_unified_exec_tool", "feedback", "file_opener", "ghost_snapshot",
		"include_apps_instructions", "include_collaboration_mode_instructions",
		"include_environment_context", "include_environment_context_time", "include_permissions_instructions", "log_dir",
		"marketplaces", "mcp_oauth_callback_port", "mcp_oauth_callback_url",
		"mcp_oauth_credentials_store", "memories", "model_auto_compact_token_limit_scope",
		"model_supports_reasoning_summaries", "oss_provider",
		"permissions", "personality", "plan_mode_reasoning_effort", "plugins",
		"realtime", "review_model", "show_raw_agent_reasoning", "sqlite_home",
		"suppress_unstable_features_warning", "tool_suggest",
		"tools", "windows", // and [tui]'s keys but alternate_screen (decode.go)
		// Legacy keys of earlier Codex releases, still in example configs.
		"disable_response_storage", "model_reasoning_summary_format",
		"experimental_use_freeform_apply_patch", "experimental_use_exec_command_tool",
		"experimental_use_rmcp_client", "include_apply_patch_tool", "include_plan_tool",
		"include_view_image_tool", "model_max_output_tokens", "preferred_auth_method",
		"windows_wsl_setup_acknowledged", "tools_web_search", "tools_view_image",
	}
	profile := []string{
		"analytics", "approvals_reviewer", "experimental_use_unified_exec_tool", "features", "include_apps_instructions",
		"include_collaboration_mode_instructions", "include_environment_context",
		"include_permissions_instructions", "model_catalog_json", "oss_provider", "personality", "plan_mode_reasoning_effort", "tools", "tui",
		"web_search", "windows",
		"include_apply_patch_tool", "experimental_use_freeform_apply_patch", "tools_web_search",
		"tools_view_image", "model_reasoning_summary_format", "model_supports_reasoning_summaries", "disable_response_storage",
	}
	keys := slices.Clone(top)
	for _, k := range otelCodexKeys() {
		keys = append(keys, "otel."+k)
	}
	// Codex's example config sets file_opener after [history], so inside it.
	keys = append(keys, "history.file_opener")
	for _, k := range profile {
		keys = append(keys, "profiles.*."+k)
	}
	for _, k := range []string{"experimental_bearer_token", "aws", "gateway_oauth", "model_catalog_url",
		"supports_standalone_web_search", "supports_remote_compaction"} {
		keys = append(keys, "model_providers.*."+k)
	}
	// (An inline bearer_token is refused, as Codex refuses it.)
	for _, k := range []string{"required", "scopes", "oauth_resource",
		"oauth", "auth", "output_token_limit", "startup_readiness", "tool_input_schema_max_bytes",
		"http_headers_helper", "environment_id", "experimental_environment"} {
		keys = append(keys, "mcp_servers.*."+k)
	}
	return keys
}

// codexFeatures are the [features] keys of Codex 0.169 and its legacy
// aliases. Agent reads none of them (its own are the fields of featuresFile): each
// loads with a warning; any other feature name is an unknown key.
func codexFeatures() []string {
	return []string{
		"apply_patch_freeform", "apply_patch_streaming_events", "apps", "apps_mcp_path_override",
		"auth_elicitation", "browser_use", "browser_use_external", "child_agents_md", "chronicle",
		"code_mode", "code_mode_only", "codex_git_commit", "codex_hooks", "collab",
		"collaboration_modes", "computer_use", "connectors", "default_mode_request_user_input",
		"elevated_windows_sandbox", "enable_experimental_windows_sandbox", "enable_fanout",
		"enable_mcp_apps", "enable_request_compression", "exec_permission_approvals",
		"experimental_use_unified_exec_tool", "experimental_windows_sandbox", "external_migration",
		"fast_mode", "guardian_approval", "hooks", "image_detail_original",
		"image_generation", "imagegenext", "in_app_browser", "js_repl", "js_repl_tools_only",
		"local_thread_store_compression", "memories", "memory_tool", "mentions_v2", "multi_agent",
		"multi_agent_v2", "network_proxy", "non_prefixed_mcp_tool_names", "personality",
		"plugin_hooks", "plugin_sharing", "plugins", "prevent_idle_sleep", "realtime_conversation",
		"remote_compaction_v2", "remote_control", "remote_models", "remote_plugin",
		"request_permissions", "request_permissions_tool", "request_rule",
		"responses_websocket_response_processed", "responses_websockets", "responses_websockets_v2",
		"runtime_metrics", "search_tool", "shell_snapshot", "shell_tool", "shell_zsh_fork",
		"skill_env_var_dependency_prompt", "skill_mcp_dependency_install", "sqlite",
		"standalone_web_search", "steer", "telepathy", "terminal_resize_reflow",
		"tool_call_mcp_elicitation", "tool_search", "tool_search_always_defer_mcp_tools",
		"tool_suggest", "tui_app_server", "unavailable_dummy_tools", "undo", "unified_exec",
		"unified_exec_zsh_fork", "use_legacy_landlock", "use_linux_sandbox_bwrap", "web_search",
		"web_search_cached", "web_search_request", "workspace_dependencies",
		"workspace_owner_usage_nudge",
		// Legacy feature names of earlier releases (example configs).
		"rmcp_client", "view_image_tool", "skills", "experimental_use_freeform_apply_patch",
		"streamable_shell", "ghost_commit", "exec_policy", "artifact",
	}
}

// Warning is a Codex key that agent accepts and ignores. [Load] returns
// one per key and run; the caller prints them.
type Warning struct {
	// Path and Line locate the key in the config file (Line 0 when
	// unknown); both are empty for a -c override, which Override names.
	Path     string
	Line     int
	Override string
	// Key is the dotted key, quoted as in TOML where needed.
	Key string
	// Msg says why the key is ignored.
	Msg string
}

// String formats w as one line, "path:line: key: msg".
func (w Warning) String() string {
	e := Error(w)
	return e.Error()
}

// ignoredMsg is the message of a warning about a Codex key.
const ignoredMsg = "Codex setting that agent ignores"

// codexIgnored reports whether path is a Codex key that agent ignores.
func codexIgnored(path []string) bool {
	if len(path) == 2 && path[0] == "features" {
		return slices.Contains(codexFeatures(), path[1])
	}
	return slices.ContainsFunc(codexIgnoredKeys(), func(p string) bool {
		return matchPattern(strings.Split(p, "."), path)
	})
}

// matchPattern reports whether path is exactly the key pattern, where "*"
// matches any one part.
func matchPattern(pattern, path []string) bool {
	if len(pattern) != len(path) {
		return false
	}
	for i := range pattern {
		if pattern[i] != "*" && pattern[i] != path[i] {
			return false
		}
	}
	return true
}

// codexHint suggests the nearest key, agent's or Codex's, for an unknown
// key k among the siblings at path.
func codexHint(path []string, k string, fields []field) string {
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		names = append(names, f.name)
	}
	for _, p := range codexIgnoredKeys() {
		parts := strings.Split(p, ".")
		if len(parts) == len(path)+1 && matchPattern(parts[:len(path)], path) {
			names = append(names, parts[len(path)])
		}
	}
	return hintNames(k, names)
}

// warnings collects the warnings of one Load, one per key.
type warnings struct {
	list []Warning
	seen map[string]bool
}

// add records a warning for the key at path in src, unless that key was
// already warned about.
func (w *warnings) add(src *source, path []string, msg string) {
	key := toml.Key(path).String()
	if w.seen[key] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[key] = true
	e := src.errorAt(path, msg)
	w.list = append(w.list, Warning(*e))
}

// sorted returns the warnings in the order of the file's lines, then the
// overrides' in command-line order.
func (w *warnings) sorted() []Warning {
	out := slices.Clone(w.list)
	slices.SortStableFunc(out, func(a, b Warning) int { return byPlace((*Error)(&a), (*Error)(&b)) })
	return out
}
