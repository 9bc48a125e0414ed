package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/agentcli/agent/headless/appserver"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/tui"
)

// runChatRemote is `agent --remote ws://HOST:PORT`: the chat on a new
// thread of an app-server (agent's or Codex's). Turns, approvals and Esc
// go to the server; the commands the protocol has (/new, /model, /resume,
// /fork, /rename, /status) are its requests, the others say they are not
// available here.
func runChatRemote(ctx context.Context, env Env, g *globalFlags, f *chatFlags) error {
	if !env.StdinTTY || !env.StdoutTTY {
		return usageError(errors.New("the interactive chat needs a terminal; for scripts use `agent exec --remote URL PROMPT`"))
	}
	if len(f.images) > 0 {
		return usageError(errors.New("--remote: --image is not supported with it"))
	}
	if err := f.codex.apply(g, &f.sandbox, &f.approval); err != nil {
		return usageError(err)
	}
	var token string
	if f.remoteTokenEnv != "" {
		if token = env.Getenv(f.remoteTokenEnv); token == "" {
			return usageError(fmt.Errorf("--remote-auth-token-env %s: the variable is empty or unset", f.remoteTokenEnv))
		}
	}
	cwd := f.cd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		cwd = wd
	}
	r, err := appserver.DialRemote(ctx, f.remote, token, "agent_tui", version)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	defer r.Close()
	params := map[string]any{"cwd": cwd}
	for k, v := range map[string]string{"model": g.model, "sandbox": f.sandbox, "approvalPolicy": f.approval} {
		if v != "" {
			params[k] = v
		}
	}
	opened, err := r.StartThread(ctx, params)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("app-server %s: %w", f.remote, err)}
	}
	ap, notices := tui.NewApprover(), tui.NewNotifier()
	chat := appserver.NewRemoteChat(r, opened)
	chat.Approve = ap.Approve
	opts := tui.Options{
		Engine: chat, Prompt: f.prompt, Approver: ap, Notices: notices,
		Output: env.Secrets.Terminal(os.Stdout), Model: opened.Model, Provider: opened.ModelProvider,
		Transport: "app-server " + f.remote, Dir: opened.Cwd, SessionID: func() string { return chat.Thread().Thread.ID },
		NoColor: env.Getenv("NO_COLOR") != "", InTmux: env.Getenv("TMUX") != "", Inline: f.inline,
		Commands: remoteCommands(f.remote, r, chat, params),
	}
	err = tui.Run(ctx, opts)
	if err != nil && ctx.Err() != nil {
		return &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("interrupted")}
	}
	if err == nil {
		fmt.Fprintf(env.Stdout, "thread %s on %s\n", chat.Thread().Thread.ID, f.remote)
	}
	return err
}

// remoteCommands are the chat's commands on an app-server: each one of its
// requests; params are thread/start's, for /new.
func remoteCommands(url string, r *appserver.Remote, chat *appserver.RemoteChat, params map[string]any) tui.Commands {
	resumed := func(opened appserver.ThreadOpened) tui.Resumed {
		chat.Use(opened)
		var msgs []tui.Message
		for _, m := range opened.Messages() {
			msgs = append(msgs, tui.Message{Role: m.Role, Text: m.Text})
		}
		return tui.Resumed{Engine: chat, Messages: msgs}
	}
	return tui.Commands{
		New: func(ctx context.Context) (tui.Engine, error) {
			opened, err := r.StartThread(ctx, params)
			if err != nil {
				return nil, err
			}
			chat.Use(opened)
			return chat, nil
		},
		Model: func(_ context.Context, name, effort string) (tui.Engine, error) {
			chat.SetModel(name, effort)
			return chat, nil
		},
		Models: func(ctx context.Context) ([]tui.ModelChoice, error) {
			ms, err := r.Models(ctx)
			var out []tui.ModelChoice
			for _, m := range ms {
				out = append(out, tui.ModelChoice{Name: m.Name, Description: m.Description, Efforts: m.Efforts})
			}
			return out, err
		},
		Rename: func(ctx context.Context, name string) (string, error) { return name, chat.Rename(ctx, name) },
		Resume: func(ctx context.Context, id string) (tui.Resumed, error) {
			if id == "" {
				return tui.Resumed{}, errors.New("/resume needs a thread id with --remote (/resume opens the picker)")
			}
			opened, err := r.ResumeThread(ctx, id)
			if err != nil {
				return tui.Resumed{}, err
			}
			return resumed(opened), nil
		},
		Sessions: func(ctx context.Context, all bool) ([]tui.SessionInfo, error) {
			cwd := ""
			if !all {
				cwd = chat.Thread().Cwd
			}
			ts, err := r.Threads(ctx, cwd)
			var out []tui.SessionInfo
			for _, t := range ts {
				out = append(out, tui.SessionInfo{ID: t.ID, Title: t.Title, Cwd: t.Cwd, Updated: t.Updated})
			}
			return out, err
		},
		Fork: func(ctx context.Context, keep int) (tui.Resumed, error) {
			opened, err := chat.Fork(ctx, keep)
			if err != nil {
				return tui.Resumed{}, err
			}
			return resumed(opened), nil
		},
		Status: func() []string {
			o := chat.Thread()
			return []string{"app-server: " + url, "thread: " + o.Thread.ID, "directory: " + o.Cwd,
				"approval policy: " + string(o.ApprovalPolicy), "sandbox: " + o.Sandbox.Type}
		},
	}
}
