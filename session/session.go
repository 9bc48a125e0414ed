// Package session is the engine: a Session holds the conversation history,
// runs turns through the model client, owns the stream-layer retry loop
// ([StreamRetryState]) and reports everything as [Event]s. Front ends submit
// input and render events; they never call the model themselves.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// errAborted ends a turn the user aborted from an approval prompt.
var errAborted = fmt.Errorf("turn aborted by user: %w", context.Canceled)

// DefaultInstructions are the base instructions sent with every request.
const DefaultInstructions = "You are agent, a coding assistant running in the user's terminal. " +
	"Be concise and precise; prefer concrete commands and code over prose."

// Options configure a [Session].
type Options struct {
	// Client talks to the model (required).
	Client *modelclient.Client
	// Instructions override [DefaultInstructions] when non-empty.
	Instructions string
	// UnboundedConnectionRetries keeps retrying connect failures of the
	// sampling request (5 s doubling to 60 s) without spending the stream
	// budget, until the turn is cancelled.
	UnboundedConnectionRetries bool
	// OutputSchema, when set, constrains the final answer to this JSON
	// Schema (strict structured output).
	OutputSchema json.RawMessage
	// Tools are what the model may call; nil offers none.
	Tools *tools.Set
	// Approve asks the user about a call the approval policy does not
	// allow by itself; nil denies such calls (exec's "never" policy never
	// asks). It is called on the turn's goroutine, possibly concurrently
	// for parallel-safe tools.
	Approve func(ctx context.Context, req tools.ApprovalRequest) tools.Decision
	// Context is recorded once, before the first user message
	// (environment context, AGENTS.md instructions).
	Context []transport.Item
	// Ledger records tool calls; nil keeps an in-memory one.
	Ledger *Ledger
	// Continue is the auto-continue policy [Session.Turn] snapshots; the
	// zero value disables auto-continue.
	Continue ContinuePolicy
	// Recorder persists the session (a rollout file); nil keeps it in
	// memory only.
	Recorder Recorder
	// Resumed is the history of a resumed session; when set it replaces
	// Context (which the resumed history already holds).
	Resumed []transport.Item
	// Usage is a resumed session's accumulated usage.
	Usage transport.Usage
	// AutoCompactTokens compacts the history when the last response used at
	// least this many tokens (min(model_auto_compact_token_limit, 90% of the
	// context window)); 0 turns auto-compaction off.
	AutoCompactTokens int64
}

// Recorder is where a session persists what happens. Items are the
// model-visible history, recorded as they are; events feed the transcript;
// Sync makes everything recorded so far durable. The session syncs at turn
// boundaries and before any tool call starts.
type Recorder interface {
	RecordItems(items ...transport.Item) error
	RecordEvent(ev Event) error
	Sync() error
}

// Session is one conversation. It is not safe for concurrent use: run one
// turn at a time (front ends add the goroutine).
type Session struct {
	opts       Options
	client     *modelclient.Client
	history    []transport.Item
	total      transport.Usage
	ledger     *Ledger
	approvedMu sync.Mutex
	approved   map[string]bool // approve-for-session keys
	lastTotal  int64           // total tokens of the last response
	images     []string        // attached to the next turn's message

	saveMu     sync.Mutex
	saveErr    error // the first failure to record the session
	saveWarned bool  // the user was told about saveErr
}

// AttachImages adds images (https: or data: URLs) to the user message of
// the next turn.
func (s *Session) AttachImages(urls ...string) { s.images = append(s.images, urls...) }

// New returns an empty session.
func New(opts Options) *Session {
	if opts.Instructions == "" {
		opts.Instructions = DefaultInstructions
	}
	if opts.Ledger == nil {
		opts.Ledger = NewLedger(nil)
	}
	s := &Session{opts: opts, client: opts.Client, ledger: opts.Ledger, approved: map[string]bool{}, total: opts.Usage}
	if opts.Resumed != nil {
		s.history = append(s.history, opts.Resumed...)
	} else {
		s.appendItems(opts.Context...)
	}
	return s
}

// appendItems adds items to the history and records them.
func (s *Session) appendItems(items ...transport.Item) {
	if len(items) == 0 {
		return
	}
	s.history = append(s.history, items...)
	if s.opts.Recorder != nil {
		// A full disk must not end the turn; the user is told once.
		s.noteSave(s.opts.Recorder.RecordItems(items...))
	}
}

// sync makes what was recorded durable, noting a failure.
func (s *Session) sync() {
	if s.opts.Recorder != nil {
		s.noteSave(s.opts.Recorder.Sync())
	}
}

