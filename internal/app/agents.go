package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agentcli/agent/internal/subagent"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/sandbox"
)

// Subagents, as Codex has them (codex-rs core/src/tools/handlers/
// multi_agents): the model spawns a child session with spawn_agent and
// drives it with send_input, resume_agent, wait_agent and close_agent.
// Each child is a session of its own opened by [App.Open] (its own id and
// rollout, which names its parent), so it shares the app's process scope:
// the retry gate, failover health, credentials and HTTP pool. Its
// workspace is its parent's (the sandbox narrowed by a role, never
// widened; the parent's approval policy), and its approvals are asked
// through its parent's approver, so they reach the user where the
// parent's do. A parent's interrupted turn interrupts its children's; a
// closed parent closes them (their tools, with the commands they run).

// agentTree is the subagents of one root session and all its
// descendants: the max_threads limit counts across it.
type agentTree struct {
	// root is the root session's id: the session_id of every hook of the
	// tree, as Codex's hook session id.
	root   string
	mu     sync.Mutex
	agents map[string]*agent
	order  []string
	open   int
	names  int // nicknames handed out
	// view is what front ends see of the tree ([Thread].Agents).
	view *subagent.Tree
}

// agent is one subagent of the tree.
type agent struct {
	tree   *agentTree
	parent *Thread
	// spec reopens the child (resume_agent) as it was opened.
	spec Spec

	setMu   sync.Mutex
	mu      sync.Mutex
	info    subagent.Info
	thread  *Thread
	changed chan struct{} // closed and replaced at every change of info
	cancel  context.CancelFunc
	running bool
	queue   []string
	closed  bool
	done    chan struct{} // closed when the running turn's goroutine ends
}

// snapshot returns the agent's info.
func (ag *agent) snapshot() subagent.Info {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return ag.info
}

// set changes the agent's state under ag.mu and tells the watchers.
func (ag *agent) set(change func(*subagent.Info)) {
	ag.setMu.Lock() // the watchers hear the changes in order
	defer ag.setMu.Unlock()
	ag.mu.Lock()
	change(&ag.info)
	info := ag.info
	close(ag.changed)
	ag.changed = make(chan struct{})
	ag.mu.Unlock()
	ag.tree.tell(info)
}

func (tr *agentTree) tell(info subagent.Info) { tr.view.Update(info) }

// lookup finds an agent of the tree by id (or a unique suffix of it, or
// its nickname).
func (tr *agentTree) lookup(id string) *agent {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if ag, ok := tr.agents[id]; ok {
		return ag
	}
	var found *agent
	for _, ag := range tr.agents {
		ag.mu.Lock()
		match := id != "" && (strings.EqualFold(ag.info.Nickname, id) || strings.HasSuffix(ag.info.ID, id))
		ag.mu.Unlock()
		if match {
			if found != nil {
				return nil
			}
			found = ag
		}
	}
	return found
}

// nicknames are the names subagents of roles without their own
// candidates are shown by.
func nicknames() []string {
	return []string{"Euclid", "Noether", "Turing", "Lovelace", "Hopper", "Gauss", "Euler", "Curie",
		"Darwin", "Kepler", "Faraday", "Shannon"}
}

