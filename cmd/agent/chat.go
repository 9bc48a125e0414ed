package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
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
	inline                bool   // --no-alt-screen
	remote                string // --remote ws://...: the chat runs on that app-server
	remoteTokenEnv        string // --remote-auth-token-env VAR
	codex                 codexFlags
}

// addChatFlags registers the chat's flags on fs.
func addChatFlags(fs *pflag.FlagSet, cf *chatFlags) {
	fs.StringVarP(&cf.sandbox, "sandbox", "s", "", "sandbox for commands: read-only, workspace-write or danger-full-access (default: config, else read-only)")
	fs.StringVarP(&cf.cd, "cd", "C", "", "work in DIR instead of the current directory")
	fs.StringVarP(&cf.approval, "ask-for-approval", "a", "", "approval policy: untrusted, on-request or never (default: config, else on-request)")
	fs.StringArrayVarP(&cf.images, "image", "i", nil, "attach an image FILE to the first prompt (repeatable, or comma-separated)")
	fs.BoolVar(&cf.search, "search", false, `offer the model live web search (web_search = "live")`)
	fs.BoolVar(&cf.inline, "no-alt-screen", false, `run the chat inline, keeping the terminal's scrollback ([tui] alternate_screen = "never")`)
	fs.StringVar(&cf.remote, "remote", "", "run the chat on the app-server at ws://HOST:PORT (agent app-server, codex app-server)")
	fs.StringVar(&cf.remoteTokenEnv, "remote-auth-token-env", "", "send the bearer token in this environment variable to the --remote app-server")
	cf.codex.add(fs)
	addIgnoredFlags(fs, ignoredCommonFlags)
	addIgnoredFlags(fs, ignoredChatFlags)
}

// runChat opens the interactive chat on a new session.
func runChat(ctx context.Context, env Env, g *globalFlags, f *chatFlags) error {
	if f.remote != "" && !f.pickResume {
		return runChatRemote(ctx, env, g, f)
	}
	return runChatOn(ctx, env, g, f, func(a *app.App) (*app.Thread, []tui.Message, error) {
		s, err := a.Open(ctx, app.Spec{})
		return s, nil, err
	})
}

// runChatOn opens the interactive chat on the session start returns, with
// the messages to show first (for a resumed one).
func runChatOn(ctx context.Context, env Env, g *globalFlags, f *chatFlags,
	start func(*app.App) (*app.Thread, []tui.Message, error)) error {
	if f.remote != "" {
		return usageError(errors.New("--remote opens a new thread: resume or fork one with /resume ID or /fork inside `agent --remote URL`"))
	}
	if f.remoteTokenEnv != "" {
		return usageError(errors.New("--remote-auth-token-env goes with --remote"))
	}
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
	chat := tui.NewChat(a, first)
	opts := tui.AppOptions(a, chat, env.Secrets.Terminal(os.Stdout), env.Getenv)
	opts.Prompt, opts.Messages, opts.Approver, opts.Notices = f.prompt, shown, ap, notices
	opts.OpenResume = f.pickResume
	opts.Inline = opts.Inline || f.inline
	err = tui.Run(ctx, opts)
	kept := chat.End() // also after a signal: a session with nothing in it is not kept
	if err != nil && ctx.Err() != nil {
		return &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("interrupted")}
	}
	if err == nil && kept {
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
		AskUser: ap.AskUser,
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
