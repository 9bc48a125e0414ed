package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/agentcli/agent/internal/app"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/tools"
)

// thread is a session open on the server: the app's thread, its
// subscribers (the clients its notifications go to), its running turn and
// the turns this process ran (thread/items/list, thread/read).
type thread struct {
	s  *Server
	id string
	t  *app.Thread

	created    time.Time
	forkedFrom string
	// ended is closed once the thread is closed and forgotten: its
	// session and rollout free for another to open.
	ended chan struct{}

	mu      sync.Mutex
	subs    map[*client]bool
	order   []*client // subscribers in the order they came: the first is asked for approvals
	turn    *turn
	turns   []*turn
	updated time.Time
	preview string
	closed  bool
	// history is the recorded turns of a resumed or forked thread, as
	// thread/resume and thread/read give them.
	history []map[string]any
	// fork and resume turn counter: ids of this process's turns.
	n int
	// goalSent is the goal the subscribers were last told of, as JSON
	// ("" for none): thread/goal/updated goes out when it changes.
	goalSent string
}

// openSpec is what thread/start, thread/resume and thread/fork ask for.
type openSpec struct {
	spec app.Spec
	// id is the recorded thread resumed or forked, "" for a new one.
	id string
}

// openThread opens a thread on the app and subscribes c.
func (s *Server) openThread(ctx context.Context, c *client, os openSpec) (*thread, error) {
	if err := s.reserve(); err != nil {
		return nil, err
	}
	th := &thread{s: s, subs: map[*client]bool{}, created: s.now(), ended: make(chan struct{})}
	var registered *thread
	defer func() { s.opened(registered) }()
	sp := os.spec
	sp.Approve = th.approve
	if os.id != "" {
		ent, err := rollout.Find(ctx, s.opts.App.Home(), os.id)
		if err != nil {
			return nil, invalidParams("no thread %s: %v", os.id, err)
		}
		sp.From = ent.Path
		if sp.Cwd == "" {
			sp.Cwd = ent.Cwd
		}
		if !sp.Fork {
			th.created = ent.Created
		}
		th.preview = ent.Title
	}
	t, err := s.opts.App.Open(ctx, sp)
	if err != nil {
		return nil, err
	}
	th.t, th.id, th.updated = t, t.ID, s.now()
	if sp.Fork {
		th.forkedFrom = os.id
	}
	if t.Recorded != nil {
		th.history = recordedTurns(t.Recorded)
	}
	th.subscribe(c)
	registered = th
	return th, nil
}

// subscribe adds c to the thread's subscribers.
func (th *thread) subscribe(c *client) bool {
	th.mu.Lock()
	if th.closed {
		th.mu.Unlock()
		return false
	}
	if !th.subs[c] {
		th.subs[c] = true
		th.order = append(th.order, c)
	}
	th.mu.Unlock()
	c.mu.Lock()
	c.subscribed[th.id] = th
	c.mu.Unlock()
	return true
}

// unsubscribe removes c; the last subscriber's leaving interrupts the
// running turn and closes the thread once it ended.
func (th *thread) unsubscribe(c *client) {
	th.mu.Lock()
	if !th.subs[c] {
		th.mu.Unlock()
		return
	}
	delete(th.subs, c)
	for i, o := range th.order {
		if o == c {
			th.order = append(th.order[:i:i], th.order[i+1:]...)
			break
		}
	}
	last := len(th.subs) == 0
	th.mu.Unlock()
	c.mu.Lock()
	delete(c.subscribed, th.id)
	c.mu.Unlock()
	if last {
		th.close()
	}
}

// close interrupts the running turn, waits for it to end (recorded as
// interrupted) and closes the session.
func (th *thread) close() {
	th.mu.Lock()
	if th.closed {
		th.mu.Unlock()
		return
	}
	th.closed = true
	tu := th.turn
	th.mu.Unlock()
	if tu != nil {
		tu.cancel()
		<-tu.done
	}
	th.t.End() // a thread left without a message leaves no recording
	// Forgotten once closed: until then thread/resume waits for it
	// (its session and rollout are free only now).
	th.s.forget(th)
	close(th.ended)
	th.broadcast("thread/closed", map[string]any{"threadId": th.id})
}

// subscribers returns the clients notifications go to.
func (th *thread) subscribers() []*client {
	th.mu.Lock()
	defer th.mu.Unlock()
	return append([]*client(nil), th.order...)
}

// broadcast sends a notification to every subscriber.
func (th *thread) broadcast(method string, params any) {
	for _, c := range th.subscribers() {
		c.notify(method, params)
	}
}

// approve asks the first subscriber about a call the policy does not
// allow by itself, as Codex's item/commandExecution/requestApproval or
// item/fileChange/requestApproval; no subscriber, or one gone, refuses it.
func (th *thread) approve(ctx context.Context, req tools.ApprovalRequest) tools.Decision {
	th.mu.Lock()
	tu := th.turn
	var c *client
	if len(th.order) > 0 {
		c = th.order[0]
	}
	th.mu.Unlock()
	if c == nil || tu == nil {
		return tools.Decision{Kind: tools.Deny, Note: "no client is attached to this thread to approve it"}
	}
	method, params := tu.approvalRequest(req)
	tu.setWaiting(true)
	res, err := c.request(ctx, method, params)
	tu.setWaiting(false)
	th.broadcast("serverRequest/resolved", map[string]any{"threadId": th.id, "requestId": "agent-approval"})
	switch {
	case ctx.Err() != nil:
		return tools.Decision{Kind: tools.AbortTurn}
	case err != nil:
		return tools.Decision{Kind: tools.AbortTurn, Note: "the client could not be asked: " + err.Error()}
	}
	return decision(res)
}

