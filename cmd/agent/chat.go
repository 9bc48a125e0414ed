package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentcli/agent/tui"
)

// chatFlags are the interactive chat's own flags.
type chatFlags struct {
	sandbox, cd, approval string
}

// runChat opens the interactive chat on a new session.
func runChat(ctx context.Context, env Env, g *globalFlags, f *chatFlags) error {
	return runChatOn(ctx, env, g, f, func(e *engine) (tui.Engine, []tui.Message, error) {
		s, err := e.newSession()
		return s, nil, err
	})
}

// runChatOn opens the interactive chat on the session start returns
// (with the messages to show first, for a resumed one).
func runChatOn(ctx context.Context, env Env, g *globalFlags, f *chatFlags, start func(*engine) (tui.Engine, []tui.Message, error)) error {
	if !env.StdinTTY || !env.StdoutTTY {
		return usageError(errors.New("the interactive chat needs a terminal; for scripts use `agent exec PROMPT`"))
	}
	ap := tui.NewApprover()
	e, err := newEngine(ctx, env, g, engineOptions{
		originator: "agent_cli", cd: f.cd, sandbox: f.sandbox, approval: f.approval, approve: ap.Approve,
	})
	if err != nil {
		return err
	}
	defer e.Close()
	first, shown, err := start(e)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return &exitError{code: exitFailed, err: err}
	}
	p := e.client.Provider()
	err = tui.Run(ctx, tui.Options{
		Engine:        first,
		Messages:      shown,
		Approver:      ap,
		Model:         e.cfg.Model,
		Provider:      p.Name,
		Transport:     currentTransport(e),
		ContextWindow: e.cfg.ModelContextWindow,
		HistoryPath:   filepath.Join(e.home, "history.jsonl"),
		NoColor:       env.Getenv("NO_COLOR") != "",
		Dir:           e.ws.cwd,
		Commands: tui.Commands{
			New: func(context.Context) (tui.Engine, error) {
				e.sessionID = newSessionID()
				return e.newSession()
			},
			Resume: func(_ context.Context, id string) (tui.Resumed, error) {
				path, err := e.findSession(id, id == "", false)
				if err != nil {
					return tui.Resumed{}, err
				}
				sess, ro, err := e.resume(path)
				if err != nil {
					return tui.Resumed{}, err
				}
				return tui.Resumed{Engine: sess, Messages: transcript(ro)}, nil
			},
			Status: func() []string {
				lines := []string{
					"config: " + orNone(e.cfg.Path),
					fmt.Sprintf("provider: %s (%s)", p.ID, p.BaseURL),
					"transport: " + currentTransport(e),
					fmt.Sprintf("approval: %s · sandbox: %s", e.ws.policy, e.ws.sandbox.Mode),
					"cwd: " + e.ws.cwd,
				}
				return append(lines, e.notices...)
			},
		},
	})
	if err != nil && ctx.Err() != nil {
		return &exitError{code: exitInterrupted, err: errors.New("interrupted")}
	}
	return err
}

func currentTransport(e *engine) string {
	if e.client.WebSocketActive() {
		return "websocket"
	}
	return "https"
}

func orNone(s string) string {
	if s == "" {
		return "(none: defaults)"
	}
	return s
}

// timeNow is the wall clock for new recordings.
func timeNow() time.Time { return time.Now() }
