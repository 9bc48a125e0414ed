package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/sandbox"
)

// The operations a front end applies to an open session (the chat's
// /model, /permissions, /rename, /ps, /stop, /status; an app-server's
// thread requests). Each is safe to call from any goroutine, also while a
// turn runs: what changes the session's settings applies at its next
// turn boundary.

// Turn runs a turn ([session.Session.Turn]); it is a turn boundary: the
// tools a new sandbox replaced are closed first, the turn that ran on them
// being over.
func (t *Thread) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	t.closeRetired()
	return t.Session.Turn(ctx, input, emit)
}

// Review runs a review turn ([session.Session.Review]), a turn boundary as
// [Thread.Turn].
func (t *Thread) Review(ctx context.Context, target, request string, emit func(session.Event)) error {
	t.closeRetired()
	return t.Session.Review(ctx, target, request, emit)
}

// SetModel makes model name (with reasoning effort, unless "") the
// session's from its next turn on. The session's client stays: its id,
// its connection and a fallback to HTTPS it made.
func (t *Thread) SetModel(name, effort string) error {
	if name == "" {
		return errors.New("usage: /model NAME")
	}
	t.Configure(func(st *session.Settings) {
		st.Sampling.Model = name
		if effort != "" {
			st.Sampling.ReasoningEffort = effort
		}
	})
	if t.telemetry != nil {
		t.telemetry.SetModel(name)
	}
	return nil
}

// SetPermissions sets the approval policy and the sandbox of the model's
// commands and patches (mode; "" keeps it) from the session's next turn
// on. A sandbox other than the one in force means new tools: the
// workspace's, built again under it (the agent home still hidden and
// read-only), with the MCP servers' tools; the tools they replace are
// closed at the next turn boundary, ending the commands left running under
// the old sandbox. The model is told of the change in an environment
// context added to the history then. It returns the line that says so.
func (t *Thread) SetPermissions(policy, mode string) (string, error) {
	policy, err := tools.ParsePolicy(policy)
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.ws.Sandbox.Mode
	if t.planFrom != "" {
		m = t.planFrom
	}
	if mode != "" {
		if m, err = sandbox.ParseMode(mode); err != nil {
			return "", err
		}
	}
	inForce := m
	if t.planFrom != "" {
		// Plan mode keeps the read-only sandbox; m is what it returns to.
		t.planFrom, inForce = m, sandbox.ReadOnly
	}
	ended, err := t.useSandbox(policy, inForce)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("approval policy: %s · sandbox: %s, from the next turn%s", policy, m, ended), nil
}

// useSandbox makes the approval policy and sandbox mode m the session's
// from its next turn on; t.mu is held. A sandbox other than the one in
// force means new tools (see [Thread.SetPermissions]); it returns what
// that ends, for the line saying so.
func (t *Thread) useSandbox(policy string, m sandbox.Mode) (ended string, err error) {
	ws := t.ws
	ws.Policy, ws.Sandbox.Mode = policy, m
	set := t.tools
	if m != t.ws.Sandbox.Mode {
		if set, err = ws.tools(); err != nil {
			return "", err
		}
		t.addSources(set)
		old := t.tools
		if n := len(execOf(old).Running()); n > 0 {
			ended = fmt.Sprintf("; %d background commands started under %s end at the next turn", n, t.ws.Sandbox.Mode)
		}
		t.retired = append(t.retired, old)
		t.closers = append(t.closers, func() { set.Close() })
	}
	t.ws, t.tools = ws, set
	env := ws.environment(t.a.env.Time())
	t.Configure(func(st *session.Settings) {
		st.ApprovalPolicy, st.Tools = policy, set
		st.Context = append(st.Context[:0:0], env)
	})
	return ended, nil
}

