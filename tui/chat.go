package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/internal/subagent"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// Chat is the chat's engine on an app: the session in use, which each
// turn is forwarded to when it starts, and the chat's commands on it:
// /new, /resume and /fork replace the session (never during a turn),
// opening one with the settings in force; /model, /permissions, /rename,
// /ps and /stop are the session's own operations ([app.Thread]), which a
// turn streaming meanwhile does not see before its end. Its methods are
// safe for concurrent use (the commands run on goroutines of their own,
// /status on the UI's).
type Chat struct {
	a *app.App

	mu  sync.Mutex // guards cur, spec and loggedOut
	cur *app.Thread
	// spec is how /new, /resume and /fork open a session: the model and
	// permissions /model and /permissions chose.
	spec app.Spec
	// loggedOut is how to log in again, once /logout removed the login
	// the credentials came from; "" while it has not.
	loggedOut string
	// tier is the service tier /fast chose for this and later sessions;
	// "" while /fast was not used (the config's tier stays).
	tier *string
	// watch hears the subagents of the session in use ([Chat.WatchAgents]);
	// unwatch stops hearing those of the one before.
	watch   func(subagent.Info)
	unwatch func()
}

// WatchAgents calls f at every change of a subagent of the session in
// use, and of those /new, /resume and /fork use after it, until stop.
func (c *Chat) WatchAgents(f func(subagent.Info)) (stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watch = f
	c.rewatch()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.watch = nil
		c.rewatch()
	}
}

// rewatch moves the watch to the session in use; c.mu is held.
func (c *Chat) rewatch() {
	if c.unwatch != nil {
		c.unwatch()
		c.unwatch = nil
	}
	if c.watch != nil && c.cur != nil && c.cur.Agents != nil {
		c.unwatch = c.cur.Agents.Watch(c.watch)
	}
}

// NewChat returns the chat on app a, on session first, which the chat
// owns from then on ([Chat.End] closes the one in use).
func NewChat(a *app.App, first *app.Thread) *Chat { return &Chat{a: a, cur: first} }

// Current returns the session in use.
func (c *Chat) Current() *app.Thread {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

// LoggedOutError is what a turn of the chat returns after /logout removed
// the login its credentials came from: no request is sent, and it says
// how to log in again.
type LoggedOutError struct {
	// Hint is how to get credentials: `agent login`, or the variable to
	// export.
	Hint string
	// ID is the session to resume once logged in.
	ID string
}

func (e *LoggedOutError) Error() string {
	return fmt.Sprintf("not logged in (/logout removed the login): %s in a shell, then `agent resume %s` continues this session", e.Hint, e.ID)
}

// inUse returns the session in use, or after /logout the
// [*LoggedOutError].
func (c *Chat) inUse() (*app.Thread, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loggedOut != "" {
		return nil, &LoggedOutError{Hint: c.loggedOut, ID: c.cur.ID}
	}
	return c.cur, nil
}

// Turn runs a turn on the session in use; it implements the chat's
// [Engine].
func (c *Chat) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	cur, err := c.inUse()
	if err != nil {
		return err
	}
	if err := cur.Turn(ctx, input, emit); err != nil {
		return err
	}
	return cur.Pursue(ctx, emit) // an active goal goes on, within its budgets
}

// Goal is /goal: with no argument it shows the session's goal; "pause",
// "resume" and "clear" act on it; anything else sets it as the objective.
// It returns the line to show and the message to send (the objective, or
// a nudge to go on) to start pursuing it.
func (c *Chat) Goal(arg string) (info, send string, err error) {
	cur := c.Current()
	switch arg {
	case "":
		g := cur.Goal()
		if g == nil {
			return "No goal. /goal OBJECTIVE sets one.", "", nil
		}
		return goalLine(*g), "", nil
	case "pause", "resume":
		st := session.GoalPaused
		if arg == "resume" {
			st = session.GoalActive
		}
		g, err := cur.SetGoalStatus(st)
		if err != nil {
			return "", "", err
		}
		if arg == "resume" {
			return goalLine(g), "Continue working toward the goal.", nil
		}
		return goalLine(g), "", nil
	case "clear":
		if !cur.ClearGoal() {
			return "No goal to clear.", "", nil
		}
		return "Goal cleared.", "", nil
	}
	g, err := cur.SetGoal(arg, 0)
	if err != nil {
		return "", "", err
	}
	return goalLine(g), arg, nil
}

// goalLine is a goal in one line: objective, status and what it spent of
// each budget.
func goalLine(g session.Goal) string {
	line := fmt.Sprintf("Goal (%s): %s · %d/%d tokens · %d/%d turns · %s/%s", g.Status, g.Objective,
		g.TokensUsed, g.TokenBudget, g.TurnsUsed, g.TurnBudget, g.TimeUsed.Round(time.Second), g.TimeBudget)
	if g.Reason != "" {
		line += " · " + g.Reason
	}
	return line
}

