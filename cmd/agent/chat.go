package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentcli/agent/session"
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
	// current is the engine the chat talks to; /new and /resume replace it
	// (hooks run one at a time, on goroutines of their own).
	var mu sync.Mutex
	current := first
	use := func(en tui.Engine, err error) (tui.Engine, error) {
		if err == nil {
			mu.Lock()
			current = en
			mu.Unlock()
		}
		return en, err
	}
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
				return use(e.newSession())
			},
			Compact: func(ctx context.Context) (string, error) {
				mu.Lock()
				s, ok := current.(*session.Session)
				mu.Unlock()
				if !ok {
					return "", errors.New("nothing to compact")
				}
				var c session.Compacted
				err := s.Compact(ctx, func(ev session.Event) {
					if ev, ok := ev.(session.Compacted); ok {
						c = ev
					}
				})
				if err != nil {
					return "", err
				}
				how := "summarised locally"
				if c.Remote {
					how = "compacted by the server"
				}
				return fmt.Sprintf("history %s: %d items → %d", how, c.Before, c.After), nil
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
				use(sess, nil)
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
