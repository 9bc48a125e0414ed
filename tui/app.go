package tui

import (
	"cmp"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/agentcli/agent/config"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/subagent"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
	"github.com/agentcli/agent/transport"
)

// AppOptions are the chat's options on app a and its chat, drawn on out
// (the terminal) with the environment getenv reads: what the status line
// shows, the history file, and the slash commands and pickers, each an
// operation of the app or its chat ([Chat]). The caller sets the first
// prompt, the messages shown first, the approver and the notifier.
func AppOptions(a *app.App, chat *Chat, out io.Writer, getenv func(string) string) Options {
	cfg := a.Config()
	o := Options{
		Output:        out,
		Engine:        chat,
		Model:         cfg.Model,
		Provider:      a.Provider().Name,
		Transport:     chat.Current().Transport(),
		ContextWindow: cfg.ContextWindow(cfg.Model),
		AutoCompact:   cfg.AutoCompactTokens(),
		Window: func(model string) (int64, int64) {
			return cfg.ContextWindow(model), cfg.AutoCompactTokensFor(model)
		},
		HistoryPath: filepath.Join(a.Home(), "history.jsonl"),
		// [history]: persistence = "none" writes nothing; max_bytes trims.
		HistoryNoSave:   cfg.History.Persistence == "none",
		HistoryMaxBytes: cfg.History.MaxBytes,
		SessionID:       func() string { return chat.Current().ID },
		NoColor:         getenv("NO_COLOR") != "",
		Warnings:        warningLines(cfg.Warnings),
		InTmux:          getenv("TMUX") != "",
		VimMode:         cfg.VimModeDefault,
		Theme:           cfg.Theme,
		Keymap:          cfg.Keymap,
		KeymapPath:      cmp.Or(cfg.Path, filepath.Join(a.Home(), "config.toml")),
		KeymapWarnings:  keymapWarnings(cfg.Warnings),
		// [tui] alternate_screen, as Codex: auto leaves it off in Zellij.
		Inline:       cfg.AlternateScreen == "never" || cfg.AlternateScreen == "auto" && getenv("ZELLIJ") != "",
		Dir:          a.Workspace().Cwd,
		Commands:     chatCommands(a, chat),
		AttachImages: func(urls []string) { chat.Current().AttachImages(urls...) },
		// Ctrl+V: an image from the clipboard.
		ClipboardImage: ClipboardImage(getenv),
	}
	pickerHooks(a, chat, &o)
	return o
}

// chatCommands are the chat's slash commands, each one operation of the
// chat (Chat).
func chatCommands(a *app.App, chat *Chat) Commands {
	return Commands{
		New: func(ctx context.Context) (Engine, error) {
			if err := chat.New(ctx); err != nil {
				return nil, err
			}
			return chat, nil
		},
		Model: func(_ context.Context, name, effort string) (Engine, error) {
			if err := chat.SetModel(name, effort); err != nil {
				return nil, err
			}
			return chat, nil
		},
		Approvals: func(_ context.Context, arg string) (string, error) {
			if p, ok := preset(arg); ok {
				return chat.SetPermissions(p.Policy, p.Sandbox)
			}
			return chat.SetApprovals(arg)
		},
		Permissions: func() (string, string) {
			return chat.Sandbox(), chat.Current().Settings().ApprovalPolicy
		},
		Compact:     chat.Compact,
		Undo:        chat.Undo,
		RewindTurns: chat.RewindTurns,
		Rewind:      chat.Rewind,
		Resume: func(ctx context.Context, id string) (Resumed, error) {
			ro, err := chat.Resume(ctx, id)
			if err != nil {
				return Resumed{}, err
			}
			return Resumed{Engine: chat, Messages: Transcript(ro)}, nil
		},
		MCP:        func() []MCPServer { return mcpStatus(a.MCP()) },
		MCPPrompts: func() []MCPPrompt { return mcpPrompts(a.MCP()) },
		GetMCPPrompt: func(ctx context.Context, name string, args map[string]string) (string, error) {
			if a.MCP() == nil {
				return "", errors.New("no MCP server is configured")
			}
			return a.MCP().GetPrompt(ctx, name, args)
		},
		Rename:      func(_ context.Context, name string) (string, error) { return chat.Rename(name) },
		Logout:      chat.Logout,
		History:     func() []transport.Item { return chat.Current().History() },
		Background:  func() []tools.Background { return chat.Current().Background() },
		Stop:        func(id int) int { return chat.Current().Stop(id) },
		Agents:      func() []subagent.Info { return chat.Current().Agents.List() },
		WatchAgents: chat.WatchAgents,
		Status:      chat.Status,
		Hooks: func(arg string) (string, []string, error) {
			return a.HookLines(chat.Current().Workspace().Cwd, arg)
		},
		Skills:  func() ([]string, []string) { return a.SkillLines(chat.Current().Workspace().Cwd) },
		SetMode: func(_ context.Context, mode string) (string, error) { return chat.Current().SetMode(mode) },
		Mode:    func() string { return string(chat.Current().Mode()) },
		Goal:    chat.Goal,
		Side:    chat.Side,
		// /theme saves the choice where Codex does.
		SetTheme: func(name string) error { return config.SetTUITheme(a.Home(), name) },
		// /fast (extra_cmds.go).
		SetServiceTier: chat.SetServiceTier,
		ServiceTier:    chat.ServiceTier,
	}
}