// RetryNow ends the running turn's retry wait (the chat's Ctrl+R).
func (c *Chat) RetryNow() { c.Current().RetryNow() }

// Review runs a review turn on the session in use, recorded as a review
// (the chat's /review).
func (c *Chat) Review(ctx context.Context, target, request string, emit func(session.Event)) error {
	cur, err := c.inUse()
	if err != nil {
		return err
	}
	return cur.Review(ctx, target, request, emit)
}

// New is /new: a new session with the settings in force, used from the
// next turn on.
func (c *Chat) New(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	sp := c.spec
	sp.Clear = true // SessionStart's source is "clear", as Codex's /new
	t, err := c.a.Open(ctx, sp)
	if err != nil {
		return err
	}
	c.use(t)
	return nil
}

// use makes t the session of the next turns; the one it replaces ends
// (its rollout let go, so it can be resumed again; removed when it holds
// nothing to resume): no turn runs on it.
func (c *Chat) use(t *app.Thread) {
	if c.cur != nil {
		c.cur.End()
	}
	c.cur = t
	c.rewatch()
	if c.tier != nil {
		tier := *c.tier
		t.Configure(func(st *session.Settings) { st.Sampling.ServiceTier = tier })
	}
}

// SetServiceTier is /fast: the service tier ("priority", or "" for the
// provider's default) of the session in use from its next turn on, and
// of the sessions /new, /resume and /fork open later.
func (c *Chat) SetServiceTier(tier string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tier = &tier
	c.cur.Configure(func(st *session.Settings) { st.Sampling.ServiceTier = tier })
}

// ServiceTier is the service tier of the session in use ("" for the
// provider's default).
func (c *Chat) ServiceTier() string { return c.Current().Settings().Sampling.ServiceTier }

// End is the chat's end: the session in use ends ([app.Thread.End]). It
// reports whether a recorded session remains to resume.
func (c *Chat) End() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur.End()
}

// Resume is /resume: the recorded session id (the latest of the app's
// directory when "") replaces the session in use; its recording is
// returned for the transcript.
func (c *Chat) Resume(ctx context.Context, id string) (*rollout.Rollout, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ent, err := c.a.FindSession(ctx, id, id == "", false)
	if err != nil {
		return nil, err
	}
	sp := c.spec
	sp.From = ent.Path
	return c.open(ctx, sp)
}

// Fork is /fork and Esc Esc: a new session, recorded as forked from the
// one in use, holding its first keep turns ([app.AllTurns]: all), made
// the session of the next turns. Its recording is returned for the
// transcript.
func (c *Chat) Fork(ctx context.Context, keep int) (*rollout.Rollout, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ent, err := c.a.FindSession(ctx, c.cur.ID, false, false)
	if err != nil {
		return nil, err
	}
	sp := c.spec
	sp.From, sp.Fork, sp.ForkTurns = ent.Path, true, keep
	return c.open(ctx, sp)
}

// open opens sp's session and uses it; c.mu is held.
func (c *Chat) open(ctx context.Context, sp app.Spec) (*rollout.Rollout, error) {
	t, err := c.a.Open(ctx, sp)
	if err != nil {
		return nil, err
	}
	c.use(t)
	return t.Recorded, nil
}

// SetModel is /model NAME [EFFORT]: the session in use and the later ones
// use model name (with reasoning effort, unless "") from their next turn
// on ([app.Thread.SetModel]).
func (c *Chat) SetModel(name, effort string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.cur.SetModel(name, effort); err != nil {
		return err
	}
	c.spec.Model = name
	if effort != "" {
		c.spec.ReasoningEffort = effort
	}
	return nil
}

// SetApprovals is /approvals: it shows the approval policy, or changes it
// from the session's next turn on (and for later sessions), the sandbox
// staying ([Chat.SetPermissions]).
func (c *Chat) SetApprovals(policy string) (string, error) {
	if policy == "" {
		cur := c.Current()
		return fmt.Sprintf("approval policy: %s (sandbox: %s)", cur.Settings().ApprovalPolicy, cur.Workspace().Sandbox.Mode), nil
	}
	return c.SetPermissions(policy, "")
}

// SetPermissions is /permissions with a preset: the approval policy and
// sandbox mode ("" keeps it) of the session in use from its next turn on
// ([app.Thread.SetPermissions]) and of later sessions.
func (c *Chat) SetPermissions(policy, mode string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	line, err := c.cur.SetPermissions(policy, mode)
	if err != nil {
		return "", err
	}
	ws := c.cur.Workspace()
	c.spec.ApprovalPolicy, c.spec.Sandbox = ws.Policy, string(ws.Sandbox.Mode)
	return line, nil
}

