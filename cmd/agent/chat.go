package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/pflag"

	"github.com/agentcli/agent/headless/exitcode"
	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
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
	return runChatOn(ctx, env, g, f, func(e *engine) (*session.Session, string, []tui.Message, error) {
		s, err := e.newSession()
		return s, e.sessionID, nil, err
	})
}

// runChatOn opens the interactive chat on the session start returns, with
// its id and the messages to show first (for a resumed one).
func runChatOn(ctx context.Context, env Env, g *globalFlags, f *chatFlags,
	start func(*engine) (*session.Session, string, []tui.Message, error)) error {
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
	images, err := imageURLs(f.images)
	if err != nil {
		return usageError(err)
	}
	ap := tui.NewApprover()
	notices := tui.NewNotifier()
	e, err := newEngine(ctx, env, g, engineOptions{
		originator: "agent_cli", cd: f.cd, sandbox: f.sandbox, approval: f.approval, approve: ap.Approve,
		addDirs: addDirs,
		// A server that fails or stops is told once, in the transcript;
		// /mcp shows every server's state.
		mcpNotice: func(n mcp.Notice) {
			if n.State == mcp.Failed || n.State == mcp.Stopped {
				notices.Post("mcp: "+n.String(), true)
			}
		},
		waitForNetwork: true,
		// The chat owns the terminal: notices go to its transcript.
		notice: func(msg string) { notices.Post(msg, true) },
	})
	if err != nil {
		return err
	}
	defer e.Close()
	if e.where.Codex() {
		fmt.Fprintln(env.Stderr, "agent: "+e.where.Describe()) // once, before the chat owns the terminal
	}
	first, id, shown, err := start(e)
	if err != nil {
		var ee *exitcode.Error
		if errors.As(err, &ee) {
			return err
		}
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	first.AttachImages(images...)
	sw := newSwitchboard(e, first, id)
	screen := redactedTTY{secrets: env.Secrets, f: os.Stdout}
	opts := tui.Options{
		Output:        screen,
		Engine:        sw,
		Prompt:        f.prompt,
		Messages:      shown,
		Approver:      ap,
		Notices:       notices,
		Model:         e.cfg.Model,
		Provider:      e.client.Provider().Name,
		Transport:     transportName(first.Settings().Client),
		ContextWindow: e.cfg.ModelContextWindow,
		HistoryPath:   filepath.Join(e.home, "history.jsonl"),
		// [history]: persistence = "none" writes nothing; max_bytes trims.
		HistoryNoSave:   e.cfg.History.Persistence == "none",
		HistoryMaxBytes: e.cfg.History.MaxBytes,
		SessionID: func() string {
			_, id := sw.current()
			return id
		},
		NoColor:  env.Getenv("NO_COLOR") != "",
		Warnings: warningLines(e.cfg.Warnings),
		InTmux:   env.Getenv("TMUX") != "",
		Dir:      e.ws.cwd,
		Commands: tui.Commands{
			New: func(context.Context) (tui.Engine, error) {
				sess, id, err := sw.startNew()
				if err != nil {
					return nil, err
				}
				return sw.use(sess, id), nil
			},
			Model: func(_ context.Context, name, effort string) (tui.Engine, error) {
				if err := sw.setModel(name, effort); err != nil {
					return nil, err
				}
				return sw, nil
			},
			Approvals: func(_ context.Context, policy string) (string, error) { return sw.setApprovals(policy) },
			Compact: func(ctx context.Context) (string, error) {
				s, _ := sw.current()
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
				return tui.Resumed{Engine: sw.use(sess, ro.Meta.ID), Messages: transcript(ro)}, nil
			},
			MCP: func() []tui.MCPServer { return mcpStatus(e.mcpServers) },
			History: func() []transport.Item {
				s, _ := sw.current()
				return s.History()
			},
			Background: func() []tools.Background { return execTool(e).Running() },
			Stop:       func(id int) int { return execTool(e).Stop(id) },
			Status:     sw.status,
		},
		OpenResume: f.pickResume,
	}
	sw.pickerHooks(&opts.Commands, &opts)
	opts.Commands.Fork = sw.forkHook(env.now)
	err = tui.Run(ctx, opts)
	if err != nil && ctx.Err() != nil {
		return &exitcode.Error{Code: exitcode.Interrupted, Err: errors.New("interrupted")}
	}
	if _, id := sw.current(); err == nil && !e.ephemeral {
		fmt.Fprintf(env.Stdout, "resume with `agent resume %s`\n", id)
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

// switchboard is the chat's engine: it forwards each turn to the session
// in use when the turn starts, and applies the chat's commands to it: /new
// and /resume replace the session (never during a turn); /model and
// /approvals change its settings, which the session applies at its next
// turn boundary, so a turn streaming meanwhile is not disturbed. Its
// methods are safe for concurrent use (the commands run on goroutines of
// their own, /status on the UI's).
type switchboard struct {
	e *engine

	mu  sync.Mutex // guards the fields below and the engine's settings
	cur *session.Session
	id  string // cur's session id
}

func newSwitchboard(e *engine, first *session.Session, id string) *switchboard {
	return &switchboard{e: e, cur: first, id: id}
}

// use makes sess (whose id is id) the session of the next turns.
func (s *switchboard) use(sess *session.Session, id string) *switchboard {
	s.mu.Lock()
	if s.id != id {
		s.e.release(s.id) // no turn runs: the chat leaves it for good
	}
	s.cur, s.id = sess, id
	s.mu.Unlock()
	return s
}

// current returns the session in use and its id.
func (s *switchboard) current() (*session.Session, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur, s.id
}

// startNew starts a new session with the settings in force.
func (s *switchboard) startNew() (*session.Session, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.e.sessionID = newSessionID()
	sess, err := s.e.newSession()
	return sess, s.e.sessionID, err
}

// Turn implements tui.Engine.
func (s *switchboard) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	cur, _ := s.current()
	return cur.Turn(ctx, input, emit)
}

// RetryNow implements tui.Engine.
func (s *switchboard) RetryNow() {
	cur, _ := s.current()
	cur.RetryNow()
}

// setModel switches the model: a client for it, used from the session's
// next turn on (and by later sessions).
func (s *switchboard) setModel(name, effort string) error {
	if name == "" {
		return errors.New("usage: /model NAME")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	co := s.e.clientOpts
	co.Model = name
	if effort != "" {
		co.ReasoningEffort = effort
	}
	c := modelclient.New(co)
	s.e.closers = append(s.e.closers, func() { c.Close() })
	s.e.cfg.Model, s.e.clientOpts, s.e.opts.Client, s.e.client = name, co, c, c
	s.cur.Configure(func(st *session.Settings) { st.Client = c })
	return nil
}

// setApprovals shows the approval policy, or changes it from the
// session's next turn on (and for later sessions).
func (s *switchboard) setApprovals(policy string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if policy == "" {
		return fmt.Sprintf("approval policy: %s (sandbox: %s)", s.cur.Settings().ApprovalPolicy, s.e.ws.sandbox.Mode), nil
	}
	note := ""
	for _, p := range tui.Presets() {
		if p.Name != policy {
			continue
		}
		// The sandbox is set when the session's tools are made: a preset
		// with another one changes the policy and says how to get it.
		policy = p.Policy
		if p.Sandbox != string(s.e.ws.sandbox.Mode) {
			note = fmt.Sprintf("; the sandbox stays %s in this chat: start agent with -s %s for %s", s.e.ws.sandbox.Mode, p.Sandbox, p.Label)
		}
	}
	policy, err := tools.ParsePolicy(policy)
	if err != nil {
		return "", err
	}
	s.e.ws.policy, s.e.opts.ApprovalPolicy = policy, policy
	s.cur.Configure(func(st *session.Settings) { st.ApprovalPolicy = policy })
	return "approval policy: " + policy + note, nil
}

// status is /status: what the session in use runs with.
func (s *switchboard) status() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.e
	st := s.cur.Settings()
	p := st.Client.Provider()
	session := s.id + " · resume with `agent resume " + s.id + "`"
	if e.ephemeral {
		session = s.id + " (ephemeral, not recorded)"
	}
	provLine, model := fmt.Sprintf("provider: %s (%s)", p.ID, p.BaseURL), e.cfg.Model
	if cur, ok := s.cur.OnFallback(); ok {
		// The session moved along its fallback chain.
		provLine = fmt.Sprintf("provider: %s (fallback; configured: %s, model %s)", cur.Provider, p.ID, st.Client.Model())
		model = cur.Model
	}
	lines := []string{
		"config: " + orNone(e.cfg.Path),
		provLine,
		"model: " + model,
		"transport: " + transportName(st.Client),
		fmt.Sprintf("approval: %s · sandbox: %s", st.ApprovalPolicy, e.ws.sandbox.Mode),
		"cwd: " + e.ws.cwd,
		"session: " + session,
	}
	return append(lines, e.notices...)
}

// transportName is the transport c uses now.
func transportName(c *modelclient.Client) string {
	if c.WebSocketActive() {
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

// redactedTTY is the terminal the chat draws on, with the credentials
// agent holds masked in every frame; it is still the terminal (Fd), so
// the chat can size it and set its modes. Each write is masked whole and
// passed on at once: holding back the end of a frame would leave it
// unfinished on screen until the next one.
type redactedTTY struct {
	secrets *redact.Set
	f       *os.File
}

func (t redactedTTY) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.f, t.secrets.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t redactedTTY) Read(p []byte) (int, error) { return t.f.Read(p) }
func (t redactedTTY) Close() error               { return nil }
func (t redactedTTY) Fd() uintptr                { return t.f.Fd() }