// spawn opens a child of parent with sp, gives it its first input and
// starts its turn.
func (tr *agentTree) spawn(ctx context.Context, parent *Thread, sp Spec, role subagent.Role, input string) (*agent, error) {
	limit := parent.a.cfg.Agents.MaxThreads
	tr.mu.Lock()
	if tr.open >= limit {
		tr.mu.Unlock()
		return nil, fmt.Errorf("agent thread limit reached (max %d)", limit)
	}
	tr.open++
	names := role.Nicknames
	if len(names) == 0 {
		names = nicknames()
	}
	nick := names[tr.names%len(names)]
	if round := tr.names / len(names); round > 0 {
		nick = fmt.Sprintf("%s %d", nick, round+1)
	}
	tr.names++
	tr.mu.Unlock()
	sp.child.nickname = nick
	child, err := parent.a.Open(ctx, sp)
	if err != nil {
		tr.mu.Lock()
		tr.open--
		tr.mu.Unlock()
		return nil, err
	}
	ag := &agent{tree: tr, parent: parent, spec: sp, thread: child, changed: make(chan struct{}),
		info: subagent.Info{ID: child.ID, Parent: parent.ID, Nickname: nick, Role: role.Name, Depth: child.depth,
			Status: subagent.PendingInit, Path: child.Path()}}
	child.self = ag
	tr.mu.Lock()
	if tr.agents == nil {
		tr.agents = map[string]*agent{}
	}
	tr.agents[child.ID] = ag
	tr.order = append(tr.order, child.ID)
	tr.mu.Unlock()
	tr.tell(ag.snapshot())
	ag.submit(input, false)
	return ag, nil
}

// submit gives the agent input: its next turn, started now when it is
// idle; queued behind the running one, or, with interrupt, ending it
// first.
func (ag *agent) submit(input string, interrupt bool) {
	ag.mu.Lock()
	if ag.closed {
		ag.mu.Unlock()
		return
	}
	ag.queue = append(ag.queue, input)
	if ag.running {
		if interrupt && ag.cancel != nil {
			ag.cancel()
		}
		ag.mu.Unlock()
		return
	}
	ag.running = true
	ag.done = make(chan struct{})
	ag.mu.Unlock()
	go ag.run()
}

// run runs the agent's queued inputs, one turn each, until the queue is
// empty or the agent is closed. Each turn is bounded by
// job_max_runtime_seconds.
func (ag *agent) run() {
	ag.mu.Lock()
	done := ag.done
	ag.mu.Unlock()
	defer close(done)
	for {
		ag.mu.Lock()
		if ag.closed || len(ag.queue) == 0 {
			ag.running = false
			ag.cancel = nil
			ag.mu.Unlock()
			return
		}
		input := ag.queue[0]
		ag.queue = ag.queue[1:]
		limit := time.Duration(ag.parent.a.cfg.Agents.JobMaxRuntimeSeconds) * time.Second
		ctx, cancel := context.WithTimeoutCause(context.Background(), limit,
			fmt.Errorf("the subagent's turn ran past job_max_runtime_seconds (%d s)", int64(limit/time.Second)))
		ag.cancel = cancel
		th := ag.thread
		ag.mu.Unlock()
		ag.set(func(i *subagent.Info) { i.Status, i.Task, i.Message = subagent.Running, input, "" })
		last := ""
		err := th.Turn(ctx, input, func(ev session.Event) {
			switch ev := ev.(type) {
			case session.MessageDone:
				last = ev.Text
			case session.HookRun:
				// The user sees the child's hooks (and its children's) where
				// the parent's turn is shown, never only in its rollout.
				ag.parent.Relay(ev)
			}
		})
		timedOut := errors.Is(context.Cause(ctx), context.DeadlineExceeded) || (ctx.Err() != nil && context.Cause(ctx) != context.Canceled)
		cause := context.Cause(ctx)
		cancel()
		ag.set(func(i *subagent.Info) {
			switch {
			case err == nil:
				i.Status, i.Message = subagent.Completed, last
			case timedOut:
				i.Status, i.Message = subagent.Errored, cause.Error()
			case isCanceled(err):
				i.Status, i.Message = subagent.Interrupted, ""
			default:
				i.Status, i.Message = subagent.Errored, err.Error()
			}
		})
	}
}

func isCanceled(err error) bool {
	var te *session.TurnError
	if errors.As(err, &te) {
		return te.Failure.Kind == modelclient.KindCanceled
	}
	return errors.Is(err, context.Canceled)
}

// interrupt ends the agent's running turn (its commands with it); queued
// input is dropped.
func (ag *agent) interrupt() {
	ag.mu.Lock()
	ag.queue = nil
	if ag.cancel != nil {
		ag.cancel()
	}
	ag.mu.Unlock()
}

