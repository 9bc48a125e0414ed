package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentcli/agent/internal/shellenv"
	"github.com/agentcli/agent/provider"
)

// location is where a key was set: a source and the key's path in it.
type location struct {
	src  *source
	path []string
}

// resolve layers the decoded sources (the file first, then each -c
// override) over [Default], applies the selected profile and opts.Model,
// and reports the problems that only show once layers combine.
func resolve(layers []layer, opts Options, probs *problems) Config {
	c := Default()
	c.Path = layers[0].src.path

	var mp location // where model_provider was last set
	c.applyModel(layers[0].f.topModel(), location{layers[0].src, nil}, &mp)
	c.applyProfile(layers, opts, probs, &mp)
	for _, l := range layers[1:] {
		c.applyModel(l.f.topModel(), location{l.src, nil}, &mp)
	}
	if opts.Model != "" {
		c.Model = opts.Model
	}
	for _, l := range layers {
		c.applyRest(&l.f)
		c.applyAgents(l.f.Agents, filepath.Dir(l.src.path))
		c.applySkills(l, probs)
	}
	c.resolveProviders(layers, probs)
	c.resolveMCP(layers, probs)
	c.resolveModels(layers, probs)

	info, ok := c.Providers[c.ModelProvider]
	if !ok {
		probs.add(mp.src, at(mp.path, "model_provider"), "unknown model provider %q (known: %s)",
			c.ModelProvider, strings.Join(sortedKeys(c.Providers), ", "))
		return c
	}
	c.Provider = info.Clone()
	c.checkFallback(fallbackAt(layers, c.Profile), probs)
	for _, l := range layers {
		c.AutoContinue.overlay(l.f.AutoContinue)
	}
	for _, l := range layers {
		if pf, ok := l.f.ModelProviders[c.ModelProvider]; ok {
			c.AutoContinue.overlay(pf.AutoContinue)
		}
	}
	return c
}

// topModel returns the top-level keys of f that a profile may also set.
func (f *fileConfig) topModel() profileFile {
	return profileFile{
		Model:                 f.Model,
		ModelProvider:         f.ModelProvider,
		ModelReasoningEffort:  f.ModelReasoningEffort,
		ModelReasoningSummary: f.ModelReasoningSummary,
		approval:              f.approval,
		SandboxMode:           f.SandboxMode,
		ModelVerbosity:        f.ModelVerbosity,
		ServiceTier:           f.ServiceTier,
		Fallback:              f.Fallback,

		ModelInstructionsFile:         f.ModelInstructionsFile,
		ExperimentalInstructionsFile:  f.ExperimentalInstructionsFile,
		ExperimentalCompactPromptFile: f.ExperimentalCompactPromptFile,
		ChatGPTBaseURL:                f.ChatGPTBaseURL,
	}
}

// applyModel applies the keys of p, found at loc, and records in mp where
// model_provider was set.
func (c *Config) applyModel(p profileFile, loc location, mp *location) {
	set(&c.Model, p.Model)
	set(&c.ModelProvider, p.ModelProvider)
	set(&c.ModelReasoningEffort, p.ModelReasoningEffort)
	set(&c.ModelReasoningSummary, p.ModelReasoningSummary)
	set(&c.ApprovalPolicy, p.approval)
	set(&c.SandboxMode, p.SandboxMode)
	set(&c.ModelVerbosity, p.ModelVerbosity)
	set(&c.ServiceTier, p.ServiceTier)
	if p.ModelInstructionsFile == nil {
		set(&c.ModelInstructionsFile, p.ExperimentalInstructionsFile) // the older name
	}
	set(&c.ModelInstructionsFile, p.ModelInstructionsFile)
	set(&c.ExperimentalCompactPromptFile, p.ExperimentalCompactPromptFile)
	set(&c.ChatGPTBaseURL, p.ChatGPTBaseURL)
	if p.Fallback != nil {
		c.Fallback = c.Fallback[:0:0]
		for _, f := range *p.Fallback {
			c.Fallback = append(c.Fallback, Fallback{Provider: deref(f.Provider), Model: deref(f.Model)})
		}
	}
	if p.ModelProvider != nil {
		*mp = loc
	}
}