// mcpStatus is /mcp's list: each server's state, tools and error.
func mcpStatus(m *mcp.Manager) []MCPServer {
	if m == nil {
		return nil
	}
	var out []MCPServer
	for _, s := range m.Servers() {
		srv := MCPServer{Name: s.Name, State: s.State.String(), Tools: s.Tools}
		if s.Err != nil {
			srv.Err = s.Err.Error()
		}
		out = append(out, srv)
	}
	return out
}

// mcpPrompts are the MCP servers' prompts the / popup offers.
func mcpPrompts(m *mcp.Manager) []MCPPrompt {
	if m == nil {
		return nil
	}
	var out []MCPPrompt
	for _, p := range m.Prompts() {
		tp := MCPPrompt{Name: p.Name, Server: p.Server, Description: p.Description}
		for _, a := range p.Arguments {
			tp.Arguments = append(tp.Arguments, MCPPromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, tp)
	}
	return out
}

// Transcript turns a rollout's recorded messages into chat messages, after
// warnings about the lines that could not be loaded; the turns a /rewind
// left out are left out.
func Transcript(ro *rollout.Rollout) []Message {
	var out []Message
	for _, w := range ro.LoadWarnings() {
		out = append(out, Message{Role: "warning", Text: w})
	}
	var starts []int // where each turn's messages begin in out
	for _, ev := range ro.Events {
		switch ev.Type {
		case rollout.EventTurnStarted:
			starts = append(starts, len(out))
		case rollout.EventRolledBack:
			// /rewind: the turns it left out are not the conversation.
			if n := len(starts) - ev.NumTurns; ev.NumTurns > 0 && n >= 0 {
				out, starts = out[:starts[n]], starts[:n]
			}
		case rollout.EventUserMessage:
			out = append(out, Message{Role: "user", Text: ev.Message})
		case rollout.EventAgentMessage:
			out = append(out, Message{Role: "assistant", Text: ev.Message})
		}
	}
	return out
}

// sessionsShown caps the sessions the /resume picker lists.
const sessionsShown = 500

// pickerHooks are the chat's hooks for the /model and /resume pickers, the
// custom prompts' directories and /fork.
func pickerHooks(a *app.App, chat *Chat, o *Options) {
	c := &o.Commands
	c.Models = func(ctx context.Context) ([]ModelChoice, error) { return modelChoices(a.Config(), a.Models(ctx)), nil }
	c.Sessions = func(ctx context.Context, all bool) ([]SessionInfo, error) {
		ents, err := rollout.List(ctx, a.Home(), a.Workspace().Cwd, all, sessionsShown)
		var out []SessionInfo
		for _, e := range ents {
			out = append(out, SessionInfo{ID: e.ID, Title: e.Label(), Cwd: e.Cwd, Updated: e.Updated})
		}
		return out, err
	}
	c.Fork = func(ctx context.Context, keep int) (Resumed, error) {
		ro, err := chat.Fork(ctx, keep)
		if err != nil {
			return Resumed{}, err
		}
		return Resumed{Engine: chat, Messages: Transcript(ro)}, nil
	}
	o.PromptDirs = append(o.PromptDirs, filepath.Join(a.Home(), "prompts"))
}

// modelChoices are the /model picker's rows: reasoning efforts for the
// models that take them.
func modelChoices(cfg config.Config, names []string) []ModelChoice {
	var out []ModelChoice
	for _, n := range names {
		out = append(out, ModelChoice{Name: n, Efforts: cfg.Efforts(n)})
	}
	return out
}

// preset is the /permissions preset called name.
func preset(name string) (tools.ApprovalPreset, bool) {
	for _, p := range tools.ApprovalPresets() {
		if p.ID == name {
			return p, true
		}
	}
	return tools.ApprovalPreset{}, false
}

// keymapWarnings are the warnings about [tui.keymap].
func keymapWarnings(ws []config.Warning) []string {
	var out []string
	for _, w := range ws {
		if strings.HasPrefix(w.Key, "tui.keymap") {
			out = append(out, w.String())
		}
	}
	return out
}

// warningLines are the configuration's warnings as the chat lists them.
func warningLines(ws []config.Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}