// decision reads a client's approval answer.
func decision(res json.RawMessage) tools.Decision {
	var v struct {
		Decision json.RawMessage `json:"decision"`
	}
	if json.Unmarshal(res, &v) != nil {
		return tools.Decision{Kind: tools.Deny, Note: "the client's answer could not be read"}
	}
	var s string
	if json.Unmarshal(v.Decision, &s) != nil {
		var obj map[string]json.RawMessage
		if json.Unmarshal(v.Decision, &obj) == nil {
			if _, ok := obj["acceptWithExecpolicyAmendment"]; ok {
				return tools.Decision{Kind: tools.ApproveOnce}
			}
		}
		return tools.Decision{Kind: tools.Deny, Note: "the client answered " + string(v.Decision) + ", which agent does not apply"}
	}
	switch s {
	case "accept", "approved":
		return tools.Decision{Kind: tools.ApproveOnce}
	case "acceptForSession", "approved_for_session":
		return tools.Decision{Kind: tools.ApproveForSession}
	case "cancel", "abort":
		return tools.Decision{Kind: tools.AbortTurn}
	}
	return tools.Decision{Kind: tools.Deny}
}

// json is the thread as Codex's Thread object, with turns when asked.
func (th *thread) json(withTurns bool) map[string]any {
	th.mu.Lock()
	defer th.mu.Unlock()
	ws := th.t.Workspace()
	status := map[string]any{"type": "idle"}
	if th.turn != nil {
		flags := []string{}
		if th.turn.waiting {
			flags = append(flags, "waitingOnApproval")
		}
		status = map[string]any{"type": "active", "activeFlags": flags}
	}
	turns := []any{}
	if withTurns {
		for _, h := range th.history {
			turns = append(turns, h)
		}
		for _, tu := range th.turns {
			turns = append(turns, tu.json(true))
		}
	}
	var forked any
	if th.forkedFrom != "" {
		forked = th.forkedFrom
	}
	var path any
	if p := th.t.Path(); p != "" {
		path = p
	}
	settings := th.t.Settings()
	var name any
	if n := th.t.Name(); n != "" {
		name = n
	}
	var effort any
	if e := settings.Sampling.ReasoningEffort; e != "" {
		effort = e
	}
	return map[string]any{
		"id": th.id, "sessionId": th.id, "forkedFromId": forked, "parentThreadId": nil,
		"preview": th.preview, "ephemeral": path == nil, "projectId": nil, "historyMode": "paginated",
		"modelProvider": th.t.Provider().Provider, "model": settings.Sampling.Model, "reasoningEffort": effort,
		"createdAt": th.created.Unix(), "updatedAt": th.updated.Unix(), "recencyAt": th.updated.Unix(),
		"status": status, "path": path, "cwd": ws.Cwd, "cliVersion": th.s.opts.Version,
		"originator": "agent_app_server", "source": "appServer", "threadSource": nil,
		"agentNickname": nil, "agentRole": nil, "gitInfo": nil, "name": name, "turns": turns,
		"environments": []any{map[string]any{"environmentId": "local", "cwd": ws.Cwd, "runtimeWorkspaceRoots": []string{ws.Cwd}}},
	}
}

// recordedTurns are a recording's turns as Codex's Turn objects: the
// user's and the assistant's messages of each, how it ended.
func recordedTurns(ro *rollout.Rollout) []map[string]any {
	var out []map[string]any
	var cur map[string]any
	var items []any
	n := 0
	flush := func(status string) {
		if cur == nil {
			return
		}
		cur["items"], cur["status"] = items, status
		out = append(out, cur)
		cur, items = nil, nil
	}
	open := func() {
		if cur == nil {
			n++
			cur = map[string]any{"id": ro.Meta.ID + "-turn-" + strconv.Itoa(n), "itemsView": "full", "error": nil,
				"startedAt": nil, "completedAt": nil, "durationMs": nil}
			items = []any{}
		}
	}
	for i, ev := range ro.Events {
		switch ev.Type {
		case rollout.EventTurnStarted:
			flush("interrupted")
			open()
		case rollout.EventUserMessage:
			open()
			items = append(items, userMessageItem(fmt.Sprintf("%s-item-%d", ro.Meta.ID, i), ev.Message))
		case rollout.EventAgentMessage:
			open()
			items = append(items, agentMessageItem(fmt.Sprintf("%s-item-%d", ro.Meta.ID, i), ev.Message))
		case rollout.EventTurnCompleted:
			flush("completed")
		case rollout.EventTurnFailed:
			if cur != nil {
				cur["error"] = map[string]any{"message": ev.Message}
			}
			flush("failed")
		case rollout.EventTurnInterrupted:
			flush("interrupted")
		}
	}
	flush("interrupted")
	return out
}
