package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentcli/agent/mcp"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
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
	notices := tui.NewNotifier()
	e, err := newEngine(ctx, env, g, engineOptions{
		originator: "agent_cli", cd: f.cd, sandbox: f.sandbox, approval: f.approval, approve: ap.Approve,
		// A server that fails or stops is told once, in the transcript;
		// /mcp shows every server's state.
		mcpNotice: func(n mcp.Notice) {
			if n.State == mcp.Failed || n.State == mcp.Stopped {
				notices.Post("mcp: "+n.String(), true)
			}
		},
		waitForNetwork: true,
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
	// The chat talks to a switchboard whose session /new, /resume, /model
	// and /approvals replace (hooks run one at a time, on goroutines of
	// their own, never during a turn for the first three).
	sw := &switchboard{cur: first}
	var mu sync.Mutex
	current := first
	use := func(en tui.Engine, err error) (tui.Engine, error) {
		if err != nil {
			return nil, err
		}
		mu.Lock()
		current = en
		mu.Unlock()
		sw.set(en)
		return sw, nil
	}
	err = tui.Run(ctx, tui.Options{
		Engine:        sw,
		Messages:      shown,
		Approver:      ap,
		Notices:       notices,
		Model:         e.cfg.Model,
		Provider:      p.Name,
		Transport:     currentTransport(e),
		ContextWindow: e.cfg.ModelContextWindow,
		HistoryPath:   filepath.Join(e.home, "history.jsonl"),
		// [history]: persistence = "none" writes nothing; max_bytes trims.
		HistoryNoSave:   e.cfg.History.Persistence == "none",
		HistoryMaxBytes: e.cfg.History.MaxBytes,
		SessionID: func() string {
			mu.Lock()
			defer mu.Unlock()
			return e.sessionID
		},
		NoColor: env.Getenv("NO_COLOR") != "",
		Dir:     e.ws.cwd,
		Commands: tui.Commands{
			New: func(context.Context) (tui.Engine, error) {
				mu.Lock()
				e.sessionID = newSessionID()
				mu.Unlock()
				return use(e.newSession())
			},
			Model: func(_ context.Context, name string) (tui.Engine, error) {
				mu.Lock()
				s, ok := current.(*session.Session)
				mu.Unlock()
				if !ok || name == "" {
					return nil, errors.New("usage: /model NAME")
				}
				co := e.clientOpts
				co.Model = name
				c := modelclient.New(co)
				e.closers = append(e.closers, func() { c.Close() })
				e.cfg.Model = name
				return use(s.Reconfigure(func(o *session.Options) { o.Client = c }), nil)
			},
			Approvals: func(_ context.Context, policy string) (string, error) {
				if policy == "" {
					return fmt.Sprintf("approval policy: %s (sandbox: %s)", e.ws.policy, e.ws.sandbox.Mode), nil
				}
				switch policy {
				case tools.PolicyUntrusted, tools.PolicyOnRequest, tools.PolicyNever:
				default:
					return "", fmt.Errorf("approval policy %q: want untrusted, on-request or never", policy)
				}
				mu.Lock()
				s, ok := current.(*session.Session)
				mu.Unlock()
				if !ok {
					return "", errors.New("no session")
				}
				ws := e.ws
				ws.policy = policy
				set, err := ws.tools()
				if err != nil {
					return "", err
				}
				e.closers = append(e.closers, func() { set.Close() })
				e.ws = ws
				use(s.Reconfigure(func(o *session.Options) { o.Tools = set }), nil)
				return "approval policy: " + policy, nil
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
				en, _ := use(sess, nil)
				return tui.Resumed{Engine: en, Messages: transcript(ro)}, nil
			},
			MCP: func() []tui.MCPServer { return mcpStatus(e.mcpServers) },
			Status: func() []string {
				lines := []string{
					"config: " + orNone(e.cfg.Path),
					fmt.Sprintf("provider: %s (%s)", p.ID, p.BaseURL),
					"transport: " + currentTransport(e),
					fmt.Sprintf("approval: %s · sandbox: %s", e.ws.policy, e.ws.sandbox.Mode),
					"cwd: " + e.ws.cwd,
					"session: " + sessionLine(e),
				}
				return append(lines, e.notices...)
			},
		},
	})
	if err != nil && ctx.Err() != nil {
		return &exitError{code: exitInterrupted, err: errors.New("interrupted")}
	}
	if err == nil && !e.ephemeral {
		fmt.Fprintf(env.Stdout, "resume with `agent resume %s`\n", e.sessionID)
	}
	return err
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

// sessionLine is /status's session line: the id, and whether it is
// recorded for `agent resume`.
func sessionLine(e *engine) string {
	if e.ephemeral {
		return e.sessionID + " (ephemeral, not recorded)"
	}
	return e.sessionID + " · resume with `agent resume " + e.sessionID + "`"
}

// switchboard is the chat's engine: it forwards each turn to the session
// in use at the time the turn starts.
type switchboard struct {
	mu  sync.Mutex
	cur tui.Engine
}

func (s *switchboard) set(e tui.Engine) {
	s.mu.Lock()
	s.cur = e
	s.mu.Unlock()
}

// Turn implements tui.Engine.
func (s *switchboard) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	return cur.Turn(ctx, input, emit)
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