// noteSave keeps the first failure to record the session.
func (s *Session) noteSave(err error) {
	if err == nil {
		return
	}
	s.saveMu.Lock()
	if s.saveErr == nil {
		s.saveErr = err
	}
	s.saveMu.Unlock()
}

// SaveError returns the first failure to record the session (its rollout
// file), nil while everything was saved. It is safe to call from any
// goroutine.
func (s *Session) SaveError() error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	return s.saveErr
}

// unsavedWarning returns the warning about a failure to record not yet
// shown to the user, and marks it shown.
func (s *Session) unsavedWarning() (Warning, bool) {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	if s.saveErr == nil || s.saveWarned {
		return Warning{}, false
	}
	s.saveWarned = true
	return Warning{Message: "the session is no longer being saved: " + s.saveErr.Error(), NotSaved: true}, true
}

// tap persists each event through the recorder (syncing at turn ends)
// before passing it on. The first failure to record is announced once, as
// a [Warning] with NotSaved, before the event that follows it.
func (s *Session) tap(emit func(Event)) func(Event) {
	if s.opts.Recorder == nil {
		return emit
	}
	return func(ev Event) {
		s.noteSave(s.opts.Recorder.RecordEvent(ev))
		switch ev.(type) {
		case TurnCompleted, TurnFailed:
			s.sync()
		}
		if w, ok := s.unsavedWarning(); ok {
			emit(w)
		}
		emit(ev)
	}
}

// Reconfigure returns a session that goes on with this one's history,
// usage, ledger and recorder under changed options (another model client,
// other tools). The old session must not be used afterwards.
func (s *Session) Reconfigure(change func(*Options)) *Session {
	opts := s.opts
	change(&opts)
	n := &Session{opts: opts, client: opts.Client, ledger: s.ledger, approved: map[string]bool{},
		history: s.history, total: s.total, lastTotal: s.lastTotal}
	return n
}

// Ledger returns the session's tool-call ledger.
func (s *Session) Ledger() *Ledger { return s.ledger }

// History returns a copy of the recorded items.
func (s *Session) History() []transport.Item {
	return append([]transport.Item(nil), s.history...)
}

// Usage returns the token usage accumulated over the session.
func (s *Session) Usage() transport.Usage { return s.total }

// Turn runs one user turn to completion: it records input, samples the
// model (retrying as the policies allow), and emits events to emit, which
// is called synchronously on the caller's goroutine. It returns nil when the
// turn completed, or a [*TurnError].
func (s *Session) Turn(ctx context.Context, input string, emit func(Event)) error {
	return s.TurnWith(ctx, input, s.opts.Continue.Snapshot(), emit)
}

// TurnWith is [Session.Turn] with an explicit auto-continue policy
// snapshot (a queued turn carries the policy it was submitted with). A turn
// that fails on a transient class after every retry budget is continued
// over its recorded history with the policy's continuation prompt, on the
// policy's schedule; when the schedule runs out the turn is paused
// ([TurnError].Paused), its state kept.
func (s *Session) TurnWith(ctx context.Context, input string, policy ContinuePolicy, emit func(Event)) error {
	emit = s.tap(emit)
	emit(TurnStarted{Input: input})
	var last transport.Usage
	retries := 0
	c := &Coordinator{
		Policy:      policy,
		Sleep:       s.client.Sleep,
		Retryable:   retryableTerminal,
		CanContinue: s.continuable,
		Notify: func(n int, d time.Duration, cause error) {
			r := modelclient.Retry{Layer: LayerContinue, Class: modelclient.Classify(cause).Class,
				Attempt: n, Max: len(policy.Delays), Delay: d, Failure: modelclient.Classify(cause)}
			s.client.LogRetry(ctx, "continue", r)
			emit(Retry{r})
		},
	}
	compacted := false
	images := s.images
	s.images = nil
	err := c.Run(ctx, input, func(ctx context.Context, prompt string) error {
		if err := s.maybeCompact(ctx, emit); err != nil {
			emit(Warning{Message: "automatic compaction failed: " + err.Error()})
		}
		s.appendItems(transport.UserMessageWithImages(prompt, images))
		images = nil // a continuation carries the prompt only
		s.sync()     // a turn boundary: the prompt survives a crash
		for {
			u, st, ran, err := s.sample(ctx, emit)
			retries += st.total()
			if err != nil && !compacted && s.compactable() && modelclient.Classify(err).Kind == modelclient.KindContextWindow {
				// The window is full: compact once and try again, rather
				// than ending the turn.
				compacted = true
				if cerr := s.Compact(ctx, emit); cerr == nil {
					continue
				}
			}
			if err != nil {
				return err
			}
			last = u
			if ran == 0 {
				return nil
			}
			// Tool outputs are recorded: sample again so the model sees
			// them, compacting first if the window is filling up.
			if err := s.maybeCompact(ctx, emit); err != nil {
				emit(Warning{Message: "automatic compaction failed: " + err.Error()})
			}
		}
	})
	if err != nil {
		f := modelclient.Classify(err)
		te := &TurnError{Failure: f, Retries: retries, Exhausted: f.Retryable}
		var paused *PausedError
		var stopped *StoppedError
		switch {
		case errors.As(err, &paused):
			te.Paused = true
		case errors.As(err, &stopped):
			te.NotContinued = stopped.Reason.Error()
		}
		emit(TurnFailed{Err: te})
		return te
	}
	emit(TurnCompleted{Last: last, Total: s.total})
	return nil
}

