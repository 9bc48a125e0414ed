package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/agentcli/agent/internal/shellenv"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/provider/catalog"

	"github.com/agentcli/agent/internal/atomicfile"
)

// Defaults used when nothing sets the key.
const (
	DefaultModel              = "gpt-5.5"
	DefaultModelProvider      = "openai"
	DefaultApprovalPolicy     = "on-request"
	DefaultProjectDocMaxBytes = 32 * 1024
	DefaultHistoryPersistence = "save-all"
	// DefaultAuthTimeout and DefaultAuthRefreshInterval are the defaults
	// of [model_providers.<id>.auth].
	DefaultAuthTimeout         = 5 * time.Second
	DefaultAuthRefreshInterval = 5 * time.Minute
)

// Fallback is one alternative of a fallback chain: the model slug at a
// provider.
type Fallback struct {
	Provider string
	Model    string
}

// DefaultToolOutputTokenLimit is tool_output_token_limit when unset:
// Codex's budget for its GPT-5 models.
const DefaultToolOutputTokenLimit = 10000

// DefaultMaxConcurrentResends is [retry] max_concurrent_resends.
const DefaultMaxConcurrentResends = 3

// FileName is the name of the config file inside the agent home.
const FileName = "config.toml"

// Options says where to load configuration from and what the command line
// overrides. The zero value loads nothing but the defaults.
type Options struct {
	// Home is the directory holding config.toml ($AGENT_HOME). Empty means
	// no file is read. A missing file is not an error.
	Home string
	// Profile is --profile: the profile to apply, Home/NAME.config.toml
	// (Codex 0.169's profile files, layered over config.toml) and the
	// [profiles.NAME] tables. It wins over the file's top-level profile
	// key. Empty means use that key.
	Profile string
	// Overrides are the -c arguments, "dotted.key=value", applied in order.
	// The value is parsed as a TOML value; if that fails it is taken as a
	// literal string, so -c model=gpt-5 works unquoted.
	Overrides []string
	// Model is --model; when non-empty it wins over everything else.
	Model string
}

// SessionFlagsPath names the -c overrides as a layer, as Codex does (the
// source of their hooks' trust keys).
const SessionFlagsPath = "/<session-flags>/config.toml"

// HooksTable is one layer's inline [hooks] table as written.
type HooksTable struct {
	// Path is the file (config.toml, a profile file; SessionFlagsPath for
	// -c).
	Path  string
	Table map[string]any
}

