package execprint

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
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
	Usage    *Usage     `json:"usage,omitempty"`
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
	// From and To are the providers of a provider_switch.
	From *jsonProvider `json:"from,omitempty"`
	To   *jsonProvider `json:"to,omitempty"`
	// Event, Status and Hook describe a hook's run (type "hook").
	Event  string    `json:"event,omitempty"`
	Status string    `json:"status,omitempty"`
	Hook   *jsonHook `json:"hook,omitempty"`
	// Agent and AgentID name the subagent whose hook ran ("" for the
	// session's own).
	Agent   string `json:"agent,omitempty"`
	AgentID string `json:"agent_id,omitempty"`
}

// jsonHook names a hook: its command, matcher and where it is declared.
type jsonHook struct {
	Command    string  `json:"command"`
	Matcher    *string `json:"matcher,omitempty"`
	Source     string  `json:"source"`
	DurationMS int64   `json:"duration_ms"`
}

// jsonProvider names a provider and the model there.
type jsonProvider struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// The items, field by field in the reference client's order
// (codex-rs/exec/src/exec_events.rs), so lines compare byte for byte.
type jsonItem struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Text string `json:"text"`
	// Refusal marks an agent_message that is the model's refusal.
	Refusal bool `json:"refusal,omitempty"`
}

type jsonCommandItem struct {
	ID               string `json:"id"`
	Type             string `json:"type"`
	Command          string `json:"command"`
	AggregatedOutput string `json:"aggregated_output"`
	ExitCode         *int   `json:"exit_code"`
	Status           string `json:"status"`
}

type jsonFileChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
}

type jsonFileChangeItem struct {
	ID      string           `json:"id"`
	Type    string           `json:"type"`
	Changes []jsonFileChange `json:"changes"`
	Status  string           `json:"status"`
}

type jsonTodo struct {
	Text      string `json:"text"`
	Completed bool   `json:"completed"`
}

type jsonTodoItem struct {
	ID    string     `json:"id"`
	Type  string     `json:"type"`
	Items []jsonTodo `json:"items"`
}

// jsonWebSearchItem is Codex's web_search item (its exec --json also
// repeats "id" with the server's item id; agent writes the key once).
type jsonWebSearchItem struct {
	ID     string          `json:"id"`
	Type   string          `json:"type"`
	Query  string          `json:"query"`
	Action json.RawMessage `json:"action"`
}

type jsonMCPItem struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	Error     *jsonError      `json:"error"`
	Status    string          `json:"status"`
}

// jsonCollabItem is Codex's collab_tool_call item: a call to
// spawn_agent, send_input, wait_agent (resume_agent too, as Codex's exec
// writes it) or close_agent, with the subagents it is about.
type jsonCollabItem struct {
	ID                string                            `json:"id"`
	Type              string                            `json:"type"`
	Tool              string                            `json:"tool"`
	SenderThreadID    string                            `json:"sender_thread_id"`
	ReceiverThreadIDs []string                          `json:"receiver_thread_ids"`
	Prompt            *string                           `json:"prompt"`
	AgentsStates      map[string]tools.CollabAgentState `json:"agents_states"`
	Status            string                            `json:"status"`
}

// collabTool is the tool of a collab_tool_call item for a call's name,
// "" for a tool that is not a collaboration tool.
func collabTool(name string) string {
	switch name {
	case "spawn_agent", "send_input", "close_agent":
		return name
	case "wait_agent", "resume_agent":
		return "wait"
	}
	return ""
}

// collabBegin is the started item of a collaboration call, from its
// arguments.
func (p *JSON) collabBegin(ev session.ToolCallBegin, tool string) {
	var a struct {
		Message *string  `json:"message"`
		Target  string   `json:"target"`
		ID      string   `json:"id"`
		Targets []string `json:"targets"`
	}
	_ = json.Unmarshal([]byte(ev.Call.Input), &a)
	receivers := []string{}
	switch {
	case len(a.Targets) > 0:
		receivers = a.Targets
	case a.Target != "":
		receivers = []string{a.Target}
	case a.ID != "":
		receivers = []string{a.ID}
	}
	id := p.newID()
	p.calls[ev.Call.ID] = id
	p.emit(jsonEvent{Type: "item.started", Item: &jsonCollabItem{ID: id, Type: "collab_tool_call", Tool: tool,
		SenderThreadID: p.threadID, ReceiverThreadIDs: receivers, Prompt: a.Message,
		AgentsStates: map[string]tools.CollabAgentState{}, Status: "in_progress"}})
}

