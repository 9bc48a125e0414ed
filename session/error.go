package session

import (
	"fmt"
	"time"

	"github.com/agentcli/agent/modelclient"
)

// TurnError is why a turn ended without completing: the one outcome of
// its last request, as the session's continuation layer left it, and
// what the turn spent. Its message is the one line a user sees.
type TurnError struct {
	modelclient.Outcome
	// Retries is how many retries the turn made in all.
	Retries int
	// Requests is how many requests the turn sent in all.
	Requests int
}

func (e *TurnError) Error() string {
	o := &e.Outcome
	msg := Describe(o.Failure, o.Exhausted())
	switch o.End {
	case modelclient.EndGaveUp:
		msg = o.Error()
	case modelclient.EndWait:
		msg = "turn paused: the server asked to wait until " + o.Until.UTC().Format("2006-01-02 15:04:05 MST") +
			" (" + o.Failure.Reason() + "); continue it then with `agent exec resume --last`"
	case modelclient.EndPaused:
		if o.Reason != "" {
			msg += "; " + o.Reason
		}
		msg = "turn paused, " + msg + "; continue it later with `agent exec resume --last`"
	case modelclient.EndNotContinued:
		msg += " (not continued: " + o.Reason + ")"
	}
	return msg
}

// Paused reports whether the turn's state is kept to be continued later:
// its continuation schedule ran out, or the server asked to wait.
func (e *TurnError) Paused() bool {
	return e.End == modelclient.EndPaused || e.End == modelclient.EndWait
}

func (e *TurnError) Unwrap() error { return e.Failure.Err }

// Describe turns a classified failure into the words a user reads. This is
// the only place kinds become text. The classifier's advice (what to
// change) follows the description.
func Describe(f modelclient.Failure, exhausted bool) string {
	if f.Advice != "" {
		return describe(f, exhausted) + ": " + f.Advice
	}
	return describe(f, exhausted)
}

func describe(f modelclient.Failure, exhausted bool) string {
	switch f.Kind {
	case modelclient.KindCanceled:
		return "interrupted"
	case modelclient.KindContextWindow:
		return "the model's context window is full: start a new session or compact the conversation"
	case modelclient.KindAuth:
		return "authentication failed (401): check your API key or log in again" + detail(f)
	case modelclient.KindQuota:
		return "quota exceeded: check your plan and billing" + detail(f)
	case modelclient.KindUsageLimit:
		msg := "usage limit reached"
		if !f.ResetsAt.IsZero() {
			msg += "; it resets at " + f.ResetsAt.Local().Format(time.DateTime+" MST")
		}
		return msg
	case modelclient.KindInvalidRequest:
		return "the request was rejected" + detail(f)
	case modelclient.KindUpgradeRequired:
		return "the server requires a different transport (426)"
	case modelclient.KindBudget:
		return f.Err.Error()
	}
	if exhausted {
		return fmt.Sprintf("gave up after retries: %s", f.Reason())
	}
	if f.Status != 0 || f.Message != "" {
		return f.Reason()
	}
	if f.Err != nil {
		return f.Err.Error()
	}
	return f.Kind.String()
}

func detail(f modelclient.Failure) string {
	if f.Message != "" {
		return ": " + f.Message
	}
	if f.Status != 0 {
		return fmt.Sprintf(" (http %d)", f.Status)
	}
	return ""
}
