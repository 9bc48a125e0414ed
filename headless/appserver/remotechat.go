package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// RemoteChat is the chat's engine on a thread of an app-server (`agent
// --remote`): each turn is a turn/start on the thread, its notifications
// become the [session.Event]s the chat shows, the server's approval
// requests are asked through Approve and answered with the decision, and
// cancelling a turn's context sends turn/interrupt. Its methods are safe
// for concurrent use; turns run one at a time.
type RemoteChat struct {
	r *Remote
	// Approve asks the person about a command or a patch; nil declines.
	Approve func(context.Context, tools.ApprovalRequest) tools.Decision

	mu     sync.Mutex
	opened ThreadOpened
	model  string
	effort string
	// turns are the ids of the thread's turns, oldest first.
	turns []string
}

// NewRemoteChat returns the chat's engine on the thread r opened.
func NewRemoteChat(r *Remote, opened ThreadOpened) *RemoteChat {
	c := &RemoteChat{r: r}
	c.Use(opened)
	return c
}

// Thread is the thread in use, as the server opened it.
func (c *RemoteChat) Thread() ThreadOpened {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opened
}

// Use makes the thread opened the one the next turns run on; the
// connection leaves the one it replaces (thread/unsubscribe).
func (c *RemoteChat) Use(opened ThreadOpened) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.opened.Thread.ID; old != "" && old != opened.Thread.ID {
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		_, _ = c.r.Call(ctx, "thread/unsubscribe", map[string]any{"threadId": old})
		cancel()
	}
	c.opened, c.turns = opened, nil
	for _, t := range opened.Thread.Turns {
		c.turns = append(c.turns, t.ID)
	}
}

// SetModel makes the next turns ask for model name, with reasoning effort
// effort when not "" (turn/start's model and effort).
func (c *RemoteChat) SetModel(name, effort string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.model, c.opened.Model = name, name
	if effort != "" {
		c.effort = effort
	}
}

// Rename names the thread (thread/name/set).
func (c *RemoteChat) Rename(ctx context.Context, name string) error {
	_, err := c.r.Call(ctx, "thread/name/set", map[string]any{"threadId": c.Thread().Thread.ID, "name": name})
	return err
}

// RetryNow is the chat's Ctrl+R: the server's retries are its own, so it
// does nothing.
func (c *RemoteChat) RetryNow() {}

// interruptWait bounds how long an interrupted turn waits for the
// server's turn/completed.
const interruptWait = 10 * time.Second

// Turn runs a turn on the thread: input as the user's message, every
// notification of it as events to emit. Cancelling ctx interrupts it.
func (c *RemoteChat) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	c.mu.Lock()
	params := map[string]any{"threadId": c.opened.Thread.ID, "input": textInput(input)}
	if c.model != "" {
		params["model"] = c.model
	}
	if c.effort != "" {
		params["effort"] = c.effort
	}
	c.mu.Unlock()
	emit(session.TurnStarted{Input: input})
	turnID, err := c.r.startTurn(ctx, params)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.turns = append(c.turns, turnID)
	c.mu.Unlock()
	t := &remoteTurn{c: c, id: turnID, thread: params["threadId"].(string), cwd: c.Thread().Cwd, emit: emit, calls: map[string]*remoteCall{}}
	stop := context.AfterFunc(ctx, func() { c.r.interrupt(t.thread, turnID) })
	defer stop()
	for {
		rctx := context.WithoutCancel(ctx)
		if ctx.Err() != nil {
			var cancel context.CancelFunc
			rctx, cancel = context.WithTimeout(rctx, interruptWait)
			defer cancel()
		}
		m, err := c.r.Next(rctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if m.ID != nil {
			c.request(ctx, t, m)
			continue
		}
		if done, err := t.handle(ctx, m); done {
			return err
		}
	}
}

// remoteTurn is a turn running on the server: what its events need.
type remoteTurn struct {
	c           *RemoteChat
	id, thread  string
	cwd         string
	emit        func(session.Event)
	calls       map[string]*remoteCall
	last, total transport.Usage
	plans       int
}

// remoteCall is a command's or a patch's item as started.
type remoteCall struct {
	call   tools.Call
	output strings.Builder
}