// collabEnd is the completed item of a collaboration call.
func (p *JSON) collabEnd(ev session.ToolCallEnd, tool string) {
	c := ev.Result.Collab
	status := "failed"
	if ev.Result.Status == tools.StatusCompleted {
		status = "completed"
	}
	var prompt *string
	if c.Prompt != "" {
		prompt = &c.Prompt
	}
	receivers, states := c.Receivers, c.States
	if receivers == nil {
		receivers = []string{}
	}
	if states == nil {
		states = map[string]tools.CollabAgentState{}
	}
	p.emit(jsonEvent{Type: "item.completed", Item: &jsonCollabItem{ID: p.callID(ev.Call.ID), Type: "collab_tool_call",
		Tool: tool, SenderThreadID: cmp.Or(c.Sender, p.threadID), ReceiverThreadIDs: receivers, Prompt: prompt,
		AgentsStates: states, Status: status}})
}

// Usage is a turn's token usage as exec --json's turn.completed and a
// batch's result lines write it.
type Usage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	// CostUSD is what these tokens cost at the catalogue's prices; absent
	// when a price is unknown (never guessed).
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

type jsonError struct {
	Message string `json:"message"`
}

// JSON renders session events as `agent exec --json` prints them: JSONL
// in the reference client's schema (docs/exec-json.md). A transient
// notice is never typed "error": retries are "retry" events, fallbacks
// "warning".
type JSON struct {
	enc      *json.Encoder
	threadID string
	tools    Tools
	items    int
	calls    map[string]string // call_id -> item id of a started tool item
	err      error             // the first write error; later events are dropped
	// pending are the message and reasoning items of the attempt in
	// progress, emitted once its response completes: an attempt that
	// fails after completing a message is retried, and its retry answers.
	pending []pendingItem
}

type pendingItem struct {
	typ, text string
	refusal   bool
}

// NewJSON returns a printer of session events as JSONL on w, and writes
// the thread.started line with threadID. A write error stops the output:
// later events are dropped. A JSON printer is not safe for concurrent use.
func NewJSON(w io.Writer, threadID string, t Tools) *JSON {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "a >&2" as the reference client writes it
	p := &JSON{enc: enc, tools: t, calls: map[string]string{}, threadID: threadID}
	p.emit(jsonEvent{Type: "thread.started", ThreadID: threadID})
	return p
}

func (p *JSON) emit(e jsonEvent) {
	if p.err == nil {
		p.err = p.enc.Encode(e)
	}
}

func (p *JSON) item(it pendingItem) {
	p.emit(jsonEvent{Type: "item.completed", Item: &jsonItem{ID: p.newID(), Type: it.typ, Text: it.text, Refusal: it.refusal}})
}

func (p *JSON) newID() string {
	id := fmt.Sprintf("item_%d", p.items)
	p.items++
	return id
}

// toolBegin opens the item of a command or an MCP call as it starts.
// (Patches open theirs when they end: only then is it known which files
// they changed.)
func (p *JSON) toolBegin(ev session.ToolCallBegin) {
	if tool := collabTool(ev.Call.Name); tool != "" {
		p.collabBegin(ev, tool)
		return
	}
	if server, tool, ok := p.tools.lookupMCP(ev.Call.Name); ok {
		id := p.newID()
		p.calls[ev.Call.ID] = id
		p.emit(jsonEvent{Type: "item.started", Item: &jsonMCPItem{ID: id, Type: "mcp_tool_call",
			Server: server, Tool: tool, Arguments: mcpArguments(ev.Call.Input), Result: jsonNull, Status: "in_progress"}})
		return
	}
	if ev.Call.Name != "exec_command" {
		return
	}
	argv, ok := tools.ExecArgv(p.tools.Shell, ev.Call.Input)
	if !ok {
		return // an invalid call fails before anything runs
	}
	id := p.newID()
	p.calls[ev.Call.ID] = id
	p.emit(jsonEvent{Type: "item.started", Item: &jsonCommandItem{ID: id, Type: "command_execution",
		Command: tools.ShellJoin(argv), Status: "in_progress"}})
}

