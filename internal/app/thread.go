package app

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentcli/agent/internal/subagent"
	"github.com/agentcli/agent/internal/telemetry"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/rollout/recording"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
	"github.com/agentcli/agent/tools/sandbox"
)

// AllTurns is [Spec].ForkTurns keeping every turn of the session forked.
const AllTurns = -1

// Spec says which session [App.Open] opens and how it differs from the
// app's config and flags. The zero Spec is a new session in the app's
// directory.
type Spec struct {
	// From is the rollout path of a recorded session: the session opened
	// continues it (its id, history and file), or, with Fork, a copy.
	From string
	// Fork opens a new session (its own id and file) holding the first
	// ForkTurns turns of From's ([AllTurns]: all of them).
	Fork      bool
	ForkTurns int
	// NoTranscript says the caller shows none of From's past turns (agent
	// exec resume): its events are folded into the session's state as
	// they are read, not kept in Recorded.Events. Not with Fork.
	NoTranscript bool
	// Cwd is where the session works; "" is the app's directory (-C).
	Cwd string
	// Sandbox and ApprovalPolicy replace config's and the flags' ("" keeps
	// them).
	Sandbox, ApprovalPolicy string
	// Approve asks the user about calls the policy does not allow by
	// itself; nil is the app's ([Options].Approve).
	Approve func(ctx context.Context, req tools.ApprovalRequest) tools.Decision
	// Model and ReasoningEffort replace config's ("" keeps them).
	Model, ReasoningEffort string
	// BaseInstructions replaces the instructions; DeveloperInstructions
	// replaces config's developer_instructions of a new session.
	BaseInstructions, DeveloperInstructions string
	// Editor is where the session's patches read and write file texts
	// (an ACP editor's buffers); nil: the disk.
	Editor tools.Editor
	// Clear says the new session replaces one the user cleared (the
	// chat's /new and /clear): its SessionStart hooks get source "clear",
	// as Codex sends it, instead of "startup".
	Clear bool
	// MCPServers are MCP servers of this session alone, besides config's
	// (an ACP client's): started before Open returns, stopped with the
	// session, shared with its subagents.
	MCPServers []mcp.ServerConfig

	// child opens a subagent of a session (spawn_agent): its parent's
	// workspace and approver; nil for a session a front end opens.
	child *childSpec
}

// Thread is a session opened on the app ([App.Open]): the engine's
// session with what it holds of its own, which no other session shares:
// its id, its model clients (the id on every request, the sticky
// WebSocket fallback, the cached connection), the workspace's tools and
// its recording. Close ends them.
type Thread struct {
	*session.Session
	// ID is the session's id: the rollout's, and the one every request
	// carries (headers and prompt_cache_key).
	ID string
	// Agents are the subagents of the session's tree (spawn_agent): the
	// root's and every descendant's, shared by them, for front ends to
	// list and watch.
	Agents *subagent.Tree
	// Recorded is the recording a resumed or forked session continues,
	// as loaded (its transcript, its warnings); nil for a new session.
	Recorded *rollout.Rollout

	a *App
	// mu guards ws, tools, name and retired: where and with what the
	// session works ([Thread.SetPermissions] changes them), /rename's
	// name, and the tools a new sandbox replaced, closed at the next turn
	// boundary. rec records the session (nil: ephemeral).
	mu      sync.Mutex
	ws      Workspace
	tools   *tools.Set
	rec     *rollout.Recorder
	name    string
	retired []*tools.Set
	closers []func()
	// planFrom is the sandbox mode plan mode replaced with read-only, to
	// return to when it ends; "" outside plan mode ([Thread.SetMode]).
	planFrom sandbox.Mode
	// main is the session's client of its configured provider.
	main *modelclient.Client
	// telemetry reports the session's events ([otel]); nil: none.
	telemetry *telemetry.Telemetry
	// state is what a session opened with Spec.NoTranscript took from
	// its recording's events; nil: they are in Recorded.Events.
	state *recordedState
	// agents are the subagents of the session's tree (its root's);
	// depth is the session's below the root; self is the session's own
	// entry when it is a subagent. approve asks about its calls.
	agents  *agentTree
	depth   int
	self    *agent
	approve func(ctx context.Context, req tools.ApprovalRequest) tools.Decision
	collab  []tools.Tool
	// mcp runs the session's own MCP servers ([Spec].MCPServers); nil
	// when it has none.
	mcp *mcp.Manager
}

// Workspace is where the session works and under which rules.
func (t *Thread) Workspace() Workspace {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ws
}

// Path is the session's rollout file, "" when it is not recorded
// (ephemeral).
func (t *Thread) Path() string {
	if t.rec == nil {
		return ""
	}
	return t.rec.Path()
}

// Tools are the session's tools, the MCP servers' included.
func (t *Thread) Tools() *tools.Set {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tools
}

// Close ends what the session holds: its model clients, tools (and the
// commands they left running) and recording. The session is not used
// after.
func (t *Thread) Close() {
	t.closeRetired()
	t.mu.Lock()
	closers := t.closers
	t.closers = nil
	t.mu.Unlock()
	for i := len(closers) - 1; i >= 0; i-- {
		closers[i]()
	}
}

