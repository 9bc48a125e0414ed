package config

// This file declares the on-disk shape of config.toml. Every field is a
// pointer, slice or map so that "absent" and "explicitly zero" differ: an
// absent key keeps the value below it, a present one overwrites it. The
// decoder in decode.go walks these types by their toml tags; a key with no
// field is an unknown key. Map-typed fields take arbitrary keys (provider
// ids, profile names); fields of type any or map[string]any accept any
// content and are kept only so Codex configs load.

// fileConfig is one layer of configuration: config.toml itself, or one -c
// override.
type fileConfig struct {
	Model                      *string  `toml:"model"`
	ModelProvider              *string  `toml:"model_provider"`
	ModelReasoningEffort       *string  `toml:"model_reasoning_effort"`
	ModelReasoningSummary      *string  `toml:"model_reasoning_summary"`
	ModelVerbosity             *string  `toml:"model_verbosity"`
	ServiceTier                *string  `toml:"service_tier"`
	ModelContextWindow         *int64   `toml:"model_context_window"`
	ModelAutoCompactTokenLimit *int64   `toml:"model_auto_compact_token_limit"`
	CompactKeepToolCalls       *int64   `toml:"compact_keep_tool_calls"`
	ToolOutputTokenLimit       *int64   `toml:"tool_output_token_limit"`
	WebSearch                  *string  `toml:"web_search"`
	ModelCatalogJSON           *string  `toml:"model_catalog_json"`
	MaxCostUSD                 *float64 `toml:"max_cost_usd"`
	// ApprovalPolicy is a string or Codex's { granular = { ... } }
	// table; validate turns it into approval.
	ApprovalPolicy any     `toml:"approval_policy"`
	approval       *string // the policy agent applies
	SandboxMode    *string `toml:"sandbox_mode"`
	Profile        *string `toml:"profile"`

	SandboxWorkspaceWrite *sandboxFile `toml:"sandbox_workspace_write"`

	Instructions                  *string   `toml:"instructions"`
	DeveloperInstructions         *string   `toml:"developer_instructions"`
	ModelInstructionsFile         *string   `toml:"model_instructions_file"`
	ExperimentalInstructionsFile  *string   `toml:"experimental_instructions_file"`
	CompactPrompt                 *string   `toml:"compact_prompt"`
	ExperimentalCompactPromptFile *string   `toml:"experimental_compact_prompt_file"`
	ProjectDocMaxBytes            *int64    `toml:"project_doc_max_bytes"`
	ProjectDocFallbackFilenames   *[]string `toml:"project_doc_fallback_filenames"`
	ProjectRootMarkers            *[]string `toml:"project_root_markers"`

	CLIAuthCredentialsStore  *string `toml:"cli_auth_credentials_store"`
	ForcedLoginMethod        *string `toml:"forced_login_method"`
	ForcedChatGPTWorkspaceID *string `toml:"forced_chatgpt_workspace_id"`
	OpenAIBaseURL            *string `toml:"openai_base_url"`
	ChatGPTBaseURL           *string `toml:"chatgpt_base_url"`
	CACertificate            *string `toml:"ca_certificate"`
	SandboxFallback          *string `toml:"sandbox_fallback"`
	AuthIssuer               *string `toml:"auth_issuer"`
	AuthTokenURL             *string `toml:"auth_token_url"`
	AuthClientID             *string `toml:"auth_client_id"`

	History            *historyFile           `toml:"history"`
	Skills             *skillsFile            `toml:"skills"`
	TUI                *tuiFile               `toml:"tui"`
	Notice             *noticeFile            `toml:"notice"`
	Projects           map[string]projectFile `toml:"projects"`
	Notify             *[]string              `toml:"notify"`
	HideAgentReasoning *bool                  `toml:"hide_agent_reasoning"`

	MCPServers map[string]mcpServerFile `toml:"mcp_servers"`

	// Models is [models."NAME"], laid over the model catalogue (models.go).
	Models map[string]modelFile `toml:"models"`

	// Hooks is Codex's inline [hooks] table (events and [hooks.state]),
	// read by session/hooks as it is.
	Hooks map[string]any `toml:"hooks"`

	ShellEnvironmentPolicy *shellEnvFile `toml:"shell_environment_policy"`

	Agents         *agentsFile             `toml:"agents"`
	Features       *featuresFile           `toml:"features"`
	Goals          *goalsFile              `toml:"goals"`
	Retry          *topRetryFile           `toml:"retry"`
	AutoContinue   *autoContinueFile       `toml:"auto_continue"`
	Proxy          *proxyFile              `toml:"proxy"`
	Otel           *otelFile               `toml:"otel"`
	ModelProviders map[string]providerFile `toml:"model_providers"`
	Profiles       map[string]profileFile  `toml:"profiles"`
	Fallback       *[]fallbackFile         `toml:"fallback"`
}