// maybeCompact compacts when the last response used AutoCompactTokens or
// more.
func (s *Session) maybeCompact(ctx context.Context, emit func(Event)) error {
	if s.opts.AutoCompactTokens <= 0 || s.lastTotal < s.opts.AutoCompactTokens {
		return nil
	}
	s.lastTotal = 0
	return s.Compact(ctx, emit)
}

// prompt rebuilds the request from recorded history. It runs before every
// attempt, so a retry carries exactly what was recorded, never a fragment.
func (s *Session) prompt() *modelclient.Prompt {
	return &modelclient.Prompt{
		Instructions:      s.opts.Instructions,
		Input:             s.normalize(s.history),
		Tools:             s.opts.Tools.Specs(),
		ParallelToolCalls: true,
		OutputSchema:      s.opts.OutputSchema,
	}
}

// StreamRetryState counts the stream-layer retries of one sampling request,
// as the reference client's ResponsesStreamRetryState does, plus the
// separate overload schedule.
type StreamRetryState struct {
	// Retries spends the provider's stream_max_retries.
	Retries int
	// ConnectionRetries counts unbounded connection retries.
	ConnectionRetries int
	// OverloadRetries counts retries on the overloaded schedule.
	OverloadRetries int
	// ByClass counts retries per class, for per-class caps.
	ByClass map[string]int
	// HTTPRetries counts retries the HTTP layer made inside attempts.
	HTTPRetries int
}

func (st *StreamRetryState) total() int {
	return st.Retries + st.ConnectionRetries + st.OverloadRetries + st.HTTPRetries
}

// next decides whether f may be retried and how: it returns the retry to
// announce, or ok=false when every budget is spent.
func (s *Session) next(st *StreamRetryState, f modelclient.Failure) (r modelclient.Retry, ok bool) {
	if !f.Retryable {
		return r, false
	}
	if f.Kind == modelclient.KindConnect && s.opts.UnboundedConnectionRetries && !s.client.WebSocketActive() {
		st.ConnectionRetries++
		return modelclient.Retry{
			Layer: modelclient.LayerConnection, Class: f.Class, Attempt: st.ConnectionRetries,
			Max: -1, Delay: retry.ConnectionDelay(st.ConnectionRetries), Failure: f,
		}, true
	}
	pol := s.client.Policy(f.Class)
	if st.ByClass == nil {
		st.ByClass = map[string]int{}
	}
	var n, budget int
	if f.Class == provider.ClassOverloaded {
		n, budget = st.OverloadRetries+1, -1
		if !pol.Allows(n, budget) {
			return r, false
		}
		st.OverloadRetries = n
		budget = pol.MaxRetries
	} else {
		n, budget = st.Retries+1, s.client.Provider().StreamMaxRetries
		if !pol.Allows(st.ByClass[f.Class]+1, -1) || n > budget {
			return r, false
		}
		st.Retries = n
	}
	st.ByClass[f.Class]++
	r = modelclient.Retry{Layer: modelclient.LayerStream, Class: f.Class, Attempt: n, Max: budget, Failure: f}
	if f.Delay > 0 {
		r.Delay = pol.Cap(f.Delay) // the server's delay wins
	} else {
		r.Delay = pol.Delay(n, s.client.Rand())
	}
	return r, true
}

