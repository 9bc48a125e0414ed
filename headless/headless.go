// Package headless runs a turn without the interactive UI, as agent exec
// does: it prints the turn ([execprint]), waits out a pause until the
// server's reset time when allowed (--wait-for-reset) and continues the
// turn, writes the final message to a file (-o) and maps the outcome to
// exec's exit code ([exitcode]). [ReadPrompt] applies exec's prompt rules
// to standard input.
package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agentcli/agent/headless/execprint"
	"github.com/agentcli/agent/internal/atomicfile"
	"github.com/agentcli/agent/internal/exitcode"
	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/session"
)

// DefaultWaitForReset is how long --wait-for-reset alone waits at most.
const DefaultWaitForReset = 24 * time.Hour

// LayerWaitForReset is the retry layer of --wait-for-reset: its budget
// has no count, and each of its waits is bounded by the limit.
const LayerWaitForReset = "wait-for-reset"

// Options say how [RunTurn] prints a turn and what it does after it.
type Options struct {
	// Stdout and Stderr are where the turn is printed: the final message
	// (or, with JSON, every event) on Stdout, the rest on Stderr.
	Stdout, Stderr io.Writer
	// StdoutTTY, StderrTTY and Width are as in [execprint.TextOptions].
	StdoutTTY, StderrTTY bool
	Width                func() int
	// JSON prints JSONL events (exec --json) instead of text.
	JSON bool
	// SessionID is the session's id: the header's, and the JSON thread's.
	SessionID string
	// Header is printed on Stderr before the turn, with the text output;
	// RunTurn fills in its SessionID.
	Header execprint.Header
	// Tools describes the workspace's tools to the printers.
	Tools execprint.Tools
	// WaitForReset is how long RunTurn may wait for a turn the server
	// paused until a time (a usage limit's reset, a delay past the retry
	// cap) and then continue it; 0 does not wait.
	WaitForReset time.Duration
	// Continue returns the prompt that continues a paused turn; it must
	// be set when WaitForReset is.
	Continue func() string
	// LastMessage is the file the final message replaces when the turn
	// completes (-o); "" writes none. Secrets are masked in it.
	LastMessage string
	Secrets     *redact.Set
	// Now reads the clock and Sleep waits on it; nil means the real ones.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// OnStream, when set, runs once, at the first delta of the answer.
	OnStream func()
	// OnStep, when set, runs between the steps of a turn: at the end of
	// each message, response and tool call (see [StepGC]).
	OnStep func()
	// Answer, when set, turns the final message into what Stdout gets in
	// text mode ([execprint.TextOptions].Answer); -o keeps the message.
	Answer func(string) string
	// Goals pursues the session's active goal after the turn, when the
	// session is a [GoalSession]: stdout then gets the last answer once.
	Goals bool
	// ResumeCommand is the command that continues the session (named when
	// a usage limit pauses its goal).
	ResumeCommand string
}

// Session is what RunTurn needs of a session ([*session.Session]).
type Session interface {
	Turn(ctx context.Context, input string, emit func(session.Event)) error
	SaveError() error
}

// GoalSession is what RunTurn needs of a session to pursue its goal
// ([*session.Session]; see [Options].Goals).
type GoalSession interface {
	Goal() *session.Goal
	SetGoalStatus(st session.GoalStatus) (session.Goal, error)
	Pursue(ctx context.Context, emit func(session.Event)) error
}