// sandboxFile is [sandbox_workspace_write].
type sandboxFile struct {
	WritableRoots       *[]string `toml:"writable_roots"`
	NetworkAccess       *bool     `toml:"network_access"`
	ExcludeTmpdirEnvVar *bool     `toml:"exclude_tmpdir_env_var"`
	ExcludeSlashTmp     *bool     `toml:"exclude_slash_tmp"`
}

// shellEnvFile is [shell_environment_policy].
type shellEnvFile struct {
	Inherit                *string           `toml:"inherit"`
	IgnoreDefaultExcludes  *bool             `toml:"ignore_default_excludes"`
	Exclude                *[]string         `toml:"exclude"`
	Set                    map[string]string `toml:"set"`
	IncludeOnly            *[]string         `toml:"include_only"`
	ExperimentalUseProfile *bool             `toml:"experimental_use_profile"` // accepted, not interpreted
}

// historyFile is [history].
type historyFile struct {
	Persistence *string `toml:"persistence"`
	MaxBytes    *int64  `toml:"max_bytes"`
}

// tuiFile is [tui]: agent reads alternate_screen, theme,
// vim_mode_default and keymap; Codex's other keys there load with one
// warning for the table (decode.go).
type tuiFile struct {
	AlternateScreen *string        `toml:"alternate_screen"`
	Theme           *string        `toml:"theme"`
	VimModeDefault  *bool          `toml:"vim_mode_default"`
	Keymap          map[string]any `toml:"keymap"`
	// keys is Keymap as validation read it (keymap.go).
	keys Keymap
}

// noticeFile is Codex's [notice]: the prompts and warnings Codex's own
// screens were told not to show again, which Codex writes itself. agent
// shows none of those screens, so the keys load without a warning (a
// Codex user's config would warn on every run otherwise); any other key
// in the table warns (decode.go): a later Codex may add one.
type noticeFile struct {
	HideFullAccessWarning            *bool             `toml:"hide_full_access_warning"`
	HideWorldWritableWarning         *bool             `toml:"hide_world_writable_warning"`
	HideRateLimitModelNudge          *bool             `toml:"hide_rate_limit_model_nudge"`
	HideGPT51MigrationPrompt         *bool             `toml:"hide_gpt5_1_migration_prompt"`
	HideGPT51CodexMaxMigrationPrompt *bool             `toml:"hide_gpt-5.1-codex-max_migration_prompt"`
	FastDefaultOptOut                *bool             `toml:"fast_default_opt_out"`
	ModelMigrations                  map[string]string `toml:"model_migrations"`
	ExternalConfigMigrationPrompts   map[string]any    `toml:"external_config_migration_prompts"`
}

// projectFile is [projects."<path>"].
type projectFile struct {
	TrustLevel *string `toml:"trust_level"`
}

// fallbackFile is one entry of a fallback chain:
// fallback = [{ provider = "azure", model = "gpt-5.5" }, ...].
type fallbackFile struct {
	Provider *string `toml:"provider"`
	Model    *string `toml:"model"`
}

// profileFile is [profiles.<name>].
type profileFile struct {
	Fallback              *[]fallbackFile `toml:"fallback"`
	Model                 *string         `toml:"model"`
	ModelProvider         *string         `toml:"model_provider"`
	ModelReasoningEffort  *string         `toml:"model_reasoning_effort"`
	ModelReasoningSummary *string         `toml:"model_reasoning_summary"`
	ApprovalPolicy        any             `toml:"approval_policy"`
	approval              *string         // the policy agent applies
	SandboxMode           *string         `toml:"sandbox_mode"`
	ModelVerbosity        *string         `toml:"model_verbosity"`
	ServiceTier           *string         `toml:"service_tier"`

	ModelInstructionsFile         *string `toml:"model_instructions_file"`
	ExperimentalInstructionsFile  *string `toml:"experimental_instructions_file"`
	ExperimentalCompactPromptFile *string `toml:"experimental_compact_prompt_file"`
	ChatGPTBaseURL                *string `toml:"chatgpt_base_url"`
}

// featuresFile is [features]. Codex's feature names load with a warning
// (codexkeys.go); any other name is an unknown key.
type featuresFile struct {
	UnboundedConnectionRetries *bool `toml:"unbounded_connection_retries"`
	Goals                      *bool `toml:"goals"`
}

