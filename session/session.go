// Package session is the engine: a Session holds the conversation history,
// runs turns through the model client (which owns every retry layer of a
// sampling request), continues failed turns ([Coordinator]) and reports
// everything as [Event]s. Front ends submit
// input and render events; they never call the model themselves.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/retry"
	"github.com/agentcli/agent/session/checkpoint"
	"github.com/agentcli/agent/session/failover"
	"github.com/agentcli/agent/session/hooks"
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
	// Client talks to the model (required): the session's own, holding
	// its id, connection and sticky fallback.
	Client *modelclient.Client
	// Sampling are the model settings of the turns (model, reasoning,
	// verbosity, service tier); [Session.Configure] changes them.
	Sampling modelclient.Settings
	// Instructions override [DefaultInstructions] when non-empty.
	Instructions string
	// HideReasoning keeps [ReasoningDelta] and [ReasoningDone] from the
	// caller's emit function (hide_agent_reasoning); the recorder and
	// OnEvent still see them, and reasoning items stay in the history.
	HideReasoning bool
	// OnEvent, when set, sees every event of a turn before the caller's
	// emit function does (the notify program hangs off it).
	OnEvent func(Event)
	// CompactPrompt overrides [SummaryPrompt], the request for the
	// handoff summary of a local compaction, when non-empty.
	CompactPrompt string
	// UnboundedConnectionRetries keeps retrying connect failures of the
	// sampling request (5 s doubling to 60 s) without spending the stream
	// budget, until ConnectionMaxWait is waited or the turn is cancelled.
	UnboundedConnectionRetries bool
	// ConnectionMaxWait bounds the total wait of those connection retries
	// in one sampling request; zero waits until the turn is cancelled
	// (the chat). exec and batch set connection_max_wait.
	ConnectionMaxWait time.Duration
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
	// AskUser shows the model's request_user_input questions to the
	// person ([tools.Invocation].AskUser); nil: nobody can answer.
	AskUser func(ctx context.Context, req tools.UserInputRequest) (map[string][]string, bool)
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
	// Context (which the resumed history already holds). The session takes
	// it: it appends to it in place, so the caller must not use its spare
	// capacity.
	Resumed []transport.Item
	// Usage is a resumed session's accumulated usage.
	Usage transport.Usage
	// Cost is a resumed session's accumulated cost in USD, nil when
	// unknown (a session with usage and no recorded cost stays unknown).
	Cost *float64
	// Price prices each response's usage (the model catalogue); nil
	// leaves every cost unknown.
	Price Pricer
	// MaxCostUSD ends a turn before a request that would start with this
	// much spent by this session in this process (agent exec --max-cost);
	// 0 is no budget.
	MaxCostUSD float64
	// ApprovalPolicy is the approval policy passed to every tool call
	// ([tools.Invocation].Policy); "" leaves each tool's own.
	ApprovalPolicy string
	// AutoCompactTokens compacts the history when the last response used at
	// least this many tokens (min(model_auto_compact_token_limit, 90% of the
	// context window)); 0 turns auto-compaction off.
	AutoCompactTokens int64
	// AutoCompactFor, when set, is AutoCompactTokens of a model: the limit
	// then follows the model in use (one /model chose, a fallback's), whose
	// context window may differ from the configured model's.
	AutoCompactFor func(model string) int64
	// CompactKeepToolCalls is how many of the latest tool calls a local
	// compaction keeps verbatim, with their outputs and the steps between
	// them (compact_keep_tool_calls); 0: [DefaultKeepToolCalls], negative:
	// none.
	CompactKeepToolCalls int
	// Fallback is the chain of alternatives after Client: a turn whose
	// provider fails for good ([modelclient.Failure.ProviderDown]) goes on
	// at the next one, over its recorded history; empty: none.
	Fallback []Alternative
	// Health is the providers' failure memory the chain is chosen by;
	// nil remembers nothing beyond the session.
	Health *failover.Health
	// ResumedFrom is where the Resumed history's last responses came from
	// (a resumed session goes on there when it is in the chain), and
	// ResumedMixed says earlier ones came from other providers too; the
	// history is then sent in portable form.
	ResumedFrom  failover.Candidate
	ResumedMixed bool
	// Observer hears what telemetry reports of the turns; nil: nobody.
	Observer Observer
	// Now is the clock of the durations the Observer hears; nil:
	// time.Now.
	Now func() time.Time
	// Hooks are the lifecycle hooks run on the session's events; nil:
	// none.
	Hooks *Hooks
	// PromptItems returns what is recorded after a user's prompt besides
	// it (the body of each skill the prompt names with $name); nil: none.
	PromptItems func(prompt string) []transport.Item
	// Notices are said as warnings once, before the first turn (skills
	// that could not be read).
	Notices []string
	// Goals bound the session's goals and say whether it has them
	// ([GoalLimits]).
	Goals GoalLimits
	// TurnStarts are where the Resumed history's turns begin
	// ([rollout.Rollout].TurnStarts), for [Session.Rewind].
	TurnStarts []int
	// Checkpoints keep snapshots of the workspace CheckpointRoot around a
	// turn that writes, so it can be undone ([Checkpointed],
	// [Session.Undo]); nil: none.
	Checkpoints    *checkpoint.Store
	CheckpointRoot string
	// ResumedTurns are a resumed session's turns ([checkpoint.Turns] of
	// its recorded events).
	ResumedTurns []checkpoint.Turn
}