// close shuts the agent down: its running turn interrupted, its own
// children closed, its session closed. It returns the status before.
func (ag *agent) close() subagent.Status {
	ag.mu.Lock()
	if ag.closed {
		st := ag.info.Status
		ag.mu.Unlock()
		return st
	}
	prev := ag.info.Status
	ag.closed = true
	ag.queue = nil
	if ag.cancel != nil {
		ag.cancel()
	}
	done, th := ag.done, ag.thread
	ag.thread = nil
	ag.mu.Unlock()
	if done != nil {
		<-done
	}
	if th != nil {
		th.Close() // closes its own children first
	}
	ag.tree.mu.Lock()
	ag.tree.open--
	ag.tree.mu.Unlock()
	ag.set(func(i *subagent.Info) { i.Status = subagent.Shutdown })
	return prev
}

// resume reopens a closed agent from its rollout.
func (ag *agent) resume(ctx context.Context) (subagent.Status, error) {
	ag.mu.Lock()
	if !ag.closed {
		st := ag.info.Status
		ag.mu.Unlock()
		return st, nil
	}
	path := ag.info.Path
	ag.mu.Unlock()
	if path == "" {
		return "", errors.New("this agent was not recorded (ephemeral session), so it cannot be resumed")
	}
	tr := ag.tree
	limit := ag.parent.a.cfg.Agents.MaxThreads
	tr.mu.Lock()
	if tr.open >= limit {
		tr.mu.Unlock()
		return "", fmt.Errorf("agent thread limit reached (max %d)", limit)
	}
	tr.open++
	tr.mu.Unlock()
	sp := ag.spec
	sp.From = path
	th, err := ag.parent.a.Open(ctx, sp)
	if err != nil {
		tr.mu.Lock()
		tr.open--
		tr.mu.Unlock()
		return "", err
	}
	th.self = ag
	ag.mu.Lock()
	ag.thread, ag.closed = th, false
	ag.mu.Unlock()
	ag.set(func(i *subagent.Info) { i.Status = subagent.PendingInit })
	return subagent.PendingInit, nil
}

// closeChildren closes the agents t spawned (t closing).
func (t *Thread) closeChildren() {
	for _, ag := range t.children() {
		ag.close()
	}
}

// interruptChildren interrupts the running turns of the agents t spawned
// (t's turn was interrupted: Esc, Ctrl-C, a client's cancel); theirs
// interrupt their own children in turn.
func (t *Thread) interruptChildren() {
	for _, ag := range t.children() {
		ag.interrupt()
	}
}