// remoteItem is the part of a ThreadItem the chat shows.
type remoteItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Text             string          `json:"text"`
	Summary          []string        `json:"summary"`
	Command          string          `json:"command"`
	Cwd              string          `json:"cwd"`
	Status           string          `json:"status"`
	AggregatedOutput *string         `json:"aggregatedOutput"`
	ExitCode         *int            `json:"exitCode"`
	Changes          []remoteChange  `json:"changes"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Result           json.RawMessage `json:"result"`
	Error            *struct {
		Message string `json:"message"`
	} `json:"error"`
	Query string `json:"query"`
}

// remoteChange is one file of a fileChange item.
type remoteChange struct {
	Path string `json:"path"`
	Kind struct {
		Type string `json:"type"`
	} `json:"kind"`
	Diff string `json:"diff"`
}

// handle shows one notification; done says the turn ended, with err what
// Turn returns.
func (t *remoteTurn) handle(ctx context.Context, m Message) (done bool, err error) {
	var p struct {
		ThreadID  string          `json:"threadId"`
		TurnID    string          `json:"turnId"`
		ItemID    string          `json:"itemId"`
		Delta     string          `json:"delta"`
		Item      remoteItem      `json:"item"`
		Message   string          `json:"message"`
		WillRetry bool            `json:"willRetry"`
		Error     json.RawMessage `json:"error"`
		Plan      []struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"plan"`
		TokenUsage struct {
			Total, Last usageBreakdown
		} `json:"tokenUsage"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.TurnID != "" && p.TurnID != t.id || p.ThreadID != "" && p.ThreadID != t.thread {
		return false, nil
	}
	switch m.Method {
	case "item/agentMessage/delta":
		t.emit(session.TextDelta{ItemID: p.ItemID, Delta: p.Delta})
	case "item/reasoning/summaryTextDelta":
		t.emit(session.ReasoningDelta{ItemID: p.ItemID, Delta: p.Delta})
	case "item/commandExecution/outputDelta":
		if rc := t.calls[p.ItemID]; rc != nil {
			rc.output.WriteString(p.Delta)
		}
	case "item/started":
		t.started(p.Item)
	case "item/completed":
		t.completed(p.Item)
	case "turn/plan/updated":
		t.plans++
		call := tools.Call{ID: fmt.Sprintf("plan-%s-%d", t.id, t.plans), Name: "update_plan"}
		var plan []tools.PlanStep
		for _, s := range p.Plan {
			st := s.Status
			if st == "inProgress" {
				st = "in_progress"
			}
			plan = append(plan, tools.PlanStep{Step: s.Step, Status: st})
		}
		t.emit(session.ToolCallBegin{Call: call})
		t.emit(session.ToolCallEnd{Call: call, Result: tools.Result{Status: tools.StatusCompleted, Plan: plan}})
	case "thread/tokenUsage/updated":
		t.last, t.total = p.TokenUsage.Last.usage(), p.TokenUsage.Total.usage()
	case "warning":
		t.emit(session.Warning{Message: p.Message})
	case "error":
		if p.WillRetry { // a retry under way, as the server words it
			t.emit(session.Warning{Message: errorMessage(p.Error)})
		}
	case "turn/completed":
		id, status, msg := completedTurn(m.Params)
		if id != t.id {
			return false, nil
		}
		switch status {
		case "completed":
			t.emit(session.TurnCompleted{Last: t.last, Total: t.total})
			return true, nil
		case "interrupted":
			if ctx.Err() != nil {
				return true, ctx.Err()
			}
			return true, errors.New("the app-server interrupted the turn")
		}
		if msg == "" {
			msg = "the turn failed"
		}
		return true, errors.New(msg)
	}
	return false, nil
}

// errorMessage is a TurnError's message.
func errorMessage(raw json.RawMessage) string {
	var e struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &e)
	return e.Message
}

// usageBreakdown is a TokenUsageBreakdown.
type usageBreakdown struct {
	TotalTokens           int64 `json:"totalTokens"`
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
}

func (u usageBreakdown) usage() transport.Usage {
	return transport.Usage{TotalTokens: u.TotalTokens, InputTokens: u.InputTokens, CachedInputTokens: u.CachedInputTokens,
		OutputTokens: u.OutputTokens, ReasoningOutputTokens: u.ReasoningOutputTokens}
}

// callOf is the tool call the chat shows for a command's, a patch's or an
// MCP tool's item; ok false for other items.
func callOf(it remoteItem) (tools.Call, bool) {
	switch it.Type {
	case "commandExecution":
		in, _ := json.Marshal(map[string]string{"cmd": it.Command})
		return tools.Call{ID: it.ID, Name: "exec_command", Input: string(in)}, true
	case "fileChange":
		var b strings.Builder
		for _, ch := range it.Changes {
			verb := map[string]string{"add": "Add", "delete": "Delete"}[ch.Kind.Type]
			if verb == "" {
				verb = "Update"
			}
			fmt.Fprintf(&b, "*** %s File: %s\n", verb, ch.Path)
		}
		return tools.Call{ID: it.ID, Name: "apply_patch", Input: b.String(), Custom: true}, true
	case "mcpToolCall":
		return tools.Call{ID: it.ID, Name: "mcp__" + it.Server + "__" + it.Tool, Input: string(it.Arguments)}, true
	}
	return tools.Call{}, false
}

// started shows an item that started: a tool call's block.
func (t *remoteTurn) started(it remoteItem) {
	call, ok := callOf(it)
	if !ok {
		return
	}
	if _, seen := t.calls[it.ID]; seen {
		return
	}
	t.calls[it.ID] = &remoteCall{call: call}
	t.emit(session.ToolCallBegin{Call: call})
}

// completed shows an item that completed.
func (t *remoteTurn) completed(it remoteItem) {
	switch it.Type {
	case "agentMessage":
		t.emit(session.MessageDone{ItemID: it.ID, Text: it.Text})
		return
	case "reasoning":
		t.emit(session.ReasoningDone{ItemID: it.ID, Text: strings.Join(it.Summary, "\n")})
		return
	case "webSearch":
		t.emit(session.WebSearchDone{ItemID: it.ID, Query: it.Query})
		return
	}
	call, ok := callOf(it)
	if !ok {
		return
	}
	rc := t.calls[it.ID]
	if rc == nil {
		rc = &remoteCall{call: call}
		t.emit(session.ToolCallBegin{Call: call})
	}
	delete(t.calls, it.ID)
	res := tools.Result{Status: remoteStatus(it.Status)}
	switch it.Type {
	case "commandExecution":
		out := rc.output.String()
		if it.AggregatedOutput != nil {
			out = *it.AggregatedOutput
		}
		res.Command, res.CommandOutput, res.Output, res.ExitCode = it.Command, out, out, it.ExitCode
	case "fileChange":
		var diffs []string
		for _, ch := range it.Changes {
			kind := map[string]string{"add": "A", "delete": "D"}[ch.Kind.Type]
			if kind == "" {
				kind = "M"
			}
			res.Files = append(res.Files, kind+" "+relTo(t.cwd, ch.Path))
			diffs = append(diffs, ch.Diff)
		}
		sort.Strings(res.Files)
		res.Diff = strings.Join(diffs, "")
	case "mcpToolCall":
		res.Output = string(it.Result)
		if it.Error != nil {
			res.Output = it.Error.Message
		}
	}
	t.emit(session.ToolCallEnd{Call: rc.call, Result: res})
}

// relTo is path relative to dir when under it.
func relTo(dir, path string) string {
	if dir != "" {
		if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
}

// remoteStatus is an item's status as a call's.
func remoteStatus(s string) tools.Status {
	switch s {
	case "completed":
		return tools.StatusCompleted
	case "declined":
		return tools.StatusDeclined
	case "inProgress", "interrupted":
		return tools.StatusAborted
	}
	return tools.StatusFailed
}

// request answers a server request: approvals are asked; anything else
// is refused, naming it.
func (c *RemoteChat) request(ctx context.Context, t *remoteTurn, m Message) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	var p struct {
		ItemID  string  `json:"itemId"`
		Command *string `json:"command"`
		Cwd     string  `json:"cwd"`
		Reason  *string `json:"reason"`
	}
	_ = json.Unmarshal(m.Params, &p)
	req := tools.ApprovalRequest{CallID: p.ItemID, Workdir: p.Cwd, Escalated: true}
	if p.Reason != nil {
		req.Reason = *p.Reason
	}
	switch m.Method {
	case "item/commandExecution/requestApproval":
		req.Kind = "command"
		if p.Command != nil {
			req.Command = *p.Command
		}
	case "item/fileChange/requestApproval":
		req.Kind = "patch"
		if rc := t.calls[p.ItemID]; rc != nil {
			req.Files, _ = patchFilesOf(rc.call.Input)
		}
	default:
		_ = c.r.ReplyError(wctx, m.ID, codeNoMethod, m.Method+" is not supported by agent's chat")
		return
	}
	d := tools.Decision{Kind: tools.Deny}
	if c.Approve != nil {
		d = c.Approve(ctx, req)
	}
	decision := map[tools.DecisionKind]string{tools.ApproveOnce: "accept", tools.ApproveForSession: "acceptForSession",
		tools.Deny: "decline", tools.AbortTurn: "cancel"}[d.Kind]
	_ = c.r.Reply(wctx, m.ID, map[string]any{"decision": decision})
}

// patchFilesOf are the files of a patch call's synthesized input.
func patchFilesOf(input string) ([]string, bool) {
	var out []string
	for _, ln := range strings.Split(input, "\n") {
		if _, f, ok := strings.Cut(ln, " File: "); ok {
			out = append(out, f)
		}
	}
	return out, len(out) > 0
}

// Fork forks the thread in use, keeping its first keep turns (every one
// for -1; thread/fork's lastTurnId), and makes the fork the thread of the
// next turns.
func (c *RemoteChat) Fork(ctx context.Context, keep int) (ThreadOpened, error) {
	c.mu.Lock()
	params := map[string]any{"threadId": c.opened.Thread.ID}
	turns := append([]string(nil), c.turns...)
	c.mu.Unlock()
	switch {
	case keep == 0:
		return ThreadOpened{}, errors.New("a fork keeps at least the first turn: /new starts over")
	case keep > len(turns):
		return ThreadOpened{}, fmt.Errorf("the thread has %d turns, not %d", len(turns), keep)
	case keep > 0:
		params["lastTurnId"] = turns[keep-1]
	}
	opened, err := c.r.openThread(ctx, "thread/fork", params)
	if err != nil {
		return opened, err
	}
	c.Use(opened)
	return opened, nil
}