// callID returns the item id toolBegin gave the call, or a new one.
func (p *JSON) callID(callID string) string {
	id, ok := p.calls[callID]
	if !ok {
		id = p.newID()
	}
	delete(p.calls, callID)
	return id
}

var jsonNull = json.RawMessage("null")

// mcpArguments is a call's arguments as JSON: {} when empty, a JSON
// string when they are not JSON.
func mcpArguments(input string) json.RawMessage {
	switch {
	case strings.TrimSpace(input) == "":
		return json.RawMessage("{}")
	case json.Valid([]byte(input)):
		return json.RawMessage(input)
	}
	b, _ := json.Marshal(input)
	return b
}

// toolEnd reports a finished tool call as its item.
func (p *JSON) toolEnd(ev session.ToolCallEnd) {
	r := ev.Result
	status := string(r.Status)
	if r.MCP != nil {
		p.mcpCall(ev.Call.ID, r)
		return
	}
	if tool := collabTool(ev.Call.Name); tool != "" && r.Collab != nil {
		p.collabEnd(ev, tool)
		return
	}
	switch ev.Call.Name {
	case "exec_command", "write_stdin":
		command := r.Command
		if len(r.Argv) > 0 {
			command = tools.ShellJoin(r.Argv)
		}
		if command == "" {
			delete(p.calls, ev.Call.ID)
			return // an invalid call: nothing ran, and no item id is spent
		}
		id := p.callID(ev.Call.ID)
		p.emit(jsonEvent{Type: "item.completed", Item: &jsonCommandItem{ID: id, Type: "command_execution",
			Command: command, AggregatedOutput: r.CommandOutput, ExitCode: r.ExitCode, Status: status}})
	case "apply_patch":
		if len(r.Files) == 0 {
			// Rejected before any change (it did not parse or apply, or
			// was declined): the model is told why; like the reference
			// client, no item.
			return
		}
		changes := []jsonFileChange{}
		for _, f := range r.Files {
			kind := map[byte]string{'A': "add", 'M': "update", 'D': "delete"}[f[0]]
			path := strings.TrimSpace(f[1:])
			if !filepath.IsAbs(path) {
				path = filepath.Join(p.tools.Cwd, path)
			}
			changes = append(changes, jsonFileChange{Path: path, Kind: kind})
		}
		slices.SortFunc(changes, func(a, b jsonFileChange) int { return strings.Compare(a.Path, b.Path) })
		id := p.newID()
		p.emit(jsonEvent{Type: "item.started", Item: &jsonFileChangeItem{ID: id, Type: "file_change", Changes: changes, Status: "in_progress"}})
		p.emit(jsonEvent{Type: "item.completed", Item: &jsonFileChangeItem{ID: id, Type: "file_change", Changes: changes, Status: status}})
	case "update_plan":
		if len(r.Plan) == 0 {
			return
		}
		items := []jsonTodo{}
		for _, s := range r.Plan {
			items = append(items, jsonTodo{Text: s.Step, Completed: s.Status == "completed"})
		}
		p.emit(jsonEvent{Type: "item.completed", Item: &jsonTodoItem{ID: p.newID(), Type: "todo_list", Items: items}})
	}
}

// mcpCall reports the end of a call to a tool of an MCP server as its
// mcp_tool_call item: status completed or failed, with the server's result
// (content blocks as MCP sends them, and structured_content, null when the
// server sent none) or the error.
func (p *JSON) mcpCall(callID string, r tools.Result) {
	c := r.MCP
	status := "failed"
	if r.Status == tools.StatusCompleted {
		status = "completed"
	}
	result := jsonNull
	if c.Result != nil {
		result = withStructuredContent(c.Result)
	}
	var callErr *jsonError
	if c.Error != "" {
		callErr = &jsonError{Message: c.Error}
	}
	args := c.Arguments
	if args == nil {
		args = json.RawMessage("{}")
	}
	p.emit(jsonEvent{Type: "item.completed", Item: &jsonMCPItem{ID: p.callID(callID), Type: "mcp_tool_call",
		Server: c.Server, Tool: c.Tool, Arguments: args, Result: result, Error: callErr, Status: status}})
}

