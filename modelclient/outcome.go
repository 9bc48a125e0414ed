package modelclient

import (
	"errors"
	"fmt"
	"time"
)

// End says why a request, or a whole turn, stopped trying.
type End int

// The ends of an [Outcome].
const (
	// EndFinal is a failure no retry can cure (authentication, quota, an
	// invalid request, a cancellation, ...).
	EndFinal End = iota
	// EndExhausted is a retryable failure that outlasted every retry
	// budget.
	EndExhausted
	// EndWait is a failure whose server asked for a wait beyond what its
	// class allows: no request is made before [Outcome].Until, and the
	// turn pauses at once instead of asking earlier.
	EndWait
	// EndGaveUp is a retryable failure more attempts are known not to
	// cure ([Outcome].Reason says why): the connection layer's total wait
	// (connection_max_wait) ran out, or the final event could not be
	// decoded twice in a row. The turn ends and is not continued.
	EndGaveUp
	// EndPaused is a turn whose continuation schedule ran out (set by the
	// session), or whose retries spent the time bound ([retry]
	// max_wait_ms; [Outcome].Reason says so): its state is kept and it can
	// be continued later.
	EndPaused
	// EndNotContinued is a retryable failure the session could not
	// continue; [Outcome].Reason says why (set by the session).
	EndNotContinued
)

// Outcome is how a sampling request (or a turn) that did not succeed
// ended: its last failure, classified once, and why no further attempt was
// made. It is the one error [Turn.Sample] returns; [OutcomeOf] reads it
// from any error.
type Outcome struct {
	// Failure is the last attempt's failure.
	Failure Failure
	// End is why the attempts stopped.
	End End
	// Until is, for EndWait, the time the server asked to wait for.
	Until time.Time
	// Reason is, for EndGaveUp and EndNotContinued, why, in words.
	Reason string
}

// OutcomeOf returns the [*Outcome] in err's chain, or one made from
// err's classification: a retryable failure outlasted its budgets
// ([EndExhausted]), any other is final. Nil gives nil.
func OutcomeOf(err error) *Outcome {
	if err == nil {
		return nil
	}
	var o *Outcome
	if errors.As(err, &o) {
		return o
	}
	f := Classify(err)
	if f.Retryable() {
		return &Outcome{Failure: f, End: EndExhausted}
	}
	return &Outcome{Failure: f, End: EndFinal}
}

// Exhausted reports whether retries were possible and every one was
// spent or ruled out: anything but [EndFinal].
func (o *Outcome) Exhausted() bool { return o.End != EndFinal }

// Continuable reports whether the session may continue the turn over
// its recorded history (auto-continue): a retryable failure that
// outlasted its budgets. Not a wait the server asked for (continuing
// would ask again before its time), nor a failure more attempts cannot
// cure, nor a cancellation.
func (o *Outcome) Continuable() bool {
	return o.End == EndExhausted && o.Failure.Kind != KindCanceled
}

// ContinueAt is when a turn that ended so may continue by itself: the
// time the server asked to wait for, or when a usage limit resets; zero
// when there is none. Every front end that continues a paused turn on its
// own (agent exec --wait-for-reset, the chat's countdown) asks this.
func (o *Outcome) ContinueAt() time.Time {
	if o.End == EndWait {
		return o.Until
	}
	if o.Failure.Kind == KindUsageLimit {
		return o.Failure.ResetsAt
	}
	return time.Time{}
}

// Error describes the outcome for logs and wrapped errors; the words a
// user reads are the session's.
func (o *Outcome) Error() string {
	err := o.Failure.Err
	if err == nil {
		err = errors.New(o.Failure.Reason())
	}
	switch o.End {
	case EndWait:
		return fmt.Sprintf("the server asked to wait until %s: %v", o.Until.UTC().Format("15:04:05 MST"), err)
	case EndGaveUp:
		return o.Reason + ": " + err.Error()
	case EndPaused:
		return "turn paused: " + err.Error()
	case EndNotContinued:
		return err.Error() + " (not continued: " + o.Reason + ")"
	}
	return err.Error()
}

// Unwrap returns the failure's error.
func (o *Outcome) Unwrap() error { return o.Failure.Err }

// gaveUp is the outcome of a failure more attempts cannot cure.
func gaveUp(err error, reason string) *Outcome {
	return &Outcome{Failure: Classify(err), End: EndGaveUp, Reason: reason}
}

// gaveUpWaiting is the reason of a connection layer that waited its
// total.
func gaveUpWaiting(waited time.Duration) string {
	return fmt.Sprintf("gave up after waiting %s for a connection", waited.Round(time.Second))
}

// undecodable is the reason of a final event that could not be decoded
// twice.
const undecodable = "the final event could not be decoded twice in a row"