// applyProfile selects the profile (opts.Profile, else the last layer
// setting profile) and applies its tables from every layer in order.
func (c *Config) applyProfile(layers []layer, opts Options, probs *problems, mp *location) {
	name := opts.Profile
	var from *source // nil: --profile
	if name == "" {
		for i := len(layers) - 1; i >= 0; i-- {
			if p := layers[i].f.Profile; p != nil {
				name, from = *p, layers[i].src
				break
			}
		}
	}
	if name == "" {
		return
	}
	defined := map[string]bool{}
	for _, l := range layers {
		for n := range l.f.Profiles {
			defined[n] = true
		}
		if l.profile == name {
			defined[name] = true
		}
		if p, ok := l.f.Profiles[name]; ok {
			c.applyModel(p, location{l.src, []string{"profiles", name}}, mp)
		}
	}
	if defined[name] {
		c.Profile = name
		return
	}
	for _, n := range profileFiles(opts.Home) {
		defined[n] = true
	}
	known := "none"
	if len(defined) > 0 {
		known = strings.Join(sortedKeys(defined), ", ")
	}
	looked := fmt.Sprintf("no [profiles.%s] table", name)
	if opts.Home != "" {
		looked = fmt.Sprintf("no %s and no [profiles.%s] in %s", profilePath(opts.Home, name), name, filepath.Join(opts.Home, FileName))
	}
	if from != nil {
		probs.add(from, []string{"profile"}, "unknown profile %q: %s (defined: %s)", name, looked, known)
		return
	}
	probs.addError(&Error{Path: c.Path, Key: "profile",
		Msg: fmt.Sprintf("unknown profile %q given by --profile: %s (defined: %s)", name, looked, known)})
}