// Config is the resolved configuration. It is a plain value; treat its maps
// and slices as read-only once shared.
type Config struct {
	// Path is the file that was read, or "" if there was none.
	Path string
	// Warnings are the Codex keys that were set and that agent ignores,
	// one per key, in the order found. The caller prints them.
	Warnings []Warning
	// Profile is the name of the profile applied, or "".
	Profile string
	// ProfilePath is the profile file read (Home/NAME.config.toml), or "".
	ProfilePath string
	// Hooks are the inline [hooks] tables of config.toml, the profile file
	// and -c, lowest precedence first.
	Hooks []HooksTable

	// Model is the model slug; [DefaultModel] when nothing sets it.
	Model string
	// ModelProvider is the id of the selected provider; [DefaultModelProvider]
	// when nothing sets it. It is always a key of Providers.
	ModelProvider string
	// Provider is a copy of Providers[ModelProvider].
	Provider provider.Info
	// Providers holds the built-in providers and those defined in
	// [model_providers], each with its effective retry policy.
	Providers map[string]provider.Info

	// ModelReasoningEffort is "" (model default) or none, minimal, low,
	// medium, high, xhigh or max.
	ModelReasoningEffort string
	// ModelReasoningSummary is "" or auto, concise, detailed or none.
	ModelReasoningSummary string
	// ModelVerbosity is "" or low, medium or high.
	ModelVerbosity string
	// ServiceTier is "" or a tier id such as "priority".
	ServiceTier string
	// ModelContextWindow overrides the model's context window; 0 = unset.
	ModelContextWindow int64
	// ModelAutoCompactTokenLimit triggers compaction; 0 = unset.
	ModelAutoCompactTokenLimit int64
	// CompactKeepToolCalls is how many of the latest tool calls a local
	// compaction keeps verbatim (compact_keep_tool_calls, agent's own
	// key); nil: the session's default, 5.
	CompactKeepToolCalls *int64
	// ToolOutputTokenLimit is the token budget of one tool output sent to
	// the model; [DefaultToolOutputTokenLimit] when unset, 0 = no limit.
	ToolOutputTokenLimit int64
	// Catalog is the model catalogue: the built-in snapshot, the file of
	// model_catalog_json (models.dev's api.json or Codex's catalogue) and
	// the [models."NAME"] tables over it. Context windows (automatic
	// compaction, the chat's context indicator) and prices come from it.
	Catalog *catalog.Catalog
	// MaxCostUSD is max_cost_usd: a run ends before a request that would
	// start with this much spent (agent exec --max-cost); 0 = no budget.
	MaxCostUSD float64
	// WebSearch is web_search: "cached" (the default, as Codex: the hosted
	// web_search tool without live access), "live" or "disabled".
	WebSearch string

	// ApprovalPolicy is untrusted, on-request, on-failure or never, or ""
	// when nothing sets it: the caller then derives it from the project's
	// trust (untrusted for an untrusted project, else
	// [DefaultApprovalPolicy]), as Codex does. Codex's granular table
	// becomes on-request when its sandbox_approval is true, else never.
	ApprovalPolicy string
	// SandboxMode is read-only, workspace-write or danger-full-access, or ""
	// when unset: the caller then derives it from the project's trust
	// (workspace-write when trusted, else read-only), as Codex does.
	SandboxMode string
	// SandboxWorkspaceWrite is [sandbox_workspace_write].
	SandboxWorkspaceWrite SandboxWorkspaceWrite

	// Features is [features].
	Features Features
	// Goals is [goals].
	Goals Goals
	// Agents is [agents]: the subagents' limits and declared roles.
	Agents Agents
	// Retry is the global per-class retry policy: [provider.DefaultRetry]
	// overlaid by [retry.<class>]. Each provider's Info.Retry already
	// includes it.
	Retry map[string]provider.ClassPolicy
	// Fallback is the chain of alternatives a turn moves to when the
	// provider fails for good (fallback = [{ provider, model }, ...]), the
	// profile's when it sets one; empty: none.
	Fallback []Fallback
	// MaxConcurrentResends is [retry] max_concurrent_resends: at most this
	// many re-sends of failed requests are in flight at once per provider,
	// across every agent process sharing AGENT_HOME; 0 means the default.
	MaxConcurrentResends int
	// AutoContinue is the selected provider's effective [auto_continue]
	// policy: the global table overlaid by the provider's own.
	AutoContinue AutoContinue

	// Instructions, DeveloperInstructions, ModelInstructionsFile,
	// CompactPrompt and ExperimentalCompactPromptFile are the Codex keys of
	// the same names; "" = unset. ModelInstructionsFile also takes the
	// legacy experimental_instructions_file when it is not set itself.
	Instructions                  string
	DeveloperInstructions         string
	ModelInstructionsFile         string
	CompactPrompt                 string
	ExperimentalCompactPromptFile string
	// ProjectDocMaxBytes caps the AGENTS.md bytes read;
	// [DefaultProjectDocMaxBytes] by default.
	ProjectDocMaxBytes int64
	// ProjectDocFallbackFilenames are read when AGENTS.md is absent.
	ProjectDocFallbackFilenames []string
	// ProjectRootMarkers mark a project root; [".git"] by default.
	ProjectRootMarkers []string

	// CLIAuthCredentialsStore is "" or file, keyring, auto or ephemeral.
	CLIAuthCredentialsStore string
	// ForcedLoginMethod is "" or chatgpt or api.
	ForcedLoginMethod string
	// ForcedChatGPTWorkspaceID is "" or a workspace id.
	ForcedChatGPTWorkspaceID string
	// ChatGPTBaseURL is "" or the ChatGPT backend URL. (openai_base_url is
	// applied to Providers["openai"].BaseURL instead of being kept.)
	ChatGPTBaseURL string
	// CACertificate is a PEM file of extra root certificates trusted for
	// both HTTPS and WebSocket connections ("" = system roots, plus
	// SSL_CERT_FILE as the Go runtime reads it).
	CACertificate string
	// SandboxFallback is what to do where the kernel cannot enforce a
	// restricted sandbox mode (no Landlock, no namespaces): "refuse" (the
	// default: commands are refused, and the model and the user are told)
	// or "best-effort" (run with whatever the kernel can enforce).
	SandboxFallback string
	// AuthIssuer is the OAuth issuer of ChatGPT logins; "" means
	// https://auth.openai.com. AGENT_AUTH_ISSUER overrides it.
	AuthIssuer string
	// AuthTokenURL is the token endpoint; "" means AuthIssuer +
	// "/oauth/token". AGENT_REFRESH_TOKEN_URL overrides it.
	AuthTokenURL string
	// AuthClientID is the OAuth client id; "" means the Codex CLI's public
	// client id.
	AuthClientID string
	// AuthCommands holds each provider's [model_providers.<id>.auth], by
	// provider id; a provider without one has no entry.
	AuthCommands map[string]AuthCommand

	// History is [history].
	History History
	// Skills is [skills].
	Skills Skills
	// AlternateScreen is [tui] alternate_screen, as in Codex: auto (the
	// default: the alternate screen, except in Zellij), always or never
	// (the chat runs inline and the terminal keeps its scrollback).
	AlternateScreen string
	// Theme is [tui] theme, as in Codex: the name of the chat's colour
	// theme (/theme writes it); "" is the default.
	Theme string
	// VimModeDefault is [tui] vim_mode_default, as in Codex: the
	// composer starts in Vim's normal mode (/vim toggles it).
	VimModeDefault bool
	// Keymap is [tui.keymap], Codex's keymap: the keys of the chat's
	// actions, by context; nil: the defaults.
	Keymap Keymap
	// Projects maps an absolute project path to its [projects."<path>"].
	Projects map[string]Project
	// Notify is the notification command and its arguments.
	Notify []string
	// HideAgentReasoning hides the model's reasoning in exec and the chat.
	HideAgentReasoning bool

	// Proxy is [proxy], the settings of `agent proxy`.
	Proxy Proxy
	// Otel is [otel]: telemetry over OTLP; nothing is sent by default.
	Otel Otel

	// MCPServers holds every [mcp_servers.<name>] table by name, enabled
	// or not.
	MCPServers map[string]MCPServer

	// ShellEnvironmentPolicy is [shell_environment_policy]: the
	// environment of the model's commands.
	ShellEnvironmentPolicy shellenv.Policy
}