// RunTurn runs one turn of sess on prompt and prints it as o says; with
// [Options].Goals it then pursues the session's active goal, turn after
// turn within its budgets, and an empty prompt runs no turn of its own
// (the goal's turns only). It returns nil when the turns completed and
// were saved, else an [*exitcode.Error]: the turn's failure with its code
// ([exitcode.ForTurn]), exitcode.Failed when -o cannot be written, or
// exitcode.NotSaved when the turn completed but the session was not saved,
// exitcode.Refused when its answer is the model's refusal.
func RunTurn(ctx context.Context, sess Session, prompt string, o Options) error {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = retry.Sleep
	}
	r := &run{o: o, sess: sess}
	if gs, ok := sess.(GoalSession); ok && o.Goals {
		r.goals = gs
	}
	r.start(prompt)
	err := r.drive(ctx, prompt)
	if r.out != nil && r.o.HoldAnswer() {
		r.out.WriteAnswer()
	}
	saveErr := sess.SaveError()
	if err != nil {
		if saveErr != nil {
			err = fmt.Errorf("%w (and the session was not saved: %v)", err, saveErr)
		}
		return &exitcode.Error{Code: exitcode.ForTurn(err), Err: err}
	}
	if o.LastMessage != "" {
		if err := atomicfile.Write(o.LastMessage, []byte(o.Secrets.String(r.last)+"\n"), 0o600); err != nil {
			return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("--output-last-message: %w", err)}
		}
	}
	if saveErr != nil {
		return &exitcode.Error{Code: exitcode.NotSaved, Err: fmt.Errorf("the turn completed, but the session was not saved: %w", saveErr)}
	}
	if r.refused {
		return &exitcode.Error{Code: exitcode.Refused, Err: errors.New("the model refused to answer (its refusal is the answer printed)")}
	}
	return nil
}

// HoldAnswer reports whether stdout gets the answer once, at the end of
// the run, rather than at each turn's end: when a goal may add turns.
func (o Options) HoldAnswer() bool { return o.Goals && !o.JSON }

// run is one RunTurn: its printers and what the turns said.
type run struct {
	o       Options
	sess    Session
	goals   GoalSession // nil: the run pursues no goal
	jp      *execprint.JSON
	out     *execprint.Text
	last    string
	refused bool
	stream  bool
}

// start makes the printers and prints the header.
func (r *run) start(prompt string) {
	o := r.o
	if o.JSON {
		r.jp = execprint.NewJSON(o.Stdout, o.SessionID, o.Tools)
		return
	}
	h := o.Header
	h.SessionID = o.SessionID
	fmt.Fprint(o.Stderr, h.String())
	if prompt != "" {
		fmt.Fprintln(o.Stderr, "user\n"+prompt)
	} else if g := r.goal(); g != nil {
		fmt.Fprintln(o.Stderr, "goal\n"+g.Objective)
	}
	r.out = execprint.NewText(execprint.TextOptions{
		Stdout: o.Stdout, Stderr: o.Stderr, StdoutTTY: o.StdoutTTY, StderrTTY: o.StderrTTY,
		Width: o.Width, Tools: o.Tools, Answer: o.Answer, HoldAnswer: o.HoldAnswer(),
	})
}

// goal is the session's goal, nil without one or when the run pursues none.
func (r *run) goal() *session.Goal {
	if r.goals == nil {
		return nil
	}
	return r.goals.Goal()
}

// handle notes what RunTurn acts on and prints ev.
func (r *run) handle(ev session.Event) {
	switch ev := ev.(type) {
	case session.TextDelta:
		if !r.stream {
			r.stream = true
			if r.o.OnStream != nil {
				r.o.OnStream()
			}
		}
	case session.MessageDone:
		r.last, r.refused = ev.Text, ev.Refused
		r.step()
	case session.ResponseCompleted, session.ToolCallEnd:
		r.step()
	case session.GoalUpdated:
		if ev.Message != "" {
			r.say(ev.Message)
		}
	}
	if r.jp != nil {
		r.jp.Handle(ev)
	} else {
		r.out.Handle(ev)
	}
}

func (r *run) step() {
	if r.o.OnStep != nil {
		r.o.OnStep()
	}
}

// say tells the user msg: a warning event in JSON, a line on stderr.
func (r *run) say(msg string) {
	if r.jp != nil {
		r.jp.Handle(session.Warning{Message: msg})
	} else {
		fmt.Fprintln(r.o.Stderr, "agent: "+msg)
	}
}

// turn runs one turn of the session on prompt.
func (r *run) turn(ctx context.Context, prompt string) error {
	if r.out != nil {
		defer r.out.Finish()
	}
	return r.sess.Turn(ctx, prompt, r.handle)
}