// applyRest applies the keys of f that profiles do not set.
func (c *Config) applyRest(f *fileConfig) {
	set(&c.ModelContextWindow, f.ModelContextWindow)
	set(&c.ModelAutoCompactTokenLimit, f.ModelAutoCompactTokenLimit)
	if f.CompactKeepToolCalls != nil {
		c.CompactKeepToolCalls = f.CompactKeepToolCalls
	}
	set(&c.ToolOutputTokenLimit, f.ToolOutputTokenLimit)
	set(&c.WebSearch, f.WebSearch)
	set(&c.MaxCostUSD, f.MaxCostUSD)
	if s := f.SandboxWorkspaceWrite; s != nil {
		w := &c.SandboxWorkspaceWrite
		set(&w.WritableRoots, s.WritableRoots)
		set(&w.NetworkAccess, s.NetworkAccess)
		set(&w.ExcludeTmpdirEnvVar, s.ExcludeTmpdirEnvVar)
		set(&w.ExcludeSlashTmp, s.ExcludeSlashTmp)
	}
	set(&c.Instructions, f.Instructions)
	set(&c.DeveloperInstructions, f.DeveloperInstructions)
	set(&c.CompactPrompt, f.CompactPrompt)
	set(&c.CACertificate, f.CACertificate)
	set(&c.SandboxFallback, f.SandboxFallback)
	set(&c.ProjectDocMaxBytes, f.ProjectDocMaxBytes)
	set(&c.ProjectDocFallbackFilenames, f.ProjectDocFallbackFilenames)
	set(&c.ProjectRootMarkers, f.ProjectRootMarkers)
	set(&c.CLIAuthCredentialsStore, f.CLIAuthCredentialsStore)
	set(&c.ForcedLoginMethod, f.ForcedLoginMethod)
	set(&c.ForcedChatGPTWorkspaceID, f.ForcedChatGPTWorkspaceID)
	set(&c.AuthIssuer, f.AuthIssuer)
	set(&c.AuthTokenURL, f.AuthTokenURL)
	set(&c.AuthClientID, f.AuthClientID)
	if h := f.History; h != nil {
		set(&c.History.Persistence, h.Persistence)
		set(&c.History.MaxBytes, h.MaxBytes)
	}
	if t := f.TUI; t != nil {
		set(&c.AlternateScreen, t.AlternateScreen)
		set(&c.Theme, t.Theme)
		set(&c.VimModeDefault, t.VimModeDefault)
		for ctx, actions := range t.keys {
			if c.Keymap == nil {
				c.Keymap = Keymap{}
			}
			if c.Keymap[ctx] == nil {
				c.Keymap[ctx] = map[string][]string{}
			}
			maps.Copy(c.Keymap[ctx], actions)
		}
	}
	for path, p := range f.Projects {
		proj := c.Projects[path]
		set(&proj.TrustLevel, p.TrustLevel)
		c.Projects[path] = proj
	}
	set(&c.Notify, f.Notify)
	set(&c.HideAgentReasoning, f.HideAgentReasoning)
	c.applyProxy(f.Proxy)
	c.applyOtel(f.Otel)
	if ft := f.Features; ft != nil {
		set(&c.Features.UnboundedConnectionRetries, ft.UnboundedConnectionRetries)
		set(&c.Features.Goals, ft.Goals)
	}
	if g := f.Goals; g != nil {
		set(&c.Goals.MaxGoalTokenBudget, g.MaxGoalTokenBudget)
		set(&c.Goals.MaxGoalTurns, g.MaxGoalTurns)
		set(&c.Goals.MaxGoalWallTimeSeconds, g.MaxGoalWallTimeSeconds)
	}
	if p := f.ShellEnvironmentPolicy; p != nil {
		sp := &c.ShellEnvironmentPolicy
		if p.Inherit != nil {
			sp.Inherit = shellenv.Inherit(*p.Inherit)
		}
		set(&sp.IgnoreDefaultExcludes, p.IgnoreDefaultExcludes)
		set(&sp.Exclude, p.Exclude)
		set(&sp.IncludeOnly, p.IncludeOnly)
		sp.Set = overlayMap(sp.Set, p.Set)
	}
}

// resolveProviders builds c.Providers and c.Retry from the built-ins and
// every layer's [model_providers] and [retry] tables.
func (c *Config) resolveProviders(layers []layer, probs *problems) {
	provs := c.Providers
	authAt := map[string]location{}    // where each auth table was last set
	definedAt := map[string]location{} // where each provider table was first set
	baseURLGiven := map[string]bool{}  // providers with a non-empty base_url, valid or not
	for _, l := range layers {
		for _, id := range sortedKeys(l.f.ModelProviders) {
			info, ok := provs[id]
			if !ok {
				info = provider.Custom(id)
			}
			provs[id] = overlayProvider(info, l.f.ModelProviders[id])
			if _, seen := definedAt[id]; !seen {
				definedAt[id] = location{l.src, []string{"model_providers", id}}
			}
			if given, ok := l.baseURLGiven[id]; ok {
				baseURLGiven[id] = given // a later empty one unsets it
			}
			if a := l.f.ModelProviders[id].Auth; a != nil {
				c.AuthCommands[id] = overlayAuth(c.AuthCommands[id], a)
				authAt[id] = location{l.src, []string{"model_providers", id, "auth"}}
			}
		}
		if u := l.f.OpenAIBaseURL; u != nil {
			openai := provs[DefaultModelProvider]
			openai.BaseURL = *u
			provs[DefaultModelProvider] = openai
		}
	}
	for _, id := range sortedKeys(authAt) {
		checkAuth(provs[id], c.AuthCommands[id], authAt[id], probs)
	}
	builtins := provider.Builtins()
	for _, id := range sortedKeys(definedAt) {
		if _, ok := builtins[id]; !ok && provs[id].BaseURL == "" && !baseURLGiven[id] {
			loc := definedAt[id]
			probs.add(loc.src, loc.path, "base_url is required for a custom provider (without it, its key would go to the OpenAI endpoint)")
		}
	}
	for _, l := range layers {
		overlayRetry(c.Retry, l.f.Retry.classes(), location{l.src, []string{"retry"}}, probs)
		if rf := l.f.Retry; rf != nil && rf.MaxConcurrentResends != nil {
			c.MaxConcurrentResends = int(*rf.MaxConcurrentResends)
		}
		if rf := l.f.Retry; rf != nil && rf.MaxWaitMS != nil {
			maxWait := millis(*rf.MaxWaitMS)
			for id, info := range provs {
				info.RetryMaxWait = maxWait
				provs[id] = info
			}
		}
	}
	for _, id := range sortedKeys(provs) {
		info := provs[id]
		r := maps.Clone(info.Retry)
		if r == nil {
			r = provider.DefaultRetry()
		}
		for _, l := range layers {
			overlayRetry(r, l.f.Retry.classes(), location{l.src, []string{"retry"}}, probs)
		}
		for _, l := range layers {
			if pf, ok := l.f.ModelProviders[id]; ok {
				overlayRetry(r, pf.Retry, location{l.src, []string{"model_providers", id, "retry"}}, probs)
			}
		}
		info.Retry = r
		provs[id] = info
	}
}