// SetMode makes mode (Codex's collaboration mode: "plan" or "default")
// the session's from its next turn on, and returns the line that says so.
// Plan mode runs the model's commands under a read-only sandbox (the
// session refuses patches and escalations itself, [session.ModePlan]);
// leaving it restores the sandbox in force before. The same mode again
// changes nothing.
func (t *Thread) SetMode(mode string) (string, error) {
	m, ok := session.ParseMode(mode)
	if !ok {
		return "", fmt.Errorf("collaboration mode %q: want plan or default", mode)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if m == t.Session.Mode() {
		if m == session.ModePlan {
			return "Plan mode is on already.", nil
		}
		return "Plan mode is off already.", nil
	}
	if err := t.modeSandbox(m); err != nil {
		return "", err
	}
	t.Configure(func(st *session.Settings) { st.Mode = m })
	if m == session.ModePlan {
		return "Plan mode on: the next turns plan without changing anything (read-only sandbox, patches refused).", nil
	}
	return fmt.Sprintf("Plan mode off: the next turns may change files again (sandbox: %s).", t.ws.Sandbox.Mode), nil
}

// modeSandbox puts the sandbox of collaboration mode m in force: read-only
// for plan mode (the one in force kept to return to), the one kept for
// the default mode; t.mu is held.
func (t *Thread) modeSandbox(m session.Mode) error {
	policy := t.ws.Policy
	switch {
	case m == session.ModePlan && t.planFrom == "":
		from := t.ws.Sandbox.Mode
		if _, err := t.useSandbox(policy, sandbox.ReadOnly); err != nil {
			return err
		}
		t.planFrom = from
	case m != session.ModePlan && t.planFrom != "":
		if _, err := t.useSandbox(policy, t.planFrom); err != nil {
			return err
		}
		t.planFrom = ""
	}
	return nil
}

// Rename names the session name (trimmed), recorded at once, so `agent
// resume NAME` finds it; it returns the name. An ephemeral session cannot
// be named.
func (t *Thread) Rename(name string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rec == nil {
		return "", errors.New("this session is not recorded (--ephemeral), so it cannot be named")
	}
	name, err := rollout.CheckName(name)
	if err != nil {
		return "", err
	}
	if err := t.rec.Rename(name); err != nil && !errors.Is(err, rollout.ErrIndex) {
		return "", err // an index record that is late is found by a scan
	}
	t.name = name
	return name, nil
}

// Name is the session's name, "" when it has none.
func (t *Thread) Name() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.name
}

// resumeHint is how to reopen the session: `agent resume NAME` when it is
// named (the id after it), else `agent resume ID`; t.mu is held.
func (t *Thread) resumeHint() string {
	if t.name == "" {
		return "resume with `agent resume " + t.ID + "`"
	}
	return "resume with `agent resume " + tools.ShellJoin([]string{t.name}) + "` (session " + t.ID + ")"
}

// Background lists the commands the model left running (/ps).
func (t *Thread) Background() []tools.Background { return execOf(t.Tools()).Running() }

// Stop ends the background command id (every one when id is negative) and
// says how many it ended (/stop).
func (t *Thread) Stop(id int) int { return execOf(t.Tools()).Stop(id) }

// execOf is set's exec_command tool; a set without one gives an Exec with
// none running.
func execOf(set *tools.Set) *tools.Exec {
	if t, ok := set.Lookup("exec_command"); ok {
		if ex, ok := t.(*tools.Exec); ok {
			return ex
		}
	}
	return tools.NewExec(tools.ExecOptions{})
}

// End closes the session, first removing its recording when it holds
// nothing to resume (opened and left without a message); it reports
// whether a recorded session remains to resume.
func (t *Thread) End() bool {
	t.mu.Lock()
	kept := t.rec != nil
	if kept {
		gone, err := t.rec.Discard()
		kept = !gone || err != nil
	}
	t.mu.Unlock()
	t.Close()
	return kept
}

// Status is /status: what the session runs with.
func (t *Thread) Status() []string {
	a := t.a
	st := t.Settings()
	p := a.Provider()
	t.mu.Lock()
	ws, id := t.ws, t.ID
	sess := id + " · " + t.resumeHint()
	if t.name != "" {
		sess = fmt.Sprintf("%q · %s", t.name, t.resumeHint())
	}
	t.mu.Unlock()
	if t.rec == nil {
		sess = id + " (ephemeral, not recorded)"
	}
	provLine, model := fmt.Sprintf("provider: %s (%s)", p.ID, p.BaseURL), st.Sampling.Model
	if cur, ok := t.OnFallback(); ok {
		// The session moved along its fallback chain.
		provLine = fmt.Sprintf("provider: %s (fallback; configured: %s, model %s)", cur.Provider, p.ID, st.Sampling.Model)
		model = cur.Model
	}
	lines := []string{
		"config: " + orNone(a.cfg.Path),
		provLine,
		"model: " + model + reasoning(st.Sampling.ReasoningEffort, st.Sampling.ReasoningSummary),
		"transport: " + t.Transport(),
		fmt.Sprintf("approval: %s · sandbox: %s", st.ApprovalPolicy, ws.Sandbox.Mode),
		"cwd: " + ws.Cwd,
		"session: " + sess,
		"cost: " + costLine(t.Cost(), model),
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

// costLine is /status's cost: the session's in USD, or why it is not
// known.
func costLine(usd *float64, model string) string {
	if usd == nil {
		return fmt.Sprintf("unknown (no price for %s in the model catalogue: add [models.%q] cost)", model, model)
	}
	return fmt.Sprintf("$%.4f", *usd)
}
