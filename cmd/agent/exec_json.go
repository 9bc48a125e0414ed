package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// jsonEvent is one line of `agent exec --json`, in the reference client's
// schema (docs/exec-json.md) plus our own "retry" and "warning" events.
type jsonEvent struct {
	Type     string     `json:"type"`
	ThreadID string     `json:"thread_id,omitempty"`
	Item     any        `json:"item,omitempty"`
	Usage    *jsonUsage `json:"usage,omitempty"`
	Error    *jsonError `json:"error,omitempty"`
	Message  string     `json:"message,omitempty"`
	// retry fields, flattened
	Layer     string `json:"layer,omitempty"`
	Class     string `json:"class,omitempty"`
	Attempt   int    `json:"attempt,omitempty"`
	Max       *int   `json:"max,omitempty"`
	Left      *int   `json:"left,omitempty"`
	DelayMS   *int64 `json:"delay_ms,omitempty"`
	WaitedMS  *int64 `json:"waited_ms,omitempty"`
	MaxWaitMS int64  `json:"max_wait_ms,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// Requests is the turn's request count (turn.completed, turn.failed).
	Requests *int `json:"requests,omitempty"`
}

type jsonItem struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Text string `json:"text"`
}

type jsonUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

type jsonError struct {
	Message string `json:"message"`
}

// jsonPrinter renders session events as JSONL. A transient notice is
// never typed "error": retries are "retry" events, fallbacks "warning".
type jsonPrinter struct {
	enc   *json.Encoder
	items int
	calls map[string]string // call_id -> item id of a started tool item
	err   error             // the first write error; later events are dropped
}

func newJSONPrinter(w io.Writer, threadID string) *jsonPrinter {
	p := &jsonPrinter{enc: json.NewEncoder(w), calls: map[string]string{}}
	p.emit(jsonEvent{Type: "thread.started", ThreadID: threadID})
	return p
}

func (p *jsonPrinter) emit(e jsonEvent) {
	if p.err == nil {
		p.err = p.enc.Encode(e)
	}
}

func (p *jsonPrinter) item(typ, text string) {
	p.emit(jsonEvent{Type: "item.completed", Item: &jsonItem{ID: p.newID(), Type: typ, Text: text}})
}

func (p *jsonPrinter) newID() string {
	id := fmt.Sprintf("item_%d", p.items)
	p.items++
	return id
}

// toolBegin opens the item of a command as it starts.
func (p *jsonPrinter) toolBegin(ev session.ToolCallBegin) {
	if ev.Call.Name != "exec_command" {
		return // patches and plans are reported when they end
	}
	var args struct {
		Cmd string `json:"cmd"`
	}
	_ = json.Unmarshal([]byte(ev.Call.Input), &args)
	id := p.newID()
	p.calls[ev.Call.ID] = id
	p.emit(jsonEvent{Type: "item.started", Item: map[string]any{
		"id": id, "type": "command_execution", "command": args.Cmd,
		"aggregated_output": "", "exit_code": nil, "status": "in_progress",
	}})
}

// toolEnd reports a finished tool call as its item.
func (p *jsonPrinter) toolEnd(ev session.ToolCallEnd) {
	r := ev.Result
	status := string(r.Status)
	if r.MCP != nil {
		p.mcpCall(r)
		return
	}
	switch ev.Call.Name {
	case "exec_command", "write_stdin":
		id, ok := p.calls[ev.Call.ID]
		if !ok {
			id = p.newID()
		}
		delete(p.calls, ev.Call.ID)
		var code any
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		p.emit(jsonEvent{Type: "item.completed", Item: map[string]any{
			"id": id, "type": "command_execution", "command": r.Command,
			"aggregated_output": r.Output, "exit_code": code, "status": status,
		}})
	case "apply_patch":
		changes := []map[string]string{}
		for _, f := range r.Files {
			kind := map[byte]string{'A': "add", 'M': "update", 'D': "delete"}[f[0]]
			changes = append(changes, map[string]string{"path": strings.TrimSpace(f[1:]), "kind": kind})
		}
		if status == string(tools.StatusCompleted) || len(changes) > 0 {
			p.emit(jsonEvent{Type: "item.completed", Item: map[string]any{
				"id": p.newID(), "type": "file_change", "changes": changes, "status": status,
			}})
		} else {
			p.item("error", "apply_patch: "+r.Output)
		}
	case "update_plan":
		if len(r.Plan) == 0 {
			return
		}
		items := []map[string]any{}
		for _, s := range r.Plan {
			items = append(items, map[string]any{"text": s.Step, "completed": s.Status == "completed"})
		}
		p.emit(jsonEvent{Type: "item.completed", Item: map[string]any{"id": p.newID(), "type": "todo_list", "items": items}})
	}
}

// mcpCall reports a call to a tool of an MCP server, when it ends, as an
// mcp_tool_call item: status completed or failed, with the server's result
// or the error.
func (p *jsonPrinter) mcpCall(r tools.Result) {
	c := r.MCP
	status := "failed"
	if r.Status == tools.StatusCompleted {
		status = "completed"
	}
	var result, callErr any
	if c.Result != nil {
		result = c.Result
	}
	if c.Error != "" {
		callErr = &jsonError{Message: c.Error}
	}
	args := c.Arguments
	if args == nil {
		args = json.RawMessage("{}")
	}
	p.emit(jsonEvent{Type: "item.completed", Item: map[string]any{
		"id": p.newID(), "type": "mcp_tool_call", "server": c.Server, "tool": c.Tool,
		"arguments": args, "result": result, "error": callErr, "status": status,
	}})
}

func (p *jsonPrinter) handle(ev session.Event) {
	switch ev := ev.(type) {
	case session.TurnStarted:
		p.emit(jsonEvent{Type: "turn.started"})
	case session.MessageDone:
		p.item("agent_message", ev.Text)
	case session.ReasoningDone:
		p.item("reasoning", ev.Text)
	case session.ToolCallBegin:
		p.toolBegin(ev)
	case session.ToolCallEnd:
		p.toolEnd(ev)
	case session.Retry:
		maxRetries, left, delay, waited := ev.Max, ev.Left, ev.Delay.Milliseconds(), ev.Waited.Milliseconds()
		p.emit(jsonEvent{Type: "retry", Layer: ev.Layer, Class: ev.Class, Attempt: ev.Attempt,
			Max: &maxRetries, Left: &left, DelayMS: &delay, WaitedMS: &waited, MaxWaitMS: ev.MaxWait.Milliseconds(),
			Reason: ev.Reason()})
	case session.Warning:
		p.emit(jsonEvent{Type: "warning", Message: ev.Message})
	case session.TurnCompleted:
		p.emit(jsonEvent{Type: "turn.completed", Usage: usageJSON(ev.Total), Requests: &ev.Requests})
	case session.TurnFailed:
		p.emit(jsonEvent{Type: "turn.failed", Error: &jsonError{Message: ev.Err.Error()}, Requests: &ev.Requests})
	}
}

func usageJSON(u transport.Usage) *jsonUsage {
	return &jsonUsage{
		InputTokens:           u.InputTokens,
		CachedInputTokens:     u.CachedInputTokens,
		CacheWriteInputTokens: u.CacheWriteInputTokens,
		OutputTokens:          u.OutputTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens,
	}
}