// withStructuredContent writes an MCP result as the reference client does:
// {"content": [...], "structured_content": ...|null}.
func withStructuredContent(res json.RawMessage) json.RawMessage {
	var v struct {
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structured_content"`
	}
	if json.Unmarshal(res, &v) != nil {
		return res
	}
	if v.Content == nil {
		v.Content = json.RawMessage("[]")
	}
	if v.StructuredContent == nil {
		v.StructuredContent = jsonNull
	}
	b, err := json.Marshal(v)
	if err != nil {
		return res
	}
	return b
}

// Handle prints the lines ev makes, if any. Messages and reasoning of an
// attempt are held until its response completes, and dropped when it is
// retried.
func (p *JSON) Handle(ev session.Event) {
	switch ev := ev.(type) {
	case session.TurnStarted:
		p.emit(jsonEvent{Type: "turn.started"})
	case session.MessageDone:
		p.pending = append(p.pending, pendingItem{"agent_message", ev.Text, ev.Refused})
	case session.ReasoningDone:
		p.pending = append(p.pending, pendingItem{typ: "reasoning", text: ev.Text})
	case session.WebSearchDone:
		action := ev.Action
		if action == nil {
			action = json.RawMessage(`{"type":"other"}`)
		}
		p.emit(jsonEvent{Type: "item.completed", Item: &jsonWebSearchItem{ID: p.newID(), Type: "web_search", Query: ev.Query, Action: action}})
	case session.ResponseCompleted:
		for _, it := range p.pending {
			p.item(it)
		}
		p.pending = nil
	case session.ToolCallBegin:
		p.toolBegin(ev)
	case session.ToolCallEnd:
		p.toolEnd(ev)
	case session.Retry:
		p.pending = nil // the attempt failed: its retry answers
		maxRetries, left, delay, waited := ev.Max, ev.Left, ev.Delay.Milliseconds(), ev.Waited.Milliseconds()
		p.emit(jsonEvent{Type: "retry", Layer: ev.Layer, Class: ev.Class, Attempt: ev.Attempt,
			Max: &maxRetries, Left: &left, DelayMS: &delay, WaitedMS: &waited, MaxWaitMS: ev.MaxWait.Milliseconds(),
			Reason: ev.Reason()})
	case session.Warning:
		p.emit(jsonEvent{Type: "warning", Message: ev.Message})
	case session.HookRun:
		msg := ev.Run.Message
		if ev.Run.SystemMessage != "" {
			msg = strings.TrimSpace(msg + "\n" + ev.Run.SystemMessage)
		}
		p.emit(jsonEvent{Type: "hook", Event: string(ev.Event), Status: string(ev.Run.Status), Message: msg,
			Hook: &jsonHook{Command: ev.Run.Hook.Command, Matcher: ev.Run.Hook.Matcher, Source: ev.Run.Hook.Path,
				DurationMS: ev.Run.Duration.Milliseconds()}, Agent: ev.Agent, AgentID: ev.AgentID})
	case session.HookStopped:
		p.emit(jsonEvent{Type: "warning", Message: ev.Notice()})
	case session.ProviderSwitch:
		p.emit(jsonEvent{Type: "provider_switch", From: &jsonProvider{ev.From.Provider, ev.From.Model},
			To: &jsonProvider{ev.To.Provider, ev.To.Model}, Reason: ev.Reason})
	case session.TurnCompleted:
		p.emit(jsonEvent{Type: "turn.completed", Usage: UsageOf(ev.Total, ev.TotalCost), Requests: &ev.Requests})
	case session.TurnFailed:
		// As the reference client: the fatal error, then turn.failed.
		msg := ev.Err.Error()
		p.emit(jsonEvent{Type: "error", Message: msg})
		p.emit(jsonEvent{Type: "turn.failed", Error: &jsonError{Message: msg}, Requests: &ev.Requests})
	}
}

// UsageOf returns u as it is printed.
func UsageOf(u transport.Usage, costUSD *float64) *Usage {
	return &Usage{
		CostUSD:               costUSD,
		InputTokens:           u.InputTokens,
		CachedInputTokens:     u.CachedInputTokens,
		CacheWriteInputTokens: u.CacheWriteInputTokens,
		OutputTokens:          u.OutputTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens,
	}
}