func (t *Thread) children() []*agent {
	tr := t.agents
	if tr == nil {
		return nil
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []*agent
	for _, id := range tr.order {
		if ag := tr.agents[id]; ag.parent == t {
			out = append(out, ag)
		}
	}
	return out
}

// childSpec is what [App.Open] needs to open a subagent.
type childSpec struct {
	parent   *Thread
	ws       Workspace
	role     string
	nickname string
}

// collabTools are the collaboration tools of t: Codex's names, arguments
// and answers.
func collabTools(t *Thread, roles map[string]subagent.Role) []tools.Tool {
	return []tools.Tool{
		&collabTool{t: t, name: "spawn_agent", spec: subagent.SpawnSpec(roles), run: func(ctx context.Context, inv *tools.Invocation) tools.Result {
			return t.spawnAgent(ctx, inv, roles)
		}},
		&collabTool{t: t, name: "send_input", spec: subagent.SendInputSpec(), run: t.sendInput},
		&collabTool{t: t, name: "resume_agent", spec: subagent.ResumeSpec(), run: t.resumeAgent},
		&collabTool{t: t, name: "wait_agent", spec: subagent.WaitSpec(), run: t.waitAgent},
		&collabTool{t: t, name: "close_agent", spec: subagent.CloseSpec(), run: t.closeAgent},
	}
}

// collabTool is one collaboration tool.
type collabTool struct {
	t    *Thread
	name string
	spec json.RawMessage
	run  func(ctx context.Context, inv *tools.Invocation) tools.Result
}

func (c *collabTool) Name() string          { return c.name }
func (c *collabTool) Spec() json.RawMessage { return c.spec }
func (c *collabTool) ParallelSafe() bool    { return true }
func (c *collabTool) Run(ctx context.Context, inv *tools.Invocation) tools.Result {
	if err := inv.Start(); err != nil {
		return tools.NotStarted(err)
	}
	res := c.run(ctx, inv)
	if res.Collab != nil {
		res.Collab.Tool, res.Collab.Sender = c.name, c.t.ID
	}
	return res
}

// failed answers the model with msg, as Codex's RespondToModel errors.
func failed(msg string, collab *tools.CollabCall) tools.Result {
	return tools.Result{Output: msg, Status: tools.StatusFailed, Collab: collab}
}

// answer is a successful call's JSON output.
func answer(v any, collab *tools.CollabCall) tools.Result {
	b, err := json.Marshal(v)
	if err != nil {
		return failed(err.Error(), collab)
	}
	return tools.Result{Output: string(b), Status: tools.StatusCompleted, Collab: collab}
}

func (t *Thread) spawnAgent(ctx context.Context, inv *tools.Invocation, roles map[string]subagent.Role) tools.Result {
	var args struct {
		subagent.Input
		AgentType       string `json:"agent_type"`
		Model           string `json:"model"`
		ReasoningEffort string `json:"reasoning_effort"`
		ServiceTier     string `json:"service_tier"`
		ForkContext     bool   `json:"fork_context"`
	}
	collab := &tools.CollabCall{}
	if err := json.Unmarshal([]byte(inv.Call.Input), &args); err != nil {
		return failed("failed to parse function arguments: "+err.Error(), collab)
	}
	input, err := args.Text()
	if err != nil {
		return failed(err.Error(), collab)
	}
	collab.Prompt = input
	cfg := t.a.cfg.Agents
	if t.depth+1 > cfg.MaxDepth {
		return failed("Agent depth limit reached. Solve the task yourself.", collab)
	}
	roleName := cmp.Or(strings.TrimSpace(args.AgentType), subagent.DefaultRole)
	role, ok := roles[roleName]
	if !ok {
		return failed(fmt.Sprintf("unknown agent_type '%s'", roleName), collab)
	}
	if args.ForkContext {
		return failed("fork_context is not supported by agent: give the new agent what it needs in message", collab)
	}
	if args.ServiceTier != "" {
		return failed("service_tier is not supported for subagents by agent: omit it", collab)
	}
	cur := t.Settings().Sampling
	ws := t.Workspace()
	ws.Sandbox.Mode = sandbox.Mode(subagent.Narrower(string(ws.Sandbox.Mode), role.Sandbox))
	sp := Spec{
		Model:                 cmp.Or(role.Model, args.Model, cur.Model),
		ReasoningEffort:       cmp.Or(role.ReasoningEffort, args.ReasoningEffort, cur.ReasoningEffort),
		DeveloperInstructions: role.DeveloperInstructions,
		child:                 &childSpec{parent: t, ws: ws, role: role.Name},
	}
	ag, err := t.agents.spawn(ctx, t, sp, role, input)
	if err != nil {
		collab.States = map[string]tools.CollabAgentState{}
		return failed("collab spawn failed: "+err.Error(), collab)
	}
	info := ag.snapshot()
	collab.Receivers = []string{info.ID}
	collab.States = map[string]tools.CollabAgentState{info.ID: subagent.State(info)}
	out := map[string]any{"agent_id": info.ID, "nickname": info.Nickname}
	res := answer(out, collab)
	if len(role.Ignored) > 0 {
		res.Output += fmt.Sprintf("\n(note: agent does not apply these keys of role file %s: %s)", role.File, strings.Join(role.Ignored, ", "))
	}
	return res
}

func (t *Thread) sendInput(_ context.Context, inv *tools.Invocation) tools.Result {
	var args struct {
		subagent.Input
		Target    string `json:"target"`
		ID        string `json:"id"`
		Interrupt bool   `json:"interrupt"`
	}
	collab := &tools.CollabCall{}
	if err := json.Unmarshal([]byte(inv.Call.Input), &args); err != nil {
		return failed("failed to parse function arguments: "+err.Error(), collab)
	}
	target := cmp.Or(args.Target, args.ID)
	collab.Receivers = []string{target}
	input, err := args.Text()
	if err != nil {
		return failed(err.Error(), collab)
	}
	collab.Prompt = input
	ag := t.agents.lookup(target)
	if ag == nil {
		return failed(fmt.Sprintf("agent with id %s not found", target), collab)
	}
	info := ag.snapshot()
	collab.Receivers = []string{info.ID}
	ag.mu.Lock()
	closed := ag.closed
	ag.mu.Unlock()
	if closed {
		return failed(fmt.Sprintf("agent with id %s is closed", info.ID), collab)
	}
	ag.submit(input, args.Interrupt)
	collab.States = map[string]tools.CollabAgentState{info.ID: subagent.State(ag.snapshot())}
	return answer(map[string]any{"submission_id": rollout.NewID()}, collab)
}

func (t *Thread) resumeAgent(ctx context.Context, inv *tools.Invocation) tools.Result {
	var args struct {
		ID     string `json:"id"`
		Target string `json:"target"`
	}
	collab := &tools.CollabCall{}
	if err := json.Unmarshal([]byte(inv.Call.Input), &args); err != nil {
		return failed("failed to parse function arguments: "+err.Error(), collab)
	}
	id := cmp.Or(args.ID, args.Target)
	collab.Receivers = []string{id}
	if t.depth+1 > t.a.cfg.Agents.MaxDepth {
		return failed("Agent depth limit reached. Solve the task yourself.", collab)
	}
	ag := t.agents.lookup(id)
	if ag == nil {
		collab.States = map[string]tools.CollabAgentState{id: {Status: string(subagent.NotFound)}}
		return failed(fmt.Sprintf("agent with id %s not found", id), collab)
	}
	st, err := ag.resume(ctx)
	info := ag.snapshot()
	collab.Receivers = []string{info.ID}
	collab.States = map[string]tools.CollabAgentState{info.ID: subagent.State(info)}
	if err != nil {
		return failed("collab tool failed: "+err.Error(), collab)
	}
	return answer(map[string]any{"status": subagent.StatusJSON(subagent.Info{Status: st, Message: info.Message})}, collab)
}

func (t *Thread) waitAgent(ctx context.Context, inv *tools.Invocation) tools.Result {
	var args struct {
		Targets   []string `json:"targets"`
		IDs       []string `json:"ids"`
		TimeoutMS *int64   `json:"timeout_ms"`
	}
	collab := &tools.CollabCall{}
	if err := json.Unmarshal([]byte(inv.Call.Input), &args); err != nil {
		return failed("failed to parse function arguments: "+err.Error(), collab)
	}
	targets := append(args.Targets, args.IDs...)
	collab.Receivers = targets
	if len(targets) == 0 {
		return failed("agent ids must be non-empty", collab)
	}
	timeout := subagent.DefaultWaitTimeout
	if args.TimeoutMS != nil {
		if *args.TimeoutMS <= 0 {
			return failed("timeout_ms must be greater than zero", collab)
		}
		timeout = min(max(time.Duration(*args.TimeoutMS)*time.Millisecond, subagent.MinWaitTimeout), subagent.MaxWaitTimeout)
	}
	var list []*agent
	for i, id := range targets {
		ag := t.agents.lookup(id)
		if ag == nil {
			return failed(fmt.Sprintf("agent with id %s not found", id), collab)
		}
		list = append(list, ag)
		targets[i] = ag.snapshot().ID
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		final := map[string]any{}
		states := map[string]tools.CollabAgentState{}
		var changed []<-chan struct{}
		for _, ag := range list {
			ag.mu.Lock()
			info, ch := ag.info, ag.changed
			ag.mu.Unlock()
			states[info.ID] = subagent.State(info)
			if info.Status.Final() {
				final[info.ID] = subagent.StatusJSON(info)
			}
			changed = append(changed, ch)
		}
		collab.States = states
		if len(final) > 0 {
			return answer(map[string]any{"status": final, "timed_out": false}, collab)
		}
		if !waitAny(ctx, timer.C, changed) {
			if ctx.Err() != nil {
				return tools.Result{Output: "wait_agent was interrupted", Status: tools.StatusAborted, Collab: collab}
			}
			return answer(map[string]any{"status": map[string]any{}, "timed_out": true}, collab)
		}
	}
}

// waitAny waits for one of chs to close; false when ctx or the timer ends
// first.
func waitAny(ctx context.Context, timer <-chan time.Time, chs []<-chan struct{}) bool {
	any := make(chan struct{})
	stop := make(chan struct{})
	defer close(stop)
	for _, ch := range chs {
		go func() {
			select {
			case <-ch:
				select {
				case any <- struct{}{}:
				case <-stop:
				}
			case <-stop:
			}
		}()
	}
	select {
	case <-any:
		return true
	case <-timer:
		return false
	case <-ctx.Done():
		return false
	}
}

func (t *Thread) closeAgent(_ context.Context, inv *tools.Invocation) tools.Result {
	var args struct {
		Target string `json:"target"`
		ID     string `json:"id"`
	}
	collab := &tools.CollabCall{}
	if err := json.Unmarshal([]byte(inv.Call.Input), &args); err != nil {
		return failed("failed to parse function arguments: "+err.Error(), collab)
	}
	target := cmp.Or(args.Target, args.ID)
	collab.Receivers = []string{target}
	ag := t.agents.lookup(target)
	if ag == nil {
		return failed(fmt.Sprintf("agent with id %s not found", target), collab)
	}
	before := ag.snapshot()
	prev := ag.close()
	info := ag.snapshot()
	collab.Receivers = []string{info.ID}
	collab.States = map[string]tools.CollabAgentState{info.ID: subagent.State(info)}
	before.Status = prev
	return answer(map[string]any{"previous_status": subagent.StatusJSON(before)}, collab)
}

// place gives t its workspace, its approver and its place in a tree of
// subagents: a subagent its parent's workspace and approver (asking in its
// name) and tree; any other session the workspace sp asks for and a tree
// of its own. A session above max_depth gets the collaboration tools; it
// returns what the roles' files got wrong, for a root session to say.
func (a *App) place(t *Thread, sp Spec) ([]string, error) {
	approve := sp.Approve
	if approve == nil {
		approve = a.approve
	}
	if c := sp.child; c != nil {
		t.agents, t.depth, t.ws = c.parent.agents, c.parent.depth+1, c.ws
		approve = c.parent.approve
		if approve != nil {
			label := subagent.Info{ID: t.ID, Nickname: c.nickname, Role: c.role}.Label()
			parentApprove := approve
			approve = func(ctx context.Context, req tools.ApprovalRequest) tools.Decision {
				req.Agent = label
				return parentApprove(ctx, req)
			}
		}
	} else {
		t.agents = &agentTree{root: t.ID, view: &subagent.Tree{}}
		var err error
		if t.ws, err = a.workspaceFor(sp.Cwd, sp.Sandbox, sp.ApprovalPolicy, approve == nil); err != nil {
			return nil, usageError(err)
		}
		t.ws.Editor = sp.Editor // a subagent's patches go through its parent's
	}
	t.approve, t.Agents = approve, t.agents.view
	if t.depth >= a.cfg.Agents.MaxDepth {
		return nil, nil
	}
	roles, problems := subagent.Roles(a.cfg, a.home, t.ws.Cwd)
	t.collab = collabTools(t, roles)
	if sp.child != nil {
		return nil, nil
	}
	return problems, nil
}