// AuthCommand is a [model_providers.<id>.auth] table: a command whose
// standard output, trimmed, is the provider's bearer token.
type AuthCommand struct {
	// Command is the program to run (required).
	Command string
	// Args are its arguments.
	Args []string
	// Timeout bounds one run; [DefaultAuthTimeout] by default.
	Timeout time.Duration
	// RefreshInterval is how long a token is reused before the command
	// runs again; [DefaultAuthRefreshInterval] by default. A 401 reruns it
	// at once.
	RefreshInterval time.Duration
	// Cwd is the working directory; "" = the current one.
	Cwd string
}

// Features is the [features] table.
type Features struct {
	// UnboundedConnectionRetries keeps reconnecting, without a retry limit,
	// while the network is down. True by default.
	UnboundedConnectionRetries bool
	// Goals offers goals (/goal, the model's goal tools), as Codex's
	// [features] goals. True by default.
	Goals bool
}

// Goals is the [goals] table: the bounds of a goal; 0 takes agent's
// default (session.DefaultGoalTokens, DefaultGoalTurns,
// DefaultGoalWallTime). None is unbounded.
type Goals struct {
	// MaxGoalTokenBudget is Codex's max_goal_token_budget: the most
	// tokens a goal may have (and its budget when none is asked for).
	MaxGoalTokenBudget int64
	// MaxGoalTurns bounds a goal's continuation turns.
	MaxGoalTurns int64
	// MaxGoalWallTimeSeconds bounds the wall time spent pursuing it.
	MaxGoalWallTimeSeconds int64
}

