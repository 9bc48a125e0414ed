package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// Chat is the interactive chat's engine: it forwards each turn to the
// session in use when the turn starts, and applies the chat's commands to
// it: /new and /resume replace the session (never during a turn); /model
// and /approvals change its settings, which the session applies at its
// next turn boundary, so a turn streaming meanwhile is not disturbed. Its
// methods are safe for concurrent use (the commands run on goroutines of
// their own, /status on the UI's).
type Chat struct {
	a *App

	mu  sync.Mutex // guards cur, spec, loggedOut and cur's settings
	cur *Thread
	// spec is how /new, /resume and /fork open a session: the model and
	// permissions /model and /permissions chose.
	spec Spec
	// loggedOut: /logout removed the login the credentials came from.
	loggedOut bool
}

// NewChat returns the chat of the app, on session first, which the chat
// owns from then on ([Chat.End] closes the one in use).
func (a *App) NewChat(first *Thread) *Chat { return &Chat{a: a, cur: first} }

// Current returns the session in use.
func (c *Chat) Current() *Thread {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

// Turn runs a turn on the session in use; it implements the chat's
// engine. It is a turn boundary: the clients a /model replaced are closed
// first, the turn that streamed on them being over.
func (c *Chat) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	cur, err := c.boundary()
	if err != nil {
		return err
	}
	return cur.Turn(ctx, input, emit)
}

// RetryNow ends the running turn's retry wait (the chat's Ctrl+R).
func (c *Chat) RetryNow() { c.Current().RetryNow() }

// Review runs a review turn on the session in use, recorded as a review
// (the chat's /review). It is a turn boundary, as [Chat.Turn].
func (c *Chat) Review(ctx context.Context, target, request string, emit func(session.Event)) error {
	cur, err := c.boundary()
	if err != nil {
		return err
	}
	return cur.Review(ctx, target, request, emit)
}

// boundary closes the tools /permissions replaced and returns the session
// in use: no turn runs on them any more. After /logout it returns the
// [*LoggedOutError] instead.
func (c *Chat) boundary() (*Thread, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur.closeRetired()
	if c.loggedOut {
		return nil, c.loggedOutError()
	}
	return c.cur, nil
}

// New is /new: a new session with the settings in force, used from the
// next turn on.
func (c *Chat) New(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, err := c.a.Open(ctx, c.spec)
	if err != nil {
		return err
	}
	c.use(t)
	return nil
}

// use makes t the session of the next turns; the one it replaces is
// closed (its rollout let go, so it can be resumed again; removed when it
// holds nothing to resume): no turn runs on it.
func (c *Chat) use(t *Thread) {
	if c.cur != nil {
		c.cur.discard()
		c.cur.Close()
	}
	c.cur = t
}

// End is the chat's end: the session in use is closed, and removed when
// it holds nothing to resume (opened and left without a message, as
// `agent resume`'s picker leaves the chat's first session when it is
// cancelled). It reports whether a recorded session remains to resume.
func (c *Chat) End() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.cur.rec != nil && !c.cur.discard()
	c.cur.Close()
	return kept
}

// Resume is /resume: the recorded session id (the latest of the app's
// directory when "") replaces the session in use; its recording is
// returned for the transcript.
func (c *Chat) Resume(ctx context.Context, id string) (*rollout.Rollout, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ent, err := c.a.findEntry(ctx, id, id == "", false)
	if err != nil {
		return nil, err
	}
	if ent.ID == c.cur.ID {
		return nil, errInUse
	}
	sp := c.spec
	sp.From = ent.Path
	t, err := c.a.Open(ctx, sp)
	if err != nil {
		return nil, err
	}
	c.use(t)
	return t.Recorded, nil
}

// SetModel is /model NAME [EFFORT]: the session in use and the later ones
// use model name (with reasoning effort, unless "") from their next turn
// on. The session's client stays: its id, its connection and a fallback
// to HTTPS it made.
func (c *Chat) SetModel(name, effort string) error {
	if name == "" {
		return errors.New("usage: /model NAME")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spec.Model = name
	if effort != "" {
		c.spec.ReasoningEffort = effort
	}
	c.cur.Configure(func(st *session.Settings) {
		st.Sampling.Model = name
		if effort != "" {
			st.Sampling.ReasoningEffort = effort
		}
	})
	if c.cur.telemetry != nil {
		c.cur.telemetry.SetModel(name)
	}
	return nil
}

// SetApprovals is /approvals: it shows the approval policy, or changes it
// from the session's next turn on (and for later sessions), the sandbox
// staying ([Chat.SetPermissions]).
func (c *Chat) SetApprovals(policy string) (string, error) {
	if policy == "" {
		c.mu.Lock()
		defer c.mu.Unlock()
		return fmt.Sprintf("approval policy: %s (sandbox: %s)", c.cur.Settings().ApprovalPolicy, c.cur.ws.Sandbox.Mode), nil
	}
	return c.SetPermissions(policy, "")
}

// Sandbox is the sandbox mode of the chat's commands ([Chat.SetPermissions]
// changes it).
func (c *Chat) Sandbox() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.cur.ws.Sandbox.Mode)
}

