package app

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/internal/subagent"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/session/hooks"
)

// hookSet discovers the hooks of a session in cwd, and says once per
// process what it could not read and which hooks wait for the user's
// trust.
func (a *App) hookSet(cwd string) (_ *hooks.Set, notices []string) {
	home := a.home
	if a.ignoreUserConfig {
		home = ""
	}
	set := hooks.Discover(a.hookSources(home, cwd, a.bypassHookTrust))
	a.hooksMu.Lock()
	defer a.hooksMu.Unlock()
	if a.hooksTold == nil {
		a.hooksTold = map[string]bool{}
	}
	say := func(msg string) {
		if !a.hooksTold[msg] {
			a.hooksTold[msg] = true
			notices = append(notices, msg)
			a.logger.Warn("hooks", "notice", msg)
		}
	}
	for _, w := range set.Warnings {
		say("hooks: " + w)
	}
	if cwd != "" && a.cfg.ProjectTrust(cwd) != config.TrustTrusted {
		for _, dir := range setup.ProjectDirs(a.home, cwd) {
			if f := filepath.Join(dir, "hooks.json"); setup.FileExists(f) {
				say(fmt.Sprintf("hooks: the project's %s is not loaded: the project is not trusted (trust it as Codex does: [projects.%q] trust_level = \"trusted\")",
					f, filepath.Dir(dir)))
			}
		}
	}
	if set.Bypass() && len(set.All) > 0 {
		say("warning: `--dangerously-bypass-hook-trust` is enabled. Enabled hooks may run without review for this invocation.")
	}
	for _, h := range set.Untrusted() {
		why := "is new and not trusted"
		if h.Trust == hooks.Modified {
			why = "changed since it was trusted"
		}
		say(fmt.Sprintf("hook not run: %s %s; review and trust it with /hooks in the chat or `agent hooks trust`", h.Name(), why))
	}
	return set, notices
}

// hookSources are the hooks of cwd as config.toml was read, with the
// trust /hooks gave since: the last layer's [hooks.state].
func (a *App) hookSources(home, cwd string, bypass bool) hooks.Sources {
	src := setup.HookSources(a.cfg, home, cwd, bypass)
	a.hooksMu.Lock()
	defer a.hooksMu.Unlock()
	if len(a.hooksTrusted) > 0 {
		st := map[string]any{}
		for key, hash := range a.hooksTrusted {
			st[key] = map[string]any{"trusted_hash": hash}
		}
		src.Config = append(src.Config, hooks.Layer{Path: filepath.Join(a.home, "config.toml"), Source: hooks.SourceUser,
			Table: map[string]any{"state": st}})
	}
	return src
}

// withHooks gives the session opts the hooks of cwd, run with the
// environment of the model's commands (shell_environment_policy: no
// provider keys unless it lets them through) and masked output. A
// subagent's (child) are Codex's for a thread-spawned child: its events
// carry the root session's id and its own as agent_id.
func (a *App) withHooks(opts *session.Options, t *Thread, source string, child *childSpec) {
	cwd := t.ws.Cwd
	set, notices := a.hookSet(cwd)
	if len(set.All) == 0 && len(notices) == 0 {
		return
	}
	mode := "default"
	if t.ws.Policy == "never" && t.ws.Sandbox.Mode == "danger-full-access" {
		mode = "bypassPermissions"
	}
	runner := &hooks.Runner{Env: t.ws.Env, Now: a.env.Now}
	if a.secrets != nil {
		runner.Mask = a.secrets.String
	}
	opts.Hooks = &session.Hooks{Set: set, Runner: runner, SessionID: t.ID, TranscriptPath: t.Path(), Cwd: cwd,
		Source: source, PermissionMode: mode, Notices: notices}
	if child != nil {
		opts.Hooks.SessionID = t.agents.root
		opts.Hooks.Agent = &session.HookAgent{ID: t.ID, Type: child.role, ParentTranscriptPath: child.parent.Path(),
			Label: subagent.Info{ID: t.ID, Nickname: child.nickname, Role: child.role}.Label()}
	}
}

// HookLines are the chat's /hooks: every hook of the session's directory
// with its event, matcher, source, trust and key; with "trust KEY" or
// "trust all" it first trusts those hooks as they are now (their exact
// hash, in config.toml's [hooks.state]).
func (a *App) HookLines(cwd, arg string) (title string, body []string, err error) {
	home := a.home
	if a.ignoreUserConfig {
		home = ""
	}
	set := hooks.Discover(a.hookSources(home, cwd, false))
	fields := strings.Fields(arg)
	if len(fields) > 0 {
		if fields[0] != "trust" || len(fields) < 2 {
			return "", nil, fmt.Errorf("usage: /hooks, /hooks trust KEY, /hooks trust all")
		}
		n := 0
		for _, h := range set.All {
			if h.Trust == hooks.Trusted || (fields[1] != "all" && !slices.Contains(fields[1:], h.Key)) {
				continue
			}
			if err := config.TrustHook(a.home, h.Key, h.Hash); err != nil {
				return "", nil, err
			}
			a.hooksMu.Lock()
			if a.hooksTrusted == nil {
				a.hooksTrusted = map[string]string{}
			}
			a.hooksTrusted[h.Key] = h.Hash
			a.hooksMu.Unlock()
			body = append(body, "trusted "+h.Name()+" at "+h.Hash)
			n++
		}
		if n == 0 {
			return "", nil, fmt.Errorf("no untrusted hook has the key %s (/hooks lists them)", strings.Join(fields[1:], " "))
		}
		set = hooks.Discover(a.hookSources(home, cwd, false))
		body = append(body, "")
	}
	if len(set.All) == 0 {
		return "No hooks: hooks.json or [hooks] in " + a.home + ", or a trusted project's .codex/", nil, nil
	}
	for _, h := range set.All {
		state := string(h.Trust)
		if !h.Enabled {
			state += ", disabled"
		}
		body = append(body, fmt.Sprintf("%s %s [%s, %s]", h.Event, matcherText(h), h.Source, state),
			"  "+strings.TrimSpace(h.Command), "  "+h.Path, "  key: "+h.Key)
	}
	body = append(body, "", "/hooks trust KEY (or all) trusts hooks as they are now; a change needs trust again.")
	for _, w := range set.Warnings {
		body = append(body, "warning: "+w)
	}
	return "Hooks", body, nil
}

func matcherText(h hooks.Hook) string {
	if h.Matcher == nil {
		return "(every)"
	}
	return fmt.Sprintf("%q", *h.Matcher)
}