// Recorder is where a session persists what happens. Items are the
// model-visible history, recorded as they are; events feed the transcript;
// Sync makes everything recorded so far durable. The session syncs at turn
// boundaries and before any tool call starts; the sync at a turn's start
// runs on another goroutine while the request goes out, so Sync must be
// safe to call concurrently with the other methods (and with itself), and
// a Sync that returns nil must have made durable everything recorded
// before it was called, whatever else is in progress.
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
	// compactHold debounces automatic compaction: while usage stays over
	// the limit after a try, the next waits for usage to reach it
	// (compactHeld: the user was told).
	compactHold int64
	compactHeld bool
	images      []string     // attached to the next turn's message
	wentOn      int          // responses in a row followed up for end_turn false
	chain       *chain       // the fallback chain; nil: none
	wake        *retry.Waker // ends the running turn's retry wait ([Session.RetryNow])
	steer       steering     // input added to the running turn ([Session.Steer])
	// cost, turnCost and run are what the session's responses cost: all
	// of them (resumed included), the running turn's, and this process's
	// (what MaxCostUSD bounds) (cost.go).
	cost, turnCost, run spend
	costMu              sync.Mutex // guards cost, read by Cost while a turn runs

	hookStarted, hookEnded bool   // SessionStart and SessionEnd ran
	noticed                bool   // Options.Notices were said
	turnID                 string // the running turn's id, for its hooks
	hookMu                 sync.Mutex
	pendingContexts        []string // hook contexts to record after the calls' outputs
	relay                  relay    // other sessions' events for the running turn's front end ([Session.Relay])
	cp                     turnCheckpoint
	// turnStarts is where each turn's items begin in history, -1 for the
	// turns a compaction summarised; beforeCompaction is the history
	// (and startsBeforeCompaction the starts) from before the last
	// compaction, until the next turn.
	turnStarts             []int
	beforeCompaction       []transport.Item
	startsBeforeCompaction []int
	written                []string // the paths the checkpoints saw the turns change
	turnsMu                sync.Mutex
	turns                  []checkpoint.Turn

	// mode is the collaboration mode the running turn works in; only the
	// turn's goroutine writes it, at a turn boundary. modeSwitched says
	// the last boundary changed it ([ModeChanged] is due).
	mode         Mode
	modeSwitched bool

	goalMu sync.Mutex
	goal   *Goal // the session's goal, nil for none ([Session.Goal])

	saveMu     sync.Mutex
	saveErr    error // the first failure to record the session
	saveWarned bool  // the user was told about saveErr

	// settingsMu guards settings (what the next turn runs with) and
	// pending (a change not yet applied). The running turn reads client
	// and opts alone; only the turn's goroutine writes them, at a turn
	// boundary ([Session.applySettings]).
	settingsMu sync.Mutex
	settings   Settings
	pending    bool
}

