package session

import (
	"encoding/json"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// Event is something a front end shows (or records). The set is sealed;
// front ends type-switch over the types in this package. The same events
// feed the TUI, exec's text and JSON output, and the rollout, so all agree.
type Event interface{ isEvent() }

// TurnStarted opens a turn.
type TurnStarted struct {
	// Input is what the user submitted.
	Input string
}

// TextDelta is streamed assistant text: display only, never recorded. It
// may be retracted by a later [Retracted].
type TextDelta struct {
	ItemID string
	Delta  string
}

// ReasoningDelta is streamed reasoning-summary text: display only.
type ReasoningDelta struct {
	ItemID string
	Delta  string
}

// Retracted says the streamed deltas of the listed items belonged to an
// attempt that failed: front ends clear or mark them. Their items were
// never recorded and will not be shown as done.
type Retracted struct {
	ItemIDs []string
}

// MessageDone is a completed assistant message, recorded in history. It is
// emitted exactly once per message, whatever retries happen.
type MessageDone struct {
	ItemID string
	Text   string
	// Refused says the message is the model's refusal (a refusal part):
	// Text says why; it is the answer all the same.
	Refused bool
}

// ResponseCompleted says the attempt in progress ended with
// response.completed: the messages it completed are the answer (those of
// an attempt that failed before it, though recorded, are not).
type ResponseCompleted struct {
	Usage transport.Usage
}

// ReasoningDone is a completed reasoning item's summary text.
type ReasoningDone struct {
	ItemID string
	Text   string
}

// Retry says a retry is about to wait: which budget it spends (Layer),
// the class, attempt of how many (Attempt/Max), what is left (Left, and
// Waited of MaxWait for a time-bounded budget), how long, and why. Front
// ends word it from these fields.
type Retry struct {
	modelclient.Retry
}

// Warning is a non-fatal notice (for example a transport fallback).
type Warning struct {
	Message string
	// NotSaved says the session is no longer being saved: recording it
	// failed (a full disk), so what happens from here on may be lost.
	NotSaved bool
	// Raw, when set, is the server's event the warning is about, as sent
	// (one agent could not read, [transport.Malformed]): the recorder
	// keeps it with the session.
	Raw json.RawMessage
}

// TurnCompleted closes a turn that succeeded.
type TurnCompleted struct {
	// Last is the usage of the turn's last response; Total accumulates the
	// whole session.
	Last, Total transport.Usage
	// Requests is how many requests the turn sent, retries included.
	Requests int
	// Provider is where the turn's last response came from.
	Provider failover.Candidate
	// Cost is what the turn's responses cost in USD, TotalCost the
	// session's; nil when a price is unknown (never guessed).
	Cost, TotalCost *float64
}

// TurnFailed closes a turn that did not complete. The same error is
// returned by [Session.Turn].
type TurnFailed struct {
	Err *TurnError
	// Requests is how many requests the turn sent, retries included.
	Requests int
}

// WebSearchDone is a web search the model's server ran (a web_search_call
// item of the hosted web_search tool), recorded in history like the
// model's other output.
type WebSearchDone struct {
	ItemID string
	// Query is what was searched; "" when the action is not a search.
	Query string
	// Action is the item's action as the server sent it, nil when none.
	Action json.RawMessage
}

func (WebSearchDone) isEvent()     {}
func (TurnStarted) isEvent()       {}
func (TextDelta) isEvent()         {}
func (ReasoningDelta) isEvent()    {}
func (Retracted) isEvent()         {}
func (MessageDone) isEvent()       {}
func (ReasoningDone) isEvent()     {}
func (ResponseCompleted) isEvent() {}
func (Retry) isEvent()             {}
func (Warning) isEvent()           {}
func (TurnCompleted) isEvent()     {}
func (TurnFailed) isEvent()        {}

// ToolCallBegin says a tool call is about to run (approval may follow).
type ToolCallBegin struct {
	Call tools.Call
}

// ToolCallEnd says a tool call ended; its output is recorded.
type ToolCallEnd struct {
	Call   tools.Call
	Result tools.Result
}

func (ToolCallBegin) isEvent() {}
func (ToolCallEnd) isEvent()   {}