// overlayProvider returns info with the keys set in p applied. Retry
// counts above the cap are clamped to it, as Codex does.
func overlayProvider(info provider.Info, p providerFile) provider.Info {
	info = info.Clone()
	set(&info.Name, p.Name)
	set(&info.BaseURL, p.BaseURL)
	set(&info.EnvKey, p.EnvKey)
	set(&info.EnvKeyInstructions, p.EnvKeyInstructions)
	set(&info.WireAPI, p.WireAPI)
	info.QueryParams = overlayMap(info.QueryParams, p.QueryParams)
	info.HTTPHeaders = overlayMap(info.HTTPHeaders, p.HTTPHeaders)
	info.EnvHTTPHeaders = overlayMap(info.EnvHTTPHeaders, p.EnvHTTPHeaders)
	if n := p.RequestMaxRetries; n != nil {
		info.RequestMaxRetries = int(min(*n, provider.MaxRequestMaxRetries))
	}
	if n := p.StreamMaxRetries; n != nil {
		info.StreamMaxRetries = int(min(*n, provider.MaxStreamMaxRetries))
	}
	if ms := p.StreamIdleTimeoutMS; ms != nil {
		info.StreamIdleTimeout = millis(*ms)
	}
	if ms := p.StreamProgressTimeoutMS; ms != nil {
		info.StreamProgressTimeout = millis(*ms)
	}
	set(&info.StreamMaxEventBytes, p.StreamMaxEventBytes)
	set(&info.Transport, p.Transport)
	if ms := p.WebSocketConnectTimeoutMS; ms != nil {
		info.WebSocketConnectTimeout = millis(*ms)
	}
	if ms := p.ConnectionMaxWaitMS; ms != nil {
		info.ConnectionMaxWait = millis(*ms)
	}
	set(&info.SupportsWebSockets, p.SupportsWebSockets)
	set(&info.RequiresOpenAIAuth, p.RequiresOpenAIAuth)
	return info
}

// overlayAuth returns a with the keys set in f applied; an unset a starts
// from the defaults.
func overlayAuth(a AuthCommand, f *providerAuthFile) AuthCommand {
	if a.Timeout == 0 {
		a.Timeout, a.RefreshInterval = DefaultAuthTimeout, DefaultAuthRefreshInterval
	}
	set(&a.Command, f.Command)
	set(&a.Args, f.Args)
	set(&a.Cwd, f.Cwd)
	if ms := f.TimeoutMS; ms != nil {
		a.Timeout = millis(*ms)
	}
	if ms := f.RefreshIntervalMS; ms != nil {
		a.RefreshInterval = millis(*ms)
	}
	return a
}

