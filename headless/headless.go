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
}

// Session is what RunTurn needs of a session ([*session.Session]).
type Session interface {
	Turn(ctx context.Context, input string, emit func(session.Event)) error
	SaveError() error
}

// RunTurn runs one turn of sess on prompt and prints it as o says. It
// returns nil when the turn completed and was saved, else an
// [*exitcode.Error]: the turn's failure with its code
// ([exitcode.ForTurn]), exitcode.Failed when -o cannot be written, or
// exitcode.NotSaved when the turn completed but the session was not saved,
// exitcode.Refused when its answer is the model's refusal.
func RunTurn(ctx context.Context, sess Session, prompt string, o Options) error {
	now, sleep := o.Now, o.Sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = retry.Sleep
	}
	var last string
	refused := false
	streaming := false
	handle := func(ev session.Event) {
		switch ev := ev.(type) {
		case session.TextDelta:
			if !streaming {
				streaming = true
				if o.OnStream != nil {
					o.OnStream()
				}
			}
		case session.MessageDone:
			last, refused = ev.Text, ev.Refused
			if o.OnStep != nil {
				o.OnStep()
			}
		case session.ResponseCompleted, session.ToolCallEnd:
			if o.OnStep != nil {
				o.OnStep()
			}
		}
	}
	var err error
	var jp *execprint.JSON
	var out *execprint.Text
	if o.JSON {
		jp = execprint.NewJSON(o.Stdout, o.SessionID, o.Tools)
	} else {
		h := o.Header
		h.SessionID = o.SessionID
		fmt.Fprint(o.Stderr, h.String())
		fmt.Fprintln(o.Stderr, "user\n"+prompt)
		out = execprint.NewText(execprint.TextOptions{
			Stdout: o.Stdout, Stderr: o.Stderr, StdoutTTY: o.StdoutTTY, StderrTTY: o.StderrTTY,
			Width: o.Width, Tools: o.Tools, Answer: o.Answer,
		})
	}
	turn := func(prompt string) error {
		if jp != nil {
			return sess.Turn(ctx, prompt, func(ev session.Event) { handle(ev); jp.Handle(ev) })
		}
		defer out.Finish()
		return sess.Turn(ctx, prompt, func(ev session.Event) { handle(ev); out.Handle(ev) })
	}
	say := func(msg string) {
		if jp != nil {
			jp.Handle(session.Warning{Message: msg})
		} else {
			fmt.Fprintln(o.Stderr, "agent: "+msg)
		}
	}
	// A wait cut short (an interrupt) leaves the paused turn's error
	// standing.
	_, _ = retry.Do(ctx, resetLayer(o.WaitForReset, now, sleep, say), func(ctx context.Context, n int) (struct{}, error) {
		if n > 1 {
			prompt = o.Continue()
		}
		err = turn(prompt)
		return struct{}{}, err
	})
	saveErr := sess.SaveError()
	if err != nil {
		if saveErr != nil {
			err = fmt.Errorf("%w (and the session was not saved: %v)", err, saveErr)
		}
		return &exitcode.Error{Code: exitcode.ForTurn(err), Err: err}
	}
	if o.LastMessage != "" {
		if err := atomicfile.Write(o.LastMessage, []byte(o.Secrets.String(last)+"\n"), 0o600); err != nil {
			return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("--output-last-message: %w", err)}
		}
	}
	if saveErr != nil {
		return &exitcode.Error{Code: exitcode.NotSaved, Err: fmt.Errorf("the turn completed, but the session was not saved: %w", saveErr)}
	}
	if refused {
		return &exitcode.Error{Code: exitcode.Refused, Err: errors.New("the model refused to answer (its refusal is the answer printed)")}
	}
	return nil
}

// resetLayer is --wait-for-reset as a layer of the one retry driver: a
// turn paused until a time within limit is continued once that time
// comes, after say announced the wait. Each wait is bounded by limit; the
// number of waits is not (each follows a new pause the server gave).
func resetLayer(limit time.Duration, now func() time.Time, sleep retry.Sleeper, say func(string)) retry.Driver {
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
			say(fmt.Sprintf("waiting until %s (in %s) for the limit to reset (--wait-for-reset), then continuing the turn",
				now().Add(w.Delay).Local().Format("15:04:05"), session.RetryDelay(w.Delay)))
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
