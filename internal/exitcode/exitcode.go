// Package exitcode holds agent's exit codes (README.md), the error that
// carries one from a command to main, and the one mapping of a turn's
// failure to its code, which exec and every prompt of a batch share.
package exitcode

import (
	"errors"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
)

// The exit codes of agent, documented in README.md.
const (
	OK          = 0   // done; a turn completed
	Failed      = 1   // the turn failed (model or tool), or the command did
	Usage       = 2   // bad flags, config or input
	Auth        = 3   // authentication failed
	Quota       = 4   // quota or usage limit
	Exhausted   = 5   // transient failures outlasted every retry budget
	NotSaved    = 6   // the turn completed, but the session could not be saved
	Refused     = 7   // the turn completed with the model's refusal as its answer
	Budget      = 8   // the run's cost budget (--max-cost) was spent before a request
	Interrupted = 130 // Ctrl-C
)

// Error carries an exit code with the one-line reason to print.
type Error struct {
	Code int
	Err  error
}

// Error returns the reason.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// ForTurn maps a turn's failure (a [*session.TurnError] in err's chain) to
// its code: Interrupted, Auth, Quota, Usage, Budget, Exhausted, else Failed.
func ForTurn(err error) int {
	var te *session.TurnError
	if !errors.As(err, &te) {
		return Failed
	}
	switch te.Failure.Kind {
	case modelclient.KindCanceled:
		return Interrupted
	case modelclient.KindAuth:
		return Auth
	case modelclient.KindQuota, modelclient.KindUsageLimit:
		return Quota
	case modelclient.KindConfig:
		return Usage
	case modelclient.KindBudget:
		return Budget
	}
	if te.Exhausted() {
		return Exhausted
	}
	return Failed
}

// Of returns the code err carries (an [*Error] in its chain), else
// Failed; nil is OK.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Failed
}