// pursue pursues the session's goal while it is active.
func (r *run) pursue(ctx context.Context) error {
	if r.out != nil {
		defer r.out.Finish()
	}
	if g := r.goal(); g != nil && g.Status == session.GoalActive {
		r.say(fmt.Sprintf("pursuing the goal (%d of %d turns used): %s", g.TurnsUsed, g.TurnBudget, g.Objective))
	}
	return r.goals.Pursue(ctx, r.handle)
}

// drive runs the turn (when prompt is set), then pursues the goal,
// waiting out a pause the server gave when --wait-for-reset allows:
// a paused turn is continued with the continuation prompt, a goal a
// usage limit paused is made active again and pursued.
func (r *run) drive(ctx context.Context, prompt string) error {
	pending := prompt != ""
	var err error
	what := func() string {
		if pending {
			return "the turn"
		}
		return "the goal"
	}
	// A wait cut short (an interrupt) leaves the paused turn's error
	// standing.
	_, _ = retry.Do(ctx, resetLayer(r.o.WaitForReset, r.o.Now, r.o.Sleep, r.say, what), func(ctx context.Context, n int) (struct{}, error) {
		if n > 1 && pending {
			prompt = r.o.Continue()
		} else if n > 1 {
			r.resumeGoal()
		}
		if pending {
			if err = r.turn(ctx, prompt); err != nil {
				return struct{}{}, err
			}
			pending = false
		}
		if r.goals != nil {
			err = r.pursue(ctx)
		}
		return struct{}{}, err
	})
	if g := r.goal(); err != nil && g != nil && g.Status == session.GoalUsageLimited && ctx.Err() == nil {
		r.say(r.usageLimitHint())
	}
	return err
}

// resumeGoal makes a goal a usage limit (or a failed turn) paused active
// again, after the wait for the reset.
func (r *run) resumeGoal() {
	if g := r.goal(); g != nil && (g.Status == session.GoalUsageLimited || g.Status == session.GoalPaused) {
		if _, err := r.goals.SetGoalStatus(session.GoalActive); err == nil {
			r.say("continuing the goal after the reset: " + g.Objective)
		}
	}
}

// usageLimitHint says how to go on with a goal a usage limit paused.
func (r *run) usageLimitHint() string {
	how := "resume it"
	if r.o.ResumeCommand != "" {
		how = "`" + r.o.ResumeCommand + "` continues it"
	}
	if r.o.WaitForReset > 0 {
		return "the goal stays paused (the reset is further off than --wait-for-reset allows): after the reset, " + how
	}
	return "the goal stays paused until the usage limit resets: then " + how + " (with --wait-for-reset, exec waits for the reset and goes on by itself)"
}

// resetLayer is --wait-for-reset as a layer of the one retry driver: a
// turn paused until a time within limit is continued once that time
// comes, after say announced the wait. Each wait is bounded by limit; the
// number of waits is not (each follows a new pause the server gave).
func resetLayer(limit time.Duration, now func() time.Time, sleep retry.Sleeper, say func(string), what func() string) retry.Driver {
	budget := retry.NewBudget(LayerWaitForReset, -1, 0)
	return retry.Driver{
		Sleep: sleep,
		Decide: func(err error) retry.Decision {
			wait, ok := waitForReset(err, limit, now())
			if !ok {
				return retry.Decision{}
			}
			return retry.Decision{Budget: budget, Delay: wait}
		},
		Notify: func(w retry.Wait) {
			say(fmt.Sprintf("waiting until %s (in %s) for the limit to reset (--wait-for-reset), then continuing %s",
				now().Add(w.Delay).Local().Format("15:04:05"), session.RetryDelay(w.Delay), what()))
		},
	}
}

// waitForReset reports how long to wait before continuing a turn that err
// paused until a time the server gave (a delay past the retry cap, or a
// usage limit's reset), when that is within limit.
func waitForReset(err error, limit time.Duration, now time.Time) (time.Duration, bool) {
	var te *session.TurnError
	if limit <= 0 || !errors.As(err, &te) {
		return 0, false
	}
	until := te.ContinueAt()
	if until.IsZero() {
		return 0, false
	}
	d := max(until.Sub(now), 0)
	if d > limit {
		return 0, false
	}
	return d, true
}