// SandboxWorkspaceWrite is the [sandbox_workspace_write] table.
type SandboxWorkspaceWrite struct {
	// WritableRoots are writable besides the workspace.
	WritableRoots []string
	// NetworkAccess allows network access inside the sandbox.
	NetworkAccess bool
	// ExcludeTmpdirEnvVar and ExcludeSlashTmp make $TMPDIR and /tmp
	// read-only.
	ExcludeTmpdirEnvVar bool
	ExcludeSlashTmp     bool
}

// History is the [history] table.
type History struct {
	// Persistence is save-all ([DefaultHistoryPersistence]) or none.
	Persistence string
	// MaxBytes caps history.jsonl; 0 = no cap.
	MaxBytes int64
}

// Project is one [projects."<path>"] table.
type Project struct {
	// TrustLevel is trusted or untrusted.
	TrustLevel string
}

// AutoContinue is the turn-continuation policy (seed 004): when a turn
// outlasts every retry budget, wait per Delays and continue it over its
// recorded history with Prompt.
type AutoContinue struct {
	Enabled bool
	Delays  []time.Duration
	// Prompt is the continuation prompt; "" means the built-in one.
	Prompt string
}

// DefaultAutoContinue returns the defaults: enabled, 10 s, 20 s, 60 s.
func DefaultAutoContinue() AutoContinue {
	return AutoContinue{Enabled: true, Delays: []time.Duration{10 * time.Second, 20 * time.Second, time.Minute}}
}

func (a *AutoContinue) overlay(f *autoContinueFile) {
	if f == nil {
		return
	}
	set(&a.Enabled, f.Enabled)
	set(&a.Prompt, f.Prompt)
	if f.DelaysMS != nil {
		a.Delays = nil
		for _, ms := range *f.DelaysMS {
			a.Delays = append(a.Delays, millis(ms))
		}
	}
}

// Default returns the configuration used when there is no config file and
// no flag: the built-in providers with openai selected, and every default
// documented on [Config].
func Default() Config {
	provs := provider.Builtins()
	return Config{
		Model:                DefaultModel,
		Catalog:              catalog.Builtin(),
		ModelProvider:        DefaultModelProvider,
		Provider:             provs[DefaultModelProvider].Clone(),
		Providers:            provs,
		Features:             Features{UnboundedConnectionRetries: true, Goals: true},
		Agents:               defaultAgents(),
		Retry:                provider.DefaultRetry(),
		AutoContinue:         DefaultAutoContinue(),
		SandboxFallback:      "refuse",
		ToolOutputTokenLimit: DefaultToolOutputTokenLimit,
		WebSearch:            "cached",
		ProjectDocMaxBytes:   DefaultProjectDocMaxBytes,
		ProjectRootMarkers:   []string{".git"},
		History:              History{Persistence: DefaultHistoryPersistence},
		Skills:               Skills{IncludeInstructions: true, Bundled: true},
		AlternateScreen:      "auto",
		Proxy:                defaultProxy(),
		Otel:                 Otel{Environment: DefaultOtelEnvironment},
		Projects:             map[string]Project{},
		MCPServers:           map[string]MCPServer{},
		AuthCommands:         map[string]AuthCommand{},
	}
}