// checkAuth reports a provider auth command, set at loc, that lacks a
// command or competes with the provider's other credentials.
func checkAuth(info provider.Info, a AuthCommand, loc location, probs *problems) {
	switch {
	case a.Command == "":
		probs.add(loc.src, loc.path, "command is required (the program printing the token)")
	case info.EnvKey != "":
		probs.add(loc.src, loc.path, "an auth command cannot be combined with env_key (%s); remove one", info.EnvKey)
	case info.RequiresOpenAIAuth:
		probs.add(loc.src, loc.path, "an auth command cannot be combined with requires_openai_auth = true; remove one")
	}
}

// overlayRetry applies the class tables of rf, found at loc, to r in place
// and reports a class whose resulting max delay is below its base delay.
func overlayRetry(r map[string]provider.ClassPolicy, rf *retryFile, loc location, probs *problems) {
	if rf == nil {
		return
	}
	classes, schedules := rf.classes(), rf.schedules()
	for _, class := range provider.Classes() {
		cf := classes[class]
		if cf == nil {
			continue
		}
		pol := r[class]
		if n := cf.MaxRetries; n != nil {
			pol.MaxRetries = int(*n)
		}
		if ms := cf.BaseDelayMS; ms != nil {
			pol.BaseDelay = millis(*ms)
		}
		if ms := cf.MaxDelayMS; ms != nil {
			pol.MaxDelay = millis(*ms)
		}
		set(&pol.Jitter, cf.Jitter)
		if d, ok := schedules[class]; ok {
			pol.Delays = make([]time.Duration, len(d))
			for i, ms := range d {
				pol.Delays[i] = millis(ms)
			}
		}
		if pol.MaxDelay < pol.BaseDelay {
			key := "max_delay_ms"
			if cf.MaxDelayMS == nil {
				key = "base_delay_ms"
			}
			probs.add(loc.src, at(loc.path, class, key), "max_delay_ms (%d) must not be below base_delay_ms (%d)",
				pol.MaxDelay.Milliseconds(), pol.BaseDelay.Milliseconds())
		}
		r[class] = pol
	}
}

// set stores *v in *dst when v is set.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// millis converts a validated millisecond count.
func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// overlayMap returns base with the entries of over added or replaced; base
// is not modified.
func overlayMap(base, over map[string]string) map[string]string {
	if over == nil {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = make(map[string]string, len(over))
	}
	maps.Copy(out, over)
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// fallbackAt is where the fallback in force was set, in the order
// resolve applies them: -c overrides, then the profile, then the file.
func fallbackAt(layers []layer, profile string) location {
	for i := len(layers) - 1; i >= 1; i-- {
		if layers[i].f.Fallback != nil {
			return location{layers[i].src, nil}
		}
	}
	if profile != "" {
		for i := len(layers) - 1; i >= 0; i-- {
			if p, ok := layers[i].f.Profiles[profile]; ok && p.Fallback != nil {
				return location{layers[i].src, []string{"profiles", profile}}
			}
		}
	}
	if layers[0].f.Fallback != nil {
		return location{layers[0].src, nil}
	}
	return location{}
}

// checkFallback reports fallback entries, set at loc, that name no
// provider or model, or a provider nobody defined; they are dropped.
func (c *Config) checkFallback(loc location, probs *problems) {
	if loc.src == nil {
		return
	}
	path := at(loc.path, "fallback")
	good := c.Fallback[:0]
	for i, f := range c.Fallback {
		entry := at(path, strconv.Itoa(i+1))
		switch _, known := c.Providers[f.Provider]; {
		case f.Provider == "":
			probs.add(loc.src, entry, `needs provider = "<id>" (a [model_providers] id or a built-in)`)
		case !known:
			probs.add(loc.src, at(entry, "provider"), "unknown model provider %q (known: %s)",
				f.Provider, strings.Join(sortedKeys(c.Providers), ", "))
		case f.Model == "":
			probs.add(loc.src, entry, `needs model = "<slug>" (the model's name at provider %q)`, f.Provider)
		default:
			good = append(good, f)
		}
	}
	c.Fallback = good
}
