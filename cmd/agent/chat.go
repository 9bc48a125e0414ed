package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/agentcli/agent/headless/exitcode"
	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/tui"
)

// chatFlags are the interactive chat's own flags (agent, agent resume,
// agent fork).
type chatFlags struct {
	sandbox, cd, approval string
	images                []string
	prompt                string // the first message, sent at once
	pickResume            bool   // open the /resume picker at start
	search                bool   // --search: web_search = "live"
	codex                 codexFlags
}

// addChatFlags registers the chat's flags on fs.
func addChatFlags(fs *pflag.FlagSet, cf *chatFlags) {
	fs.StringVarP(&cf.sandbox, "sandbox", "s", "", "sandbox for commands: read-only, workspace-write or danger-full-access (default: config, else read-only)")
	fs.StringVarP(&cf.cd, "cd", "C", "", "work in DIR instead of the current directory")
	fs.StringVarP(&cf.approval, "ask-for-approval", "a", "", "approval policy: untrusted, on-request or never (default: config, else on-request)")
	fs.StringArrayVarP(&cf.images, "image", "i", nil, "attach an image FILE to the first prompt (repeatable, or comma-separated)")
	fs.BoolVar(&cf.search, "search", false, `offer the model live web search (web_search = "live")`)
	cf.codex.add(fs)
	addIgnoredFlags(fs, ignoredCommonFlags)
	addIgnoredFlags(fs, ignoredChatFlags)
}

// runChat opens the interactive chat on a new session.
func runChat(ctx context.Context, env Env, g *globalFlags, f *chatFlags) error {
	return runChatOn(ctx, env, g, f, func(a *app.App) (*app.Session, []tui.Message, error) {
		s, err := a.NewSession()
		return s, nil, err
	})
}

// runChatOn opens the interactive chat on the session start returns, with
// the messages to show first (for a resumed one).
func runChatOn(ctx context.Context, env Env, g *globalFlags, f *chatFlags,
	start func(*app.App) (*app.Session, []tui.Message, error)) error {
	if !env.StdinTTY || !env.StdoutTTY {
		return usageError(errors.New("the interactive chat needs a terminal; for scripts use `agent exec PROMPT`"))
	}
	if err := f.codex.apply(g, &f.sandbox, &f.approval); err != nil {
		return usageError(err)
	}
	if f.search {
		g.overrides = append(g.overrides, `web_search="live"`)
	}
	addDirs, err := f.codex.writableRoots()
	if err != nil {
		return usageError(err)
	}
	images, err := tools.ImageDataURLs(f.images)
	if err != nil {
		return usageError(err)
	}
	ap, notices := tui.NewApprover(), tui.NewNotifier()
	a, err := newChatApp(ctx, env, g, f, addDirs, ap, notices)
	if err != nil {
		return err
	}
	defer a.Close()
	if w := a.Where(); w.Codex() {
		fmt.Fprintln(env.Stderr, "agent: "+w.Describe()) // once, before the chat owns the terminal
	}
	first, shown, err := start(a)
	if err != nil {
		var ee *exitcode.Error
		if errors.As(err, &ee) {
			return err
		}
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	first.AttachImages(images...)
	chat := a.NewChat(first)
	opts := chatOptions(env, a, chat)
	opts.Prompt, opts.Messages, opts.Approver, opts.Notices = f.prompt, shown, ap, notices
	opts.OpenResume = f.pickResume
	pickerHooks(a, chat, &opts)
	err = tui.Run(ctx, opts)
	if err != nil && ctx.Err() != nil {
		return &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("interrupted")}
	}
	if err == nil && !a.Ephemeral() {
		fmt.Fprintln(env.Stdout, chat.ResumeHint())
	}
	return err
}

// newChatApp builds the chat's app: approvals asked in the chat, notices
// posted to its transcript, MCP servers started in the background.
func newChatApp(ctx context.Context, env Env, g *globalFlags, f *chatFlags, addDirs []string,
	ap *tui.Approver, notices *tui.Notifier) (*app.App, error) {
	return app.New(ctx, g.appOptions(env, app.Options{
		Originator: "agent_cli", Cd: f.cd, Sandbox: f.sandbox, Approval: f.approval, Approve: ap.Approve,
		AddDirs: addDirs,
		// A server that fails or stops is told once, in the transcript;
		// /mcp shows every server's state.
		MCPNotice: func(n mcp.Notice) {
			if n.State == mcp.Failed || n.State == mcp.Stopped {
				notices.Post("mcp: "+n.String(), true)
			}
		},
		WaitForNetwork: true,
		// The chat owns the terminal: notices go to its transcript.
		Notice: func(msg string) { notices.Post(msg, true) },
	}))
}

