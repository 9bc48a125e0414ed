package session

import (
	"context"
	"errors"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// Observer hears what agent's telemetry ([otel]) reports of a session's
// turns, Codex's events: the prompt (codex.user_prompt), the stream's
// events (codex.sse_event), each tool call's decision and result
// (codex.tool_decision, codex.tool_result) and retries (codex.retry).
// Methods are called on the turn's goroutine, a tool call's from its
// own when parallel calls run; they must be safe for that and not block.
type Observer interface {
	UserPrompt(ctx context.Context, prompt string, images int)
	StreamEvent(ctx context.Context, e StreamEvent)
	ToolDecision(ctx context.Context, call tools.Call, d ToolDecision)
	ToolResult(ctx context.Context, call tools.Call, res tools.Result, took time.Duration)
	Retry(ctx context.Context, r modelclient.Retry)
}

// StreamEvent is one event of a response's stream as telemetry reports
// it: the created response, each completed output item, the completion
// with its usage, or the stream's failure. Text deltas are not reported.
type StreamEvent struct {
	// Kind is the event type ("response.created",
	// "response.output_item.done", "response.completed"); "" for a
	// failure that came with no event.
	Kind string
	// Duration is the wait for this event since the previous one (or
	// since the stream opened).
	Duration time.Duration
	// Usage is a completed response's token counts.
	Usage *transport.Usage
	// Err is why the stream failed; nil for an event that arrived.
	Err error
}

// Tool decisions as telemetry names them, and who made them.
const (
	DecisionApproved           = "approved"
	DecisionApprovedForSession = "approved_for_session"
	DecisionDenied             = "denied"
	DecisionAbort              = "abort"
	SourceConfig               = "config"
	SourceUser                 = "user"
)

// ToolDecision is whether a tool call was allowed to run, and by whom:
// the approval policy (SourceConfig) or the person asked (SourceUser).
type ToolDecision struct {
	Decision string
	Source   string
}

// decisionOf is the telemetry name of a person's decision.
func decisionOf(d tools.Decision) string {
	switch d.Kind {
	case tools.ApproveForSession:
		return DecisionApprovedForSession
	case tools.Deny:
		return DecisionDenied
	case tools.AbortTurn:
		return DecisionAbort
	}
	return DecisionApproved
}

// now is the session's clock.
func (s *Session) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}

// observeRetries shows each retry announced to emit to the observer.
func (s *Session) observeRetries(ctx context.Context, emit func(Event)) func(Event) {
	o := s.opts.Observer
	if o == nil {
		return emit
	}
	return func(ev Event) {
		if r, ok := ev.(Retry); ok {
			o.Retry(ctx, r.Retry)
		}
		emit(ev)
	}
}

// streamClock times a stream's events for [StreamEvent].Duration.
type streamClock struct {
	s    *Session
	ctx  context.Context
	last time.Time
}

// event reports one stream event of kind (usage for a completion, err
// for a failure) to the observer, if any.
func (c *streamClock) event(kind string, usage *transport.Usage, err error) {
	o := c.s.opts.Observer
	if o == nil {
		return
	}
	now := c.s.now()
	o.StreamEvent(c.ctx, StreamEvent{Kind: kind, Duration: now.Sub(c.last), Usage: usage, Err: err})
	c.last = now
}

// failedKind is the stream event a failure came with: response.failed or
// response.incomplete, else "" (the stream broke).
func failedKind(err error) string {
	var api *transport.APIError
	var inc *transport.IncompleteError
	switch {
	case errors.As(err, &api):
		return "response.failed"
	case errors.As(err, &inc):
		return "response.incomplete"
	}
	return ""
}

// callWatch is what the observer hears of one tool call: its decision,
// made by the person asked or else by the policy, and its duration.
type callWatch struct {
	s     *Session
	ctx   context.Context
	call  tools.Call
	start time.Time
	asked bool
}

// watchCall starts watching call; nil without an observer.
func (s *Session) watchCall(ctx context.Context, call tools.Call) *callWatch {
	if s.opts.Observer == nil {
		return nil
	}
	return &callWatch{s: s, ctx: ctx, call: call, start: s.now()}
}

// decided reports the person's decision d.
func (w *callWatch) decided(d tools.Decision) {
	if w == nil {
		return
	}
	w.asked = true
	w.s.opts.Observer.ToolDecision(w.ctx, w.call, ToolDecision{Decision: decisionOf(d), Source: SourceUser})
}

// ended reports the call's result, and the policy's decision when nobody
// was asked: a call that ran was allowed, one declined was not.
func (w *callWatch) ended(res tools.Result) {
	if w == nil {
		return
	}
	o := w.s.opts.Observer
	if !w.asked {
		d := DecisionApproved
		if res.Status == tools.StatusDeclined {
			d = DecisionDenied
		}
		o.ToolDecision(w.ctx, w.call, ToolDecision{Decision: d, Source: SourceConfig})
	}
	o.ToolResult(w.ctx, w.call, res, w.s.now().Sub(w.start))
}
