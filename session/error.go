package session

import (
	"fmt"
	"time"

	"github.com/agentcli/agent/modelclient"
)

// TurnError is why a turn ended without completing. Its message is the
// one line a user sees.
type TurnError struct {
	Failure modelclient.Failure
	// Exhausted says retries were attempted and every budget ran out.
	Exhausted bool
	// Retries is how many retries the turn made in all.
	Retries int
	// Requests is how many requests the turn sent in all.
	Requests int
	// Until, when set, is the time the server asked to wait for: the
	// turn paused at once instead of asking earlier.
	Until time.Time
	// Paused says auto-continue ran out of schedule: the turn's state is
	// kept and it can be continued later.
	Paused bool
	// NotContinued says why a retryable failure was not auto-continued.
	NotContinued string
	// GaveUp, when set, says why more attempts were ruled out (a
	// connection wait that reached connection_max_wait, an undecodable
	// final event twice).
	GaveUp string
}

func (e *TurnError) Error() string {
	msg := Describe(e.Failure, e.Exhausted)
	switch {
	case e.GaveUp != "":
		msg = e.GaveUp
	case e.Paused && !e.Until.IsZero():
		msg = "turn paused: the server asked to wait until " + e.Until.UTC().Format("2006-01-02 15:04:05 MST") +
			" (" + e.Failure.Reason() + "); continue it then with `agent exec resume --last`"
	case e.Paused:
		msg = "turn paused, " + msg + "; continue it later with `agent exec resume --last`"
	case e.NotContinued != "":
		msg += " (not continued: " + e.NotContinued + ")"
	}
	return msg
}

func (e *TurnError) Unwrap() error { return e.Failure.Err }

// Describe turns a classified failure into the words a user reads. This is
// the only place kinds become text.
func Describe(f modelclient.Failure, exhausted bool) string {
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