// closeRetired closes the tools a new sandbox replaced.
func (t *Thread) closeRetired() {
	t.mu.Lock()
	retired := t.retired
	t.retired = nil
	t.mu.Unlock()
	for _, s := range retired {
		s.Close()
	}
}

// Open opens a session: a new one, or a recorded one continued or forked
// (sp.From), in the app's directory or another, each with its own id,
// model clients, tools and recording over the app's process scope (config,
// log, HTTP pool, credentials, MCP servers, retry gate, failover health).
// Many may be open at once and run turns concurrently. The caller must
// Close it.
func (a *App) Open(ctx context.Context, sp Spec) (_ *Thread, err error) {
	t := &Thread{ID: rollout.NewID(), a: a}
	defer func() {
		if err != nil {
			t.Close()
		}
	}()
	if sp.From != "" {
		if t.Recorded, err = a.recorded(ctx, sp, t); err != nil {
			return nil, err
		}
		t.ID = t.Recorded.Meta.ID
	}
	if err := a.hold(t); err != nil {
		return nil, err
	}
	notices, err := a.place(t, sp)
	if err != nil {
		return nil, err
	}
	approve := t.approve
	if t.tools, err = t.ws.tools(); err != nil {
		return nil, err
	}
	set := t.tools
	t.closers = append(t.closers, func() { set.Close() })
	notices = append(notices, t.startSessionMCP(ctx, sp)...)
	t.addSources(set)
	opts := a.opts
	opts.Tools, opts.ApprovalPolicy, opts.Approve = t.tools, t.ws.Policy, approve
	if sp.BaseInstructions != "" {
		opts.Instructions = sp.BaseInstructions
	}
	opts.Sampling = a.sampling
	if sp.Model != "" {
		opts.Sampling.Model = sp.Model
	}
	if sp.ReasoningEffort != "" {
		opts.Sampling.ReasoningEffort = sp.ReasoningEffort
	}
	co := a.clientOpts
	if a.telemetry != nil {
		t.telemetry = a.telemetry.Conversation(t.ID, opts.Sampling.Model)
		opts.Observer, co.Observer = t.telemetry, t.telemetry
		a.conversationStarts(t, t.telemetry)
	}
	opts.Client = t.client(co)
	t.main = opts.Client
	for i, fo := range a.fallbackClients {
		fo.Observer = co.Observer
		opts.Fallback = append(opts.Fallback, session.Alternative{Candidate: a.fallbacks[i], Client: t.client(fo)})
	}
	if n := a.notifier(t); n != nil {
		opts.OnEvent = n.observe
	}
	opts.Checkpoints, opts.CheckpointRoot = a.checkpoints, t.ws.Cwd
	opts.OnEvent = t.stopChildrenOnInterrupt(opts.OnEvent)
	opts.Notices = append(opts.Notices, notices...)
	if t.Recorded != nil {
		err = a.resumeInto(ctx, &opts, t)
	} else {
		err = a.startInto(ctx, &opts, t, sp)
	}
	if err != nil {
		return nil, err
	}
	source := "startup"
	switch {
	case sp.Clear && sp.From == "":
		source = "clear"
	case sp.Fork:
		source = "fork"
	case sp.From != "":
		source = "resume"
	}
	a.withHooks(&opts, t, source, sp.child)
	a.withSkills(&opts, t)
	t.Session = session.New(opts)
	if t.Session.Mode() == session.ModePlan {
		// A session resumed in plan mode goes on under its read-only sandbox.
		if err := t.modeSandbox(session.ModePlan); err != nil {
			return nil, err
		}
	}
	t.closers = append(t.closers, func() { t.Session.End(context.Background(), nil) })
	t.closers = append(t.closers, t.closeChildren) // closed first: its children go before it
	return t, nil
}

// recorded loads the recording sp continues: From itself, or the copy of
// its first turns made into a new rollout for a fork (with t's id).
func (a *App) recorded(ctx context.Context, sp Spec, t *Thread) (*rollout.Rollout, error) {
	if sp.NoTranscript && !sp.Fork {
		t.state = &recordedState{}
		return rollout.LoadState(sp.From, t.state.fold)
	}
	ro, err := rollout.Load(sp.From)
	if err != nil || !sp.Fork {
		return ro, err
	}
	if sp.ForkTurns < AllTurns {
		return nil, fmt.Errorf("fork: %d turns", sp.ForkTurns)
	}
	if sp.ForkTurns != AllTurns {
		if err := firstTurns(ro, sp.ForkTurns); err != nil {
			return nil, err
		}
	}
	r, err := rollout.Fork(ctx, a.home, ro, t.ID, a.env.Time())
	if err != nil {
		return nil, err
	}
	r.Close()
	return rollout.Load(r.Path())
}