// Sandbox is the sandbox mode of the chat's commands.
func (c *Chat) Sandbox() string { return string(c.Current().Workspace().Sandbox.Mode) }

// Compact is /compact: the history of the session in use summarised, and
// what became of it.
func (c *Chat) Compact(ctx context.Context) (string, error) {
	cur, err := c.inUse()
	if err != nil {
		return "", err
	}
	var done session.Compacted
	err = cur.Compact(ctx, func(ev session.Event) {
		if ev, ok := ev.(session.Compacted); ok {
			done = ev
		}
	})
	if errors.Is(err, session.ErrNothingToCompact) {
		return "Nothing to compact: the history holds only the context, your messages and the latest steps.", nil
	}
	if err != nil {
		return "", err
	}
	how := "summarised locally"
	if done.Remote {
		how = "compacted by the server"
	}
	return fmt.Sprintf("history %s: %d items → %d", how, done.Before, done.After), nil
}

// Side is /side: question asked aside from the session in use
// ([session.Session.Side]).
func (c *Chat) Side(ctx context.Context, earlier []transport.Item, question string) (string, []transport.Item, error) {
	cur, err := c.inUse()
	if err != nil {
		return "", nil, err
	}
	return cur.Side(ctx, earlier, question, func(session.Event) {})
}

// Rename is /rename NAME ([app.Thread.Rename]).
func (c *Chat) Rename(name string) (string, error) { return c.Current().Rename(name) }

// Name is the name of the session in use, "" when it has none.
func (c *Chat) Name() string { return c.Current().Name() }

// ResumeHint is how to reopen the session in use: `agent resume NAME`
// when it is named (the id after it), else `agent resume ID`.
func (c *Chat) ResumeHint() string {
	cur := c.Current()
	if name := cur.Name(); name != "" {
		return "resume with `agent resume " + tools.ShellJoin([]string{name}) + "` (session " + cur.ID + ")"
	}
	return "resume with `agent resume " + cur.ID + "`"
}

// Status is /status: what the session in use runs with.
func (c *Chat) Status() []string { return c.Current().Status() }

// Logout is /logout ([app.App.Logout]): when the chat's credentials came
// from the login it removed, every later turn fails with a
// [*LoggedOutError] instead of sending the login it still holds in
// memory.
func (c *Chat) Logout(ctx context.Context) (string, error) {
	line, hint, err := c.a.Logout(ctx)
	if err != nil || hint == "" {
		return line, err
	}
	c.mu.Lock()
	c.loggedOut = hint
	c.mu.Unlock()
	return line + "; " + hint + " to send another message", nil
}

// Undo is /undo: the latest turn's files put back as they were before it
// (or, right after /compact, the history from before the compaction).
func (c *Chat) Undo(ctx context.Context) (string, error) {
	cur, err := c.inUse()
	if err != nil {
		return "", err
	}
	var msg string
	err = cur.Undo(ctx, 0, func(ev session.Event) {
		switch ev := ev.(type) {
		case session.FilesUndone:
			msg = ev.String()
		case session.CompactionUndone:
			msg = fmt.Sprintf("compaction undone: the history is back to its %d items from before it", ev.After)
		}
	})
	return msg, err
}

// RewindTurns are the turns /rewind offers, oldest first.
func (c *Chat) RewindTurns() []RewindTurn {
	var out []RewindTurn
	for _, t := range c.Current().TurnList() {
		if t.RolledBack {
			continue
		}
		out = append(out, RewindTurn{N: t.N, Prompt: t.Prompt, Files: t.Checkpoint != nil && !t.Undone})
	}
	return out
}

// Rewind is /rewind's choice: back to before turn n, its files and the
// later turns', the conversation, or both.
func (c *Chat) Rewind(ctx context.Context, n int, files, conversation bool) (string, error) {
	cur, err := c.inUse()
	if err != nil {
		return "", err
	}
	var lines []string
	err = cur.RewindTo(ctx, n, files, conversation, func(ev session.Event) {
		switch ev := ev.(type) {
		case session.FilesUndone:
			lines = append(lines, ev.String())
		case session.RolledBack:
			lines = append(lines, fmt.Sprintf("conversation rewound to before turn %d: the next message continues from there (%d turns left out, kept in the session file)", n, ev.Turns))
		}
	})
	if err == nil && len(lines) == 0 {
		lines = append(lines, fmt.Sprintf("turn %d and later changed no files to restore", n))
	}
	return strings.Join(lines, "\n"), err
}
