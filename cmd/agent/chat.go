package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tui"
)

// chatFlags are the interactive chat's own flags.
type chatFlags struct {
	sandbox, cd, approval string
}

// runChat opens the interactive chat.
func runChat(ctx context.Context, env Env, g *globalFlags, f *chatFlags) error {
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
	p := e.client.Provider()
	transport := "https"
	if e.client.WebSocketActive() {
		transport = "websocket (falls back to https)"
	}
	var current *session.Session
	mk := func() *session.Session {
		current = e.newSession()
		return current
	}
	err = tui.Run(ctx, tui.Options{
		Engine:        mk(),
		Approver:      ap,
		Model:         e.cfg.Model,
		Provider:      p.Name,
		Transport:     transport,
		ContextWindow: e.cfg.ModelContextWindow,
		HistoryPath:   filepath.Join(e.home, "history.jsonl"),
		NoColor:       env.Getenv("NO_COLOR") != "",
		Dir:           e.ws.cwd,
		Commands: tui.Commands{
			New: func(context.Context) (tui.Engine, error) { return mk(), nil },
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