// chatOptions are the chat's options on app a and its chat: the screen,
// what the status line shows, and the slash commands.
func chatOptions(env Env, a *app.App, chat *app.Chat) tui.Options {
	cfg := a.Config()
	return tui.Options{
		Output:        env.Secrets.Terminal(os.Stdout),
		Engine:        chat,
		Model:         cfg.Model,
		Provider:      a.Provider().Name,
		Transport:     app.TransportName(chat.Current().Settings().Client),
		ContextWindow: cfg.ModelContextWindow,
		HistoryPath:   filepath.Join(a.Home(), "history.jsonl"),
		// [history]: persistence = "none" writes nothing; max_bytes trims.
		HistoryNoSave:   cfg.History.Persistence == "none",
		HistoryMaxBytes: cfg.History.MaxBytes,
		SessionID:       func() string { return chat.Current().ID },
		NoColor:         env.Getenv("NO_COLOR") != "",
		Warnings:        warningLines(cfg.Warnings),
		InTmux:          env.Getenv("TMUX") != "",
		Dir:             a.Workspace().Cwd,
		Commands:        chatCommands(a, chat),
	}
}

// chatCommands are the chat's slash commands, each one operation of the
// chat (app.Chat).
func chatCommands(a *app.App, chat *app.Chat) tui.Commands {
	return tui.Commands{
		New: func(context.Context) (tui.Engine, error) {
			if err := chat.New(); err != nil {
				return nil, err
			}
			return chat, nil
		},
		Model: func(_ context.Context, name, effort string) (tui.Engine, error) {
			if err := chat.SetModel(name, effort); err != nil {
				return nil, err
			}
			return chat, nil
		},
		Approvals: func(_ context.Context, policy string) (string, error) {
			policy, note := approvalPreset(policy, chat.Sandbox())
			msg, err := chat.SetApprovals(policy)
			if err != nil || policy == "" {
				return msg, err
			}
			return msg + note, nil
		},
		Compact: chat.Compact,
		Resume: func(_ context.Context, id string) (tui.Resumed, error) {
			ro, err := chat.Resume(id)
			if err != nil {
				return tui.Resumed{}, err
			}
			return tui.Resumed{Engine: chat, Messages: transcript(ro)}, nil
		},
		MCP:        func() []tui.MCPServer { return mcpStatus(a.MCP()) },
		MCPPrompts: func() []tui.MCPPrompt { return mcpPrompts(a.MCP()) },
		GetMCPPrompt: func(ctx context.Context, name string, args map[string]string) (string, error) {
			if a.MCP() == nil {
				return "", errors.New("no MCP server is configured")
			}
			return a.MCP().GetPrompt(ctx, name, args)
		},
		Rename:     func(_ context.Context, name string) (string, error) { return chat.Rename(name) },
		Logout:     chat.Logout,
		History:    func() []transport.Item { return chat.Current().History() },
		Background: func() []tools.Background { return execTool(a).Running() },
		Stop:       func(id int) int { return execTool(a).Stop(id) },
		Status:     chat.Status,
	}
}

// mcpStatus is /mcp's list: each server's state, tools and error.
func mcpStatus(m *mcp.Manager) []tui.MCPServer {
	if m == nil {
		return nil
	}
	var out []tui.MCPServer
	for _, s := range m.Servers() {
		srv := tui.MCPServer{Name: s.Name, State: s.State.String(), Tools: s.Tools}
		if s.Err != nil {
			srv.Err = s.Err.Error()
		}
		out = append(out, srv)
	}
	return out
}

// mcpPrompts are the MCP servers' prompts the / popup offers.
func mcpPrompts(m *mcp.Manager) []tui.MCPPrompt {
	if m == nil {
		return nil
	}
	var out []tui.MCPPrompt
	for _, p := range m.Prompts() {
		tp := tui.MCPPrompt{Name: p.Name, Server: p.Server, Description: p.Description}
		for _, a := range p.Arguments {
			tp.Arguments = append(tp.Arguments, tui.MCPPromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, tp)
	}
	return out
}