// goalsFile is [goals]: Codex's max_goal_token_budget and agent's bounds
// of turns and wall time.
type goalsFile struct {
	MaxGoalTokenBudget     *int64 `toml:"max_goal_token_budget"`
	MaxGoalTurns           *int64 `toml:"max_goal_turns"`
	MaxGoalWallTimeSeconds *int64 `toml:"max_goal_wall_time_seconds"`
}

// providerFile is [model_providers.<id>].
type providerFile struct {
	Name                      *string           `toml:"name"`
	BaseURL                   *string           `toml:"base_url"`
	EnvKey                    *string           `toml:"env_key"`
	EnvKeyInstructions        *string           `toml:"env_key_instructions"`
	WireAPI                   *string           `toml:"wire_api"`
	QueryParams               map[string]string `toml:"query_params"`
	HTTPHeaders               map[string]string `toml:"http_headers"`
	EnvHTTPHeaders            map[string]string `toml:"env_http_headers"`
	RequestMaxRetries         *int64            `toml:"request_max_retries"`
	StreamMaxRetries          *int64            `toml:"stream_max_retries"`
	StreamIdleTimeoutMS       *int64            `toml:"stream_idle_timeout_ms"`
	StreamProgressTimeoutMS   *int64            `toml:"stream_progress_timeout_ms"`
	StreamMaxEventBytes       *int64            `toml:"stream_max_event_bytes"`
	Transport                 *string           `toml:"transport"`
	WebSocketConnectTimeoutMS *int64            `toml:"websocket_connect_timeout_ms"`
	ConnectionMaxWaitMS       *int64            `toml:"connection_max_wait_ms"`
	SupportsWebSockets        *bool             `toml:"supports_websockets"`
	RequiresOpenAIAuth        *bool             `toml:"requires_openai_auth"`
	Retry                     *retryFile        `toml:"retry"`
	AutoContinue              *autoContinueFile `toml:"auto_continue"`
	Auth                      *providerAuthFile `toml:"auth"`
}

// providerAuthFile is [model_providers.<id>.auth]: a command printing the
// bearer token.
type providerAuthFile struct {
	Command           *string   `toml:"command"`
	Args              *[]string `toml:"args"`
	TimeoutMS         *int64    `toml:"timeout_ms"`
	RefreshIntervalMS *int64    `toml:"refresh_interval_ms"`
	Cwd               *string   `toml:"cwd"`
}

// retryFile is a [retry] or [model_providers.<id>.retry] table: one
// sub-table per retry class, so an unknown class is an unknown key.
type retryFile struct {
	Transport   *classFile      `toml:"transport"`
	ServerError *classFile      `toml:"server_error"`
	RateLimit   *classFile      `toml:"rate_limit"`
	Overloaded  *overloadedFile `toml:"overloaded"`
	Idle        *classFile      `toml:"idle"`
}

// topRetryFile is the top-level [retry] table: the class tables, plus
// what only the machine-wide retry gate takes.
type topRetryFile struct {
	retryFile
	// MaxConcurrentResends is max_concurrent_resends: re-sends in flight
	// at once per provider, across every agent process sharing AGENT_HOME.
	MaxConcurrentResends *int64 `toml:"max_concurrent_resends"`
	// MaxWaitMS is max_wait_ms: how long a failure that does not clear
	// is retried, every layer and continuation together (0: no bound).
	MaxWaitMS *int64 `toml:"max_wait_ms"`
}

// classes returns the class tables of the top-level [retry], or nil.
func (r *topRetryFile) classes() *retryFile {
	if r == nil {
		return nil
	}
	return &r.retryFile
}

// autoContinueFile is [auto_continue] or [model_providers.<id>.auto_continue].
type autoContinueFile struct {
	Enabled  *bool    `toml:"enabled"`
	DelaysMS *[]int64 `toml:"delays_ms"`
	Prompt   *string  `toml:"prompt"`
}

// classFile is the policy of one retry class.
type classFile struct {
	MaxRetries  *int64   `toml:"max_retries"`
	BaseDelayMS *int64   `toml:"base_delay_ms"`
	MaxDelayMS  *int64   `toml:"max_delay_ms"`
	Jitter      *float64 `toml:"jitter"`
}

// overloadedFile is the overloaded class, which may also carry a fixed
// schedule.
type overloadedFile struct {
	classFile
	DelaysMS *[]int64 `toml:"delays_ms"`
}