// Compact is /compact: the history of the session in use summarised, and
// what became of it.
func (c *Chat) Compact(ctx context.Context) (string, error) {
	cur, err := c.boundary()
	if err != nil {
		return "", err
	}
	var done session.Compacted
	err = cur.Compact(ctx, func(ev session.Event) {
		if ev, ok := ev.(session.Compacted); ok {
			done = ev
		}
	})
	if err != nil {
		return "", err
	}
	how := "summarised locally"
	if done.Remote {
		how = "compacted by the server"
	}
	return fmt.Sprintf("history %s: %d items → %d", how, done.Before, done.After), nil
}

// Rename is /rename NAME: the session in use is named name (trimmed),
// recorded at once, so `agent resume NAME` finds it; it returns the name.
// An ephemeral session cannot be named.
func (c *Chat) Rename(name string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur.rec == nil {
		return "", errors.New("this session is not recorded (--ephemeral), so it cannot be named")
	}
	name, err := rollout.CheckName(name)
	if err != nil {
		return "", err
	}
	if err := c.cur.rec.Rename(name); err != nil && !errors.Is(err, rollout.ErrIndex) {
		return "", err // an index record that is late is found by a scan
	}
	c.cur.name = name
	return name, nil
}

// Name is the name of the session in use, "" when it has none.
func (c *Chat) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.name
}

// ResumeHint is how to reopen the session in use: `agent resume NAME`
// when it is named (the id after it), else `agent resume ID`.
func (c *Chat) ResumeHint() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return resumeHint(c.cur)
}

func resumeHint(s *Thread) string {
	if s.name == "" {
		return "resume with `agent resume " + s.ID + "`"
	}
	return "resume with `agent resume " + tools.ShellJoin([]string{s.name}) + "` (session " + s.ID + ")"
}

// Status is /status: what the session in use runs with.
func (c *Chat) Status() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.a
	st := c.cur.Settings()
	p := a.Provider()
	id := c.cur.ID
	sess := id + " · " + resumeHint(c.cur)
	if c.cur.name != "" {
		sess = fmt.Sprintf("%q · %s", c.cur.name, resumeHint(c.cur))
	}
	if a.ephemeral {
		sess = id + " (ephemeral, not recorded)"
	}
	provLine, model := fmt.Sprintf("provider: %s (%s)", p.ID, p.BaseURL), st.Sampling.Model
	if cur, ok := c.cur.OnFallback(); ok {
		// The session moved along its fallback chain.
		provLine = fmt.Sprintf("provider: %s (fallback; configured: %s, model %s)", cur.Provider, p.ID, st.Sampling.Model)
		model = cur.Model
	}
	lines := []string{
		"config: " + orNone(a.cfg.Path),
		provLine,
		"model: " + model + reasoning(st.Sampling.ReasoningEffort, st.Sampling.ReasoningSummary),
		"transport: " + c.cur.Transport(),
		fmt.Sprintf("approval: %s · sandbox: %s", st.ApprovalPolicy, c.cur.ws.Sandbox.Mode),
		"cwd: " + c.cur.ws.Cwd,
		"session: " + sess,
	}
	return append(lines, a.notices...)
}

// Transport is the transport the session's requests use now: "websocket",
// or "https" (the provider has none, or the session fell back for good).
func (t *Thread) Transport() string {
	if t.main != nil && t.main.WebSocketActive() {
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

// reasoning is what /status adds to the model's name, as Codex's does:
// " (reasoning high, summaries auto)", the unset ones left out.
func reasoning(effort, summary string) string {
	var parts []string
	if effort != "" {
		parts = append(parts, "reasoning "+effort)
	}
	if summary != "" {
		parts = append(parts, "summaries "+summary)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