// client makes a model client of opts for the thread: its id, closed
// with it.
func (t *Thread) client(opts modelclient.Options) *modelclient.Client {
	opts.SessionID = t.ID
	c := modelclient.New(opts)
	t.closers = append(t.closers, func() { c.Close() })
	return c
}

// startInto gives a new session its initial context and recording.
func (a *App) startInto(ctx context.Context, opts *session.Options, t *Thread, sp Spec) error {
	cfg := a.cfg
	if sp.DeveloperInstructions != "" {
		cfg.DeveloperInstructions = sp.DeveloperInstructions
	}
	initial, err := t.ws.context(cfg, a.home, a.env.Time())
	if err != nil {
		return err
	}
	opts.Context = initial
	if a.ephemeral {
		return nil
	}
	instructions := opts.Instructions // instructions / model_instructions_file
	if instructions == "" {
		instructions = session.DefaultInstructions
	}
	r, err := rollout.Create(ctx, a.home, rollout.SessionMeta{
		ID: t.ID, Cwd: t.ws.Cwd, Originator: a.originator, CLIVersion: a.version,
		ModelProvider: a.clientOpts.Provider.ID, Model: opts.Sampling.Model, Instructions: instructions,
		Spawn: sp.spawn(t.depth),
	}, a.env.Time())
	if err != nil {
		return fmt.Errorf("record the session: %w", err)
	}
	t.closers = append(t.closers, func() { a.closeRecorder(r) })
	t.rec = r
	opts.Recorder = recording.New(r, a.secrets)
	opts.Ledger = session.NewLedger(recording.LedgerSink(r))
	return nil
}

// closeRecorder closes a session's recording and logs a failure to list
// it in Codex's state database (a home shared with Codex).
func (a *App) closeRecorder(r *rollout.Recorder) {
	r.Close()
	if err := r.CodexStateError(); err != nil {
		a.logger.Warn("the session is not listed in Codex's pickers", "session", r.ID(), "err", err)
	}
}

// resumeInto sets opts to continue the thread's recording, appending to
// its file (held until the thread closes).
func (a *App) resumeInto(ctx context.Context, opts *session.Options, t *Thread) error {
	ro := t.Recorded
	r, err := rollout.Open(ctx, ro.Path)
	if err != nil {
		return err
	}
	t.closers = append(t.closers, func() { a.closeRecorder(r) })
	t.rec, t.name = r, ro.Name
	opts.Recorder = recording.New(r, a.secrets)
	opts.Resumed, opts.Usage, opts.Cost, opts.TurnStarts = ro.History, ro.Total, ro.CostUSD, ro.TurnStarts
	st := t.state
	if st == nil {
		st = stateOf(ro.Events)
	}
	opts.ResumedTurns = st.turns
	opts.ResumedFrom, opts.ResumedMixed = st.provider(ro)
	opts.Ledger = session.NewLedger(recording.LedgerSink(r))
	var entries []session.LedgerEntry
	for _, le := range ro.Ledger {
		entries = append(entries, session.LedgerEntry{CallID: le.CallID, Name: le.Name, State: session.CallState(le.State)})
	}
	opts.Ledger.Restore(entries)
	return nil
}

// hold registers t as open in this process until it closes: a session is
// open once (its rollout has one writer), so opening one that is open
// already says so.
func (a *App) hold(t *Thread) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.threads[t.ID] {
		return fmt.Errorf("session %s is open already", t.ID)
	}
	if a.threads == nil {
		a.threads = map[string]bool{}
	}
	a.threads[t.ID] = true
	t.closers = append(t.closers, func() {
		a.mu.Lock()
		delete(a.threads, t.ID)
		a.mu.Unlock()
	})
	return nil
}

// addSources adds to set what every set of the session's tools offers
// besides the workspace's: the MCP servers' tools and the collaboration
// tools.
func (t *Thread) addSources(set *tools.Set) {
	if t.a.mcpServers != nil {
		set.AddSource(t.a.mcpServers.Tools)
	}
	if t.mcp != nil {
		set.AddSource(t.mcp.Tools)
	}
	if collab := t.collab; collab != nil {
		set.AddSource(func() []tools.Tool { return collab })
	}
}

// stopChildrenOnInterrupt passes events on to next and interrupts the
// session's subagents when its turn is interrupted (Esc, Ctrl-C, a
// client's cancel).
func (t *Thread) stopChildrenOnInterrupt(next func(session.Event)) func(session.Event) {
	return func(ev session.Event) {
		if f, ok := ev.(session.TurnFailed); ok && f.Err != nil && f.Err.Failure.Kind == modelclient.KindCanceled {
			t.interruptChildren()
		}
		if next != nil {
			next(ev)
		}
	}
}

// spawn is the rollout's record of a subagent's parent; nil for another
// session.
func (sp Spec) spawn(depth int) *rollout.ThreadSpawn {
	if sp.child == nil {
		return nil
	}
	c := sp.child
	return &rollout.ThreadSpawn{ParentThreadID: c.parent.ID, Depth: depth, AgentRole: c.role, AgentNickname: c.nickname}
}