// sample runs one sampling request with the stream-layer retries. It
// reports how many tool calls ran (the turn then needs a follow-up).
func (s *Session) sample(ctx context.Context, emit func(Event)) (_ transport.Usage, _ *StreamRetryState, ran int, _ error) {
	st := &StreamRetryState{}
	hooks := modelclient.Hooks{
		Retry: func(r modelclient.Retry) {
			st.HTTPRetries++
			emit(Retry{r})
		},
		Fallback: func(f modelclient.Fallback) { emit(Warning{Message: f.Message()}) },
	}
	for try := 1; ; try++ {
		// Every try after the first repeats a failed request: it passes the
		// client's retry gate as a re-send.
		hooks.Resend = try > 1
		// Only the successful attempt's calls decide the follow-up: calls of
		// a failed attempt ran and were recorded, and the retry shows them.
		usage, n, err := s.attempt(ctx, emit, hooks)
		if err == nil {
			return usage, st, n, nil
		}
		f := modelclient.Classify(err)
		if f.Kind == modelclient.KindCanceled || ctx.Err() != nil {
			return usage, st, ran, errors.Join(context.Cause(ctx), err)
		}
		r, ok := s.next(st, f)
		if !ok && f.Retryable && f.Kind != modelclient.KindOverloaded {
			// The stream budget ran out on WebSocket: switch the session to
			// HTTPS, reset the counter and send the same prompt again.
			if reason := f.Reason(); s.client.FallBack(ctx, reason) {
				emit(Warning{Message: modelclient.Fallback{Reason: reason}.Message()})
				st.Retries, st.ByClass = 0, nil
				continue
			}
		}
		if !ok {
			return usage, st, ran, err
		}
		s.client.LogRetry(ctx, "sampling", r)
		emit(Retry{r})
		if err := s.client.Backoff(ctx, r); err != nil {
			return usage, st, ran, err
		}
	}
}

// attempt opens one stream and consumes it. Each completed item is recorded
// into history at once (as the reference client does), so a retry replays
// it instead of repeating it; deltas of unfinished items are retracted when
// the attempt fails.
func (s *Session) attempt(ctx context.Context, emit func(Event), hooks modelclient.Hooks) (_ transport.Usage, ran int, _ error) {
	usage, calls, err := s.consume(ctx, emit, hooks)
	// Completed calls run whether the stream finished or not: they are
	// recorded, and the retry (or follow-up) must carry their outputs.
	ran, abort := s.runCalls(ctx, calls, emit)
	if abort && err == nil {
		err = errAborted
	}
	return usage, ran, err
}

// consume opens one stream and reads it, recording completed items.
func (s *Session) consume(ctx context.Context, emit func(Event), hooks modelclient.Hooks) (_ transport.Usage, calls []transport.Item, _ error) {
	stream, err := s.client.Stream(ctx, s.prompt(), hooks)
	if err != nil {
		return transport.Usage{}, nil, err
	}
	defer stream.Close()
	open := map[string]bool{} // items with streamed deltas but not yet done
	var order []string
	for stream.Next() {
		switch ev := stream.Event().(type) {
		case transport.TextDelta:
			if !open[ev.ItemID] {
				open[ev.ItemID] = true
				order = append(order, ev.ItemID)
			}
			emit(TextDelta{ItemID: ev.ItemID, Delta: ev.Delta})
		case transport.ReasoningSummaryDelta:
			if !open[ev.ItemID] {
				open[ev.ItemID] = true
				order = append(order, ev.ItemID)
			}
			emit(ReasoningDelta{ItemID: ev.ItemID, Delta: ev.Delta})
		case transport.OutputItemDone:
			delete(open, ev.Item.ID)
			s.record(ev.Item, emit)
			if ev.Item.IsCall() && s.ledger.State(ev.Item.CallID) == "" {
				_ = s.ledger.set(ev.Item.CallID, ev.Item.Name, CallRequested)
				calls = append(calls, ev.Item)
			}
		case transport.Completed:
			var u transport.Usage
			if ev.Usage != nil {
				u = *ev.Usage
				s.total.Add(u)
				s.lastTotal = u.TotalTokens
			}
			return u, calls, nil
		}
	}
	err = stream.Err()
	if err == nil {
		err = transport.ErrIncomplete // a stream must end with response.completed
	}
	var retract []string
	for _, id := range order {
		if open[id] {
			retract = append(retract, id)
		}
	}
	if len(retract) > 0 {
		emit(Retracted{ItemIDs: retract})
	}
	return transport.Usage{}, calls, err
}

// record appends a completed item to history and announces it.
func (s *Session) record(it transport.Item, emit func(Event)) {
	s.appendItems(it)
	switch {
	case it.Type == "message" && it.Role == "assistant":
		emit(MessageDone{ItemID: it.ID, Text: it.Text()})
	case it.Type == "reasoning":
		emit(ReasoningDone{ItemID: it.ID, Text: reasoningText(it)})
	}
}