// Load reads opts.Home/config.toml, if it exists, and applies opts on top.
// It reports every problem it finds: each is an [*Error] (several are
// joined with [errors.Join]). Failing to read an existing file returns the
// [*fs.PathError]. On error the returned Config is the zero value.
func Load(opts Options) (Config, error) {
	if opts.Home == "" {
		return load("", nil, opts)
	}
	path := filepath.Join(opts.Home, FileName)
	data, err := atomicfile.ReadOwn(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return load("", nil, opts)
	case err != nil:
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return load(path, data, opts)
}

// layer is one decoded source of configuration.
type layer struct {
	src *source
	f   fileConfig
	// profile names the profile this layer is the file of, "" for others.
	profile string
	// baseURLGiven holds the custom providers whose base_url this layer
	// sets: true when set to something, valid or not (validation clears a
	// bad one), false when set empty, which is no base_url at all.
	baseURLGiven map[string]bool
}

// load is [Load] for the file text data read from path ("" if none).
func load(path string, data []byte, opts Options) (Config, error) {
	var probs problems
	var warns warnings
	file := layer{src: &source{path: path}}
	if path != "" {
		src, t, err := parseFile(path, data)
		if err != nil {
			return Config{}, err
		}
		file.src = src
		file.decode(t, &probs, &warns)
	}
	layers := []layer{file}
	pl, err := loadProfileFile(opts, file.f.Profile, &probs, &warns)
	if err != nil {
		return Config{}, err
	}
	if pl != nil {
		layers = append(layers, *pl)
	}
	for _, arg := range opts.Overrides {
		src, t, err := parseOverride(arg)
		if err != nil {
			probs.addError(err)
			continue
		}
		l := layer{src: src}
		l.decode(t, &probs, &warns)
		layers = append(layers, l)
	}
	c := resolve(layers, opts, &probs)
	if pl != nil {
		c.ProfilePath = pl.src.path
	}
	for _, l := range layers {
		if l.f.Hooks == nil {
			continue
		}
		path := l.src.path
		if path == "" {
			path = SessionFlagsPath
		}
		c.Hooks = append(c.Hooks, HooksTable{Path: path, Table: l.f.Hooks})
	}
	if err := probs.err(); err != nil {
		return Config{}, err
	}
	c.Warnings = warns.sorted()
	return c, nil
}

// parseFile parses the text of the config file, or returns a syntax error.
func parseFile(path string, data []byte) (*source, map[string]any, error) {
	if err := checkBounds(path, string(data)); err != nil {
		return nil, nil, err
	}
	var t map[string]any
	md, err := toml.Decode(string(data), &t)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			key := pe.LastKey
			if strings.ContainsFunc(key, func(r rune) bool { return !unicode.IsPrint(r) }) {
				key = strconv.Quote(key) // the parser leaves the last part raw
			}
			return nil, nil, &Error{
				Path: path,
				Line: pe.Position.Line,
				Key:  key,
				Msg:  "syntax error: " + oneLine(pe.Message),
			}
		}
		return nil, nil, fmt.Errorf("config: %s: %w", path, err)
	}
	return &source{path: path, data: string(data), keys: md.Keys()}, t, nil
}

// decode fills l.f from the parsed tree t and validates it.
func (l *layer) decode(t map[string]any, probs *problems, warns *warnings) {
	d := decoder{src: l.src, probs: probs, warns: warns}
	d.decode(nil, t, reflect.ValueOf(&l.f).Elem())
	l.baseURLGiven = map[string]bool{}
	for id, p := range l.f.ModelProviders {
		if p.BaseURL != nil {
			l.baseURLGiven[id] = *p.BaseURL != ""
		}
	}
	validate(l, probs, warns)
}

// oneLine keeps a parser message to one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
