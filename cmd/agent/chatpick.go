package main

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/tui"
)

// sessionsShown caps the sessions the /resume picker lists.
const sessionsShown = 500

// pickerHooks are the chat's hooks for the /model and /resume pickers, the
// custom prompts' directories and /fork.
func pickerHooks(a *app.App, chat *app.Chat, o *tui.Options) {
	c := &o.Commands
	c.Models = func(ctx context.Context) ([]tui.ModelChoice, error) { return modelChoices(chat.Models(ctx)), nil }
	c.Sessions = func(_ context.Context, all bool) ([]tui.SessionInfo, error) {
		ents, err := rollout.List(a.Home(), a.Workspace().Cwd, all, sessionsShown)
		var out []tui.SessionInfo
		for _, e := range ents {
			out = append(out, tui.SessionInfo{ID: e.ID, Title: e.Label(), Cwd: e.Cwd, Updated: e.Updated})
		}
		return out, err
	}
	c.Fork = func(_ context.Context, keep int) (tui.Resumed, error) {
		ro, err := chat.Fork(keep)
		if err != nil {
			return tui.Resumed{}, err
		}
		return tui.Resumed{Engine: chat, Messages: transcript(ro)}, nil
	}
	o.PromptDirs = append(o.PromptDirs, filepath.Join(a.Home(), "prompts"))
}

// modelChoices are the /model picker's rows: reasoning efforts for the
// models that take them.
func modelChoices(names []string) []tui.ModelChoice {
	var out []tui.ModelChoice
	for _, n := range names {
		c := tui.ModelChoice{Name: n}
		if strings.HasPrefix(n, "gpt-5") || strings.HasPrefix(n, "o3") || strings.HasPrefix(n, "o4") {
			c.Efforts = []string{"low", "medium", "high"}
		}
		out = append(out, c)
	}
	return out
}

// approvalPreset resolves a /permissions preset name (else a policy as it
// is) in a chat whose sandbox is mode: the preset's policy, and a note
// when its sandbox is another (set when the session's tools are made).
func approvalPreset(policy, mode string) (string, string) {
	for _, p := range tui.Presets() {
		if p.Name != policy {
			continue
		}
		if p.Sandbox != mode {
			return p.Policy, "; the sandbox stays " + mode + " in this chat: start agent with -s " + p.Sandbox + " for " + p.Label
		}
		return p.Policy, ""
	}
	return policy, ""
}