// Settings are what a live session may change between turns.
type Settings struct {
	// Sampling are the model settings of the next turns (/model); the
	// session's client, its connection and its fallback stay.
	Sampling modelclient.Settings
	// ApprovalPolicy is passed to every tool call ([Options].ApprovalPolicy).
	ApprovalPolicy string
	// Tools are the tools offered and run (another sandbox's); nil keeps
	// them.
	Tools *tools.Set
	// Context is added to the history (and recorded) once, at the
	// boundary the change applies at: what the model is told of it, such
	// as a new environment context.
	Context []transport.Item
	// Mode is the collaboration mode of the next turns ("" keeps it);
	// the model is told of a change in a developer message recorded at
	// the boundary ([Mode]).
	Mode Mode
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
	if opts.Health == nil {
		opts.Health = failover.NewHealth("", nil)
	}
	s := &Session{opts: opts, client: opts.Client, ledger: opts.Ledger, approved: map[string]bool{}, total: opts.Usage, cost: resumedCost(opts), wake: retry.NewWaker(),
		settings: Settings{Sampling: opts.Sampling, ApprovalPolicy: opts.ApprovalPolicy, Tools: opts.Tools}, chain: newChain(opts)}
	if s.chain != nil {
		s.client = s.chain.entries[s.chain.at].Client
	}
	s.turnStarts = append([]int(nil), opts.TurnStarts...)
	s.turns = append([]checkpoint.Turn(nil), opts.ResumedTurns...)
	if opts.Resumed != nil {
		// Taken as it is: a 100,000-item history is not copied (rollout.Load
		// leaves room after it for the next items).
		s.history = opts.Resumed
		s.mode = modeOf(s.history) // a resumed plan mode goes on
		s.goal = goalOf(s.history) // and its goal
	} else {
		ctx := make([]transport.Item, len(opts.Context))
		for i, it := range opts.Context {
			it.Origin = transport.OriginContext // known by what it is, not by its text
			ctx[i] = it
		}
		s.appendItems(ctx...)
	}
	if s.mode == "" {
		s.mode = ModeDefault
	}
	s.settings.Mode = s.mode
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

// syncBehind is sync without waiting for the disk: it starts the sync on
// another goroutine and returns a func that waits for it. Whatever syncs
// next (a tool call's start, the turn's end) still makes the same lines
// durable first, so only the request no longer waits for the fsync.
func (s *Session) syncBehind() (wait func()) {
	rec := s.opts.Recorder // compaction swaps it out for a while
	if rec == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.noteSave(rec.Sync())
	}()
	return func() { <-done }
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
// and shows it to OnEvent before passing it on, reasoning aside when
// HideReasoning is set. The first failure to record is announced once, as
// a [Warning] with NotSaved, before the event that follows it.
func (s *Session) tap(emit func(Event)) func(Event) {
	rec, on, hide := s.opts.Recorder, s.opts.OnEvent, s.opts.HideReasoning
	if rec == nil && on == nil && !hide {
		return emit
	}
	return func(ev Event) {
		if rec != nil {
			s.noteSave(rec.RecordEvent(ev))
			switch ev.(type) {
			case TurnCompleted, TurnFailed:
				s.sync()
			}
			if w, ok := s.unsavedWarning(); ok {
				emit(w)
			}
		}
		if on != nil {
			on(ev)
		}
		if hide {
			switch ev.(type) {
			case ReasoningDelta, ReasoningDone:
				return
			}
		}
		emit(ev)
	}
}

// Configure changes the session's settings. It is safe to call from any
// goroutine, also while a turn runs: the change applies at the next turn
// boundary (the start of the next turn or compaction), so a running turn
// finishes with the settings it started with. The history, the tools
// (with the MCP servers') and the approve-for-session decisions are the
// session's and stay.
func (s *Session) Configure(change func(*Settings)) {
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	change(&s.settings)
	s.pending = true
}

// Settings returns the settings the next turn runs with (including a
// change not yet applied). It is safe to call from any goroutine.
func (s *Session) Settings() Settings {
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	return s.settings
}

// applySettings applies a pending [Session.Configure] change; it runs on
// the turn's goroutine at a turn boundary.
func (s *Session) applySettings() {
	s.settingsMu.Lock()
	defer s.settingsMu.Unlock()
	if !s.pending {
		return
	}
	s.pending = false
	if s.settings.Sampling != s.opts.Sampling {
		s.opts.Sampling = s.settings.Sampling
		s.chainRestart()
	}
	s.opts.ApprovalPolicy = s.settings.ApprovalPolicy
	if s.settings.Tools != nil {
		s.opts.Tools = s.settings.Tools
	}
	ctx := s.settings.Context
	s.settings.Context = nil
	for i := range ctx {
		ctx[i].Origin = transport.OriginContext
	}
	s.appendItems(ctx...)
	if m := s.settings.Mode; m != "" && m != s.mode {
		s.mode, s.modeSwitched = m, true
		s.appendItems(modeMessage(m))
	}
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
// is called synchronously on the caller's goroutine, except for the events
// [Session.Relay] passes on from another goroutine while the turn runs
// (never two calls at once). It returns nil when the turn completed, or a
// [*TurnError].
func (s *Session) Turn(ctx context.Context, input string, emit func(Event)) error {
	return s.TurnWith(ctx, input, s.opts.Continue.Snapshot(), emit)
}

// TurnWith is [Session.Turn] with an explicit auto-continue policy
// snapshot (a queued turn carries the policy it was submitted with). A turn
// that fails on a transient class after every retry budget is continued
// over its recorded history with the policy's continuation prompt, on the
// policy's schedule; when the schedule runs out the turn is paused
// ([modelclient.EndPaused]), its state kept.
func (s *Session) TurnWith(ctx context.Context, input string, policy ContinuePolicy, emit func(Event)) error {
	s.applySettings() // a turn boundary
	emit = s.relay.attach(emit)
	defer s.relay.detach()
	emit = s.observeRetries(ctx, s.armRetryNow(s.tap(emit)))
	s.openSteer() // from TurnStarted on, the turn takes input
	emit(TurnStarted{Input: input})
	if s.modeSwitched {
		s.modeSwitched = false
		emit(ModeChanged{Mode: s.mode})
	}
	// A compaction within this turn is not undone after it: /undo then
	// means the turn.
	defer func() { s.beforeCompaction, s.startsBeforeCompaction = nil, nil }()
	s.beforeCompaction, s.startsBeforeCompaction = nil, nil
	s.turnStarts = append(s.turnStarts, len(s.history))
	s.turnsMu.Lock()
	s.turns = append(s.turns, checkpoint.Turn{N: len(s.turns) + 1, Prompt: input})
	s.turnsMu.Unlock()
	if o := s.opts.Observer; o != nil {
		o.UserPrompt(ctx, input, len(s.images))
	}
	s.turnID = newTurnID()
	s.turnCost = spend{}
	if !s.noticed {
		s.noticed = true
		for _, n := range s.opts.Notices {
			emit(Warning{Message: n})
		}
	}
	s.sessionStart(ctx, emit)
	contexts, blocked := s.userPromptSubmit(ctx, s.turnID, input, emit)
	if blocked != "" {
		s.images = nil
		s.dropSteered(emit)
		emit(HookStopped{Event: hooks.UserPromptSubmit, Reason: blocked})
		emit(TurnCompleted{Total: s.total, Provider: s.Provider(), Cost: s.turnCost.value(), TotalCost: s.Cost()})
		return nil
	}
	s.startOnHealthy(emit)
	r := &turnRun{s: s, emit: emit, mc: s.newTurn(), images: s.images, contexts: contexts}
	s.images = nil
	err := s.coordinator(ctx, policy, r).Run(ctx, input, r.round)
	for n := 0; err == nil && s.hooked(s.stopEvent()); n++ {
		goOn := s.stopHooks(ctx, s.turnID, s.lastAssistantText(), n > 0, emit)
		if goOn == "" {
			break
		}
		if n == maxStopContinuations {
			emit(Warning{Message: fmt.Sprintf("%s hooks sent the model back to work %d times in this turn; the turn ends here", s.stopEvent(), n)})
			break
		}
		r.rounds, r.continued = 0, false
		s.openSteer()
		err = s.coordinator(ctx, policy, r).Run(ctx, goOn, r.round)
	}
	s.dropSteered(emit)
	s.checkpointAfter(ctx, emit)
	if err != nil {
		te := &TurnError{Outcome: *modelclient.OutcomeOf(err), Retries: r.retries, Requests: r.requests()}
		emit(TurnFailed{Err: te, Requests: te.Requests})
		return te
	}
	emit(TurnCompleted{Last: r.last, Total: s.total, Requests: r.requests(), Provider: s.Provider(),
		Cost: s.turnCost.value(), TotalCost: s.Cost()})
	return nil
}

// RetryNow ends the wait of the running turn's pending retry (any layer:
// a request, the stream, a continuation): the next attempt starts at
// once. It is the chat's Ctrl+R, and safe to call from any goroutine. A
// call while nothing waits ends the next wait to start, unless a retry is
// announced first: a press meant for an earlier wait never cuts a later
// one. Front ends ask [RetryNowAllowed] before offering it.
func (s *Session) RetryNow() { s.wake.Wake() }

// armRetryNow passes events on to emit, dropping a pending
// [Session.RetryNow] as each retry is announced (before its wait).
func (s *Session) armRetryNow(emit func(Event)) func(Event) {
	return func(ev Event) {
		if _, ok := ev.(Retry); ok {
			s.wake.Arm()
		}
		emit(ev)
	}
}

// newTurn starts the model client's side of a turn on the current
// provider, with budgets of its own.
func (s *Session) newTurn() *modelclient.Turn {
	return s.client.NewTurn(modelclient.TurnOptions{
		Settings:          s.sampling(),
		Connection:        s.opts.UnboundedConnectionRetries,
		ConnectionMaxWait: s.opts.ConnectionMaxWait,
		Wake:              s.wake,
	})
}

// coordinator is the turn's continuation layer: policy's schedule, the
// turn's own tool calls deciding whether it can continue, each round
// logged and emitted as a [Retry] of [LayerContinue].
func (s *Session) coordinator(ctx context.Context, policy ContinuePolicy, r *turnRun) *Coordinator {
	// Only this turn's tool calls decide whether it can continue: an
	// unknown outcome of an earlier turn does not stop later ones.
	earlier := map[string]bool{}
	for _, e := range s.ledger.Entries() {
		earlier[e.CallID] = true
	}
	return &Coordinator{
		Policy:      policy,
		Sleep:       s.wake.Sleeper(s.client.Sleep),
		Retryable:   func(err error) bool { return modelclient.OutcomeOf(err).Continuable() },
		CanContinue: func() error { return s.continuable(earlier) },
		Window:      func() *retry.Window { return r.mc.Window() },
		Notify: func(n int, d time.Duration, cause error) {
			f := modelclient.Classify(cause)
			var waited time.Duration
			for _, w := range policy.Delays[:n] {
				waited += w
			}
			rt := modelclient.Retry{Layer: LayerContinue, Class: f.Class(), Attempt: n, Max: len(policy.Delays),
				Left: len(policy.Delays) - n, Delay: d, Waited: waited, Failure: f}
			s.client.LogRetry(ctx, "continue", rt)
			r.retries++
			r.emit(Retry{rt})
		},
	}
}

// turnRun is one turn's progress over its continuation rounds.
type turnRun struct {
	s    *Session
	emit func(Event)
	// mc is the model client's turn at the current provider; before
	// counts the requests made at providers the turn left.
	mc        *modelclient.Turn
	before    int
	retries   int
	compacted bool // the window was compacted once for this turn
	rounds    int
	continued bool // the continuation prompt is recorded
	images    []string
	contexts  []string // UserPromptSubmit hooks' contexts, recorded after the prompt
	last      transport.Usage
}

// requests is how many requests the turn sent, at every provider.
func (r *turnRun) requests() int { return r.before + r.mc.Requests() }

// round is one continuation round: the prompt recorded, then sampling
// requests until the model ends the turn (tool follow-ups included).
func (r *turnRun) round(ctx context.Context, prompt string) error {
	s := r.s
	if err := s.maybeCompact(ctx, r.emit); err != nil {
		r.emit(Warning{Message: "automatic compaction failed: " + err.Error()})
	}
	// The continuation prompt is recorded once per turn: a later round
	// resends the history that already carries it.
	r.rounds++
	if r.rounds == 1 || !r.continued {
		r.continued = r.rounds > 1
		s.appendItems(transport.UserMessageWithImages(prompt, r.images))
		r.images = nil // a continuation carries the prompt only
		if s.opts.PromptItems != nil && r.rounds == 1 {
			s.appendItems(s.opts.PromptItems(prompt)...)
		}
		s.addContexts(r.contexts)
		r.contexts = nil
	}
	// A turn boundary: the prompt survives a crash. It is made durable
	// while the request goes out; a tool call's start syncs again before
	// the call runs, and the turn's end waits for it.
	defer s.syncBehind()()
	for {
		if err := s.budget(); err != nil {
			return err
		}
		s.takeSteered()
		u, ran, err := s.sample(ctx, r.mc, r.emit, &r.retries)
		if err != nil {
			if r.recover(ctx, err) {
				continue
			}
			return err
		}
		s.answered()
		r.last = u
		if ran == 0 && s.closeSteer() {
			return nil
		}
		// Tool outputs are recorded: sample again so the model sees
		// them, compacting first if the window is filling up.
		if err := s.maybeCompact(ctx, r.emit); err != nil {
			r.emit(Warning{Message: "automatic compaction failed: " + err.Error()})
		}
	}
}

// recover reports whether a failed sampling request is sent again: once
// after compacting a full window, rather than ending the turn, or at the
// next provider of the chain, with budgets of its own (the requests
// already made still count).
func (r *turnRun) recover(ctx context.Context, err error) bool {
	s := r.s
	if !r.compacted && s.selectKept().worth(false) && modelclient.Classify(err).Kind == modelclient.KindContextWindow {
		r.compacted = true
		if s.compact(ctx, r.emit) == nil {
			return true
		}
	}
	if s.failOver(ctx, err, r.emit) {
		r.before += r.mc.Requests()
		r.mc = s.newTurn()
		return true
	}
	return false
}

// autoCompactTokens is the automatic compaction limit of the model the
// next request goes to. It runs on the turn's goroutine.
func (s *Session) autoCompactTokens() int64 {
	if f := s.opts.AutoCompactFor; f != nil {
		return f(s.sampling().Model)
	}
	return s.opts.AutoCompactTokens
}

// maybeCompact compacts when the last response used the automatic
// compaction limit (autoCompactTokens) or more.
func (s *Session) maybeCompact(ctx context.Context, emit func(Event)) error {
	limit := s.autoCompactTokens()
	if limit <= 0 || s.lastTotal < limit {
		return nil
	}
	used := s.lastTotal
	if s.compactHold > 0 && used < s.compactHold {
		// Debounced: usage stayed above the limit after the last try
		// (refused, failed, or not enough); tried again only once the
		// history has grown by a tenth of the limit, or after usage fell
		// below it.
		if !s.compactHeld {
			s.compactHeld = true
			emit(Warning{Message: fmt.Sprintf("automatic compaction held: the context is still at %d tokens, over the %d-token limit, after compacting; "+
				"it is tried again at %d tokens (or use /compact)", used, limit, s.compactHold)})
		}
		return nil
	}
	s.lastTotal = 0
	s.compactHold, s.compactHeld = used+max(limit/10, 1), false
	if err := s.compact(ctx, emit); !errors.Is(err, ErrNothingToCompact) {
		return err
	}
	return nil
}

// prompt rebuilds the request from recorded history. It runs before every
// attempt, so a retry carries exactly what was recorded, never a fragment.
func (s *Session) prompt() *modelclient.Prompt {
	return &modelclient.Prompt{
		Instructions:      s.opts.Instructions,
		Input:             s.normalize(s.portable(s.history)),
		Tools:             s.toolSpecs(),
		ParallelToolCalls: true,
		OutputSchema:      s.opts.OutputSchema,
	}
}

// sample runs one sampling request through the model client, which owns
// every retry layer under it; the session supplies the prompt (rebuilt
// from history for every attempt) and consumes each stream. It reports
// how many tool calls the successful attempt ran (the turn then needs a
// follow-up) and counts retries into *retries.
func (s *Session) sample(ctx context.Context, mc *modelclient.Turn, emit func(Event), retries *int) (usage transport.Usage, ran int, _ error) {
	o := mc.Sample(ctx, modelclient.Sampling{
		Prompt: s.prompt,
		// Only the successful attempt's calls decide the follow-up: calls
		// of a failed attempt ran and were recorded, and the retry shows
		// them.
		Consume: func(ctx context.Context, st transport.Stream) error {
			var err error
			usage, ran, err = s.attempt(ctx, st, emit)
			return err
		},
		Retry:    func(r modelclient.Retry) { *retries++; emit(Retry{r}) },
		Fallback: func(f modelclient.Fallback) { emit(Warning{Message: f.Message()}) },
	})
	if o != nil {
		return transport.Usage{}, 0, o
	}
	return usage, ran, nil
}

// attempt consumes one stream. The completed items of an attempt are
// recorded into history when it ends: all of them when it succeeds (or
// was cut at the output limit after answering), and when it failed only if
// it completed tool calls, which run and whose outputs the retry must
// carry; otherwise a retry carries nothing of the failed attempt (its
// reasoning included). ran counts the calls that ran, plus one when the
// server asked to go on (end_turn false): either way the turn samples
// again.
func (s *Session) attempt(ctx context.Context, stream transport.Stream, emit func(Event)) (_ transport.Usage, ran int, _ error) {
	var a streamed
	usage, err := s.consume(ctx, stream, &a, emit)
	if err == nil || len(a.calls) > 0 {
		s.appendItems(a.items...)
	}
	// Completed calls run whether the stream finished or not: they are
	// recorded, and the retry (or follow-up) must carry their outputs.
	ran, abort := s.runCalls(ctx, a.calls, emit)
	if abort && err == nil {
		err = errAborted
	}
	if err == nil && ran == 0 && s.goOn(a.endTurn, emit) {
		ran = 1
	}
	return usage, ran, err
}

// maxGoOn bounds the requests in a row a server's end_turn false makes
// without a tool call.
const maxGoOn = 8

// goOn reports whether a response without tool calls is followed up: the
// server said end_turn false, as the reference client honours, at most
// [maxGoOn] times in a row.
func (s *Session) goOn(endTurn *bool, emit func(Event)) bool {
	if endTurn == nil || *endTurn {
		s.wentOn = 0
		return false
	}
	if s.wentOn >= maxGoOn {
		s.wentOn = 0
		emit(Warning{Message: fmt.Sprintf("the server asked to go on (end_turn false) %d times in a row without a tool call; the turn ends here", maxGoOn)})
		return false
	}
	s.wentOn++
	return true
}

// streamed is what one attempt's stream delivered.
type streamed struct {
	items    []transport.Item // completed items, in order
	seen     map[string]bool  // their keys ([itemKey])
	calls    []transport.Item // the tool calls among them not yet run
	answered bool             // an assistant message with text
	endTurn  *bool            // response.completed's end_turn
	warned   map[string]bool  // the items and deltas told unreadable ([streamed.malformed])
}

// malformed tells the user what of the stream agent could not read, with
// the raw event for the recorder: once for an item's deltas and once for
// the item itself (response.completed lists again what the stream sent).
func (a *streamed) malformed(m transport.Malformed, emit func(Event)) {
	if m.ItemID != "" {
		key := "item:" + m.ItemID
		if strings.HasSuffix(m.Type, ".delta") {
			key = "delta:" + m.ItemID
		}
		if a.warned[key] {
			return
		}
		if a.warned == nil {
			a.warned = map[string]bool{}
		}
		a.warned[key] = true
	}
	emit(Warning{Message: m.Message(), Raw: m.Raw})
}

// itemKey identifies an item across the events of one response: its id,
// else its call id, else its type and text.
func itemKey(it transport.Item) string {
	switch {
	case it.ID != "":
		return "id:" + it.ID
	case it.CallID != "":
		return "call:" + it.Type + ":" + it.CallID
	}
	return "text:" + it.Type + ":" + it.Text()
}

// cutAnswer is the warning of a response cut at its output limit after it
// answered: the partial answer stands.
const cutAnswer = "the answer was cut short: the response reached the server's output token limit (max_output_tokens)"

// consume reads one stream into a.
func (s *Session) consume(ctx context.Context, stream transport.Stream, a *streamed, emit func(Event)) (transport.Usage, error) {
	open := map[string]bool{} // items with streamed deltas but not yet done
	var order []string
	clock := &streamClock{s: s, ctx: ctx, last: s.now()}
	for ev := range stream.Events() {
		switch ev := ev.(type) {
		case transport.Created:
			clock.event("response.created", nil, nil)
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
		case transport.Malformed:
			a.malformed(ev, emit)
		case transport.OutputItemDone:
			clock.event("response.output_item.done", nil, nil)
			delete(open, ev.Item.ID)
			if ev.Problem != nil {
				a.malformed(*ev.Problem, emit)
			}
			s.take(a, ev.Item, emit)
		case transport.Completed:
			for _, m := range ev.Malformed {
				a.malformed(m, emit)
			}
			// A gateway (LiteLLM) may deliver an item only in the final
			// response: take what the stream did not.
			for _, it := range ev.Output {
				if !a.seen[itemKey(it)] {
					delete(open, it.ID)
					s.take(a, it, emit)
				}
			}
			a.endTurn = ev.EndTurn
			clock.event("response.completed", ev.Usage, nil)
			return s.completed(ev.Usage, emit), nil
		}
	}
	err := stream.Err()
	if err == nil {
		err = transport.ErrIncomplete // a stream must end with response.completed
	}
	clock.event(failedKind(err), nil, err)
	var inc *transport.IncompleteError
	if errors.As(err, &inc) && inc.Reason == "max_output_tokens" && (a.answered || len(a.calls) > 0) {
		// Cut at the output limit after it answered: the partial answer
		// is the answer, said to be cut; asking again gets the same cut.
		emit(Warning{Message: cutAnswer})
		return s.completed(nil, emit), nil
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
	return transport.Usage{}, err
}

// completed accounts a response's usage and announces its end.
func (s *Session) completed(usage *transport.Usage, emit func(Event)) transport.Usage {
	var u transport.Usage
	if usage != nil {
		u = *usage
		s.total.Add(u)
		s.lastTotal = u.TotalTokens
		if s.lastTotal < s.autoCompactTokens() {
			s.compactHold, s.compactHeld = 0, false // below the limit again
		}
		s.price(u)
	}
	emit(ResponseCompleted{Usage: u})
	return u
}

// take adds a completed item to the attempt and announces it. An empty
// assistant message (a gateway opens one before a tool call) is dropped:
// nothing to show, nothing to send back.
func (s *Session) take(a *streamed, it transport.Item, emit func(Event)) {
	if a.seen == nil {
		a.seen = map[string]bool{}
	}
	a.seen[itemKey(it)] = true
	switch {
	case it.Type == "message" && it.Role == "assistant":
		text, refused := it.Answer()
		if strings.TrimSpace(text) == "" {
			return
		}
		a.answered = true
		a.items = append(a.items, it)
		emit(MessageDone{ItemID: it.ID, Text: text, Refused: refused})
		if plan, ok := proposedPlan(text); ok && s.mode == ModePlan {
			emit(PlanProposed{ItemID: it.ID, Plan: plan})
		}
		return
	case it.Type == "reasoning":
		emit(ReasoningDone{ItemID: it.ID, Text: reasoningText(it)})
	case it.Type == "web_search_call":
		emit(webSearchDone(it))
	}
	a.items = append(a.items, it)
	if it.IsCall() && s.ledger.State(it.CallID) == "" {
		_ = s.ledger.set(it.CallID, it.Name, CallRequested)
		a.calls = append(a.calls, it)
	}
}

// toolSpecs are the tools offered: the session's, and the goal tools
// unless goals are off.
func (s *Session) toolSpecs() []json.RawMessage {
	specs := s.opts.Tools.Specs()
	if !s.opts.Goals.Enabled || s.opts.Tools == nil {
		return specs
	}
	return append(specs, goalSpecs()...)
}
