package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// jsonEvent is one line of `agent exec --json`, in the reference client's
// schema (docs/exec-json.md) plus our own "retry" and "warning" events.
type jsonEvent struct {
	Type     string     `json:"type"`
	ThreadID string     `json:"thread_id,omitempty"`
	Item     *jsonItem  `json:"item,omitempty"`
	Usage    *jsonUsage `json:"usage,omitempty"`
	Error    *jsonError `json:"error,omitempty"`
	Message  string     `json:"message,omitempty"`
	// retry fields, flattened
	Layer   string `json:"layer,omitempty"`
	Class   string `json:"class,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	Max     *int   `json:"max,omitempty"`
	DelayMS *int64 `json:"delay_ms,omitempty"`
	Reason  string `json:"reason,omitempty"`
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
	err   error // the first write error; later events are dropped
}

func newJSONPrinter(w io.Writer, threadID string) *jsonPrinter {
	p := &jsonPrinter{enc: json.NewEncoder(w)}
	p.emit(jsonEvent{Type: "thread.started", ThreadID: threadID})
	return p
}

func (p *jsonPrinter) emit(e jsonEvent) {
	if p.err == nil {
		p.err = p.enc.Encode(e)
	}
}

func (p *jsonPrinter) item(typ, text string) {
	id := fmt.Sprintf("item_%d", p.items)
	p.items++
	p.emit(jsonEvent{Type: "item.completed", Item: &jsonItem{ID: id, Type: typ, Text: text}})
}

func (p *jsonPrinter) handle(ev session.Event) {
	switch ev := ev.(type) {
	case session.TurnStarted:
		p.emit(jsonEvent{Type: "turn.started"})
	case session.MessageDone:
		p.item("agent_message", ev.Text)
	case session.ReasoningDone:
		p.item("reasoning", ev.Text)
	case session.Retry:
		maxRetries, delay := ev.Max, ev.Delay.Milliseconds()
		p.emit(jsonEvent{Type: "retry", Layer: ev.Layer, Class: ev.Class, Attempt: ev.Attempt,
			Max: &maxRetries, DelayMS: &delay, Reason: ev.Reason()})
	case session.Warning:
		p.emit(jsonEvent{Type: "warning", Message: ev.Message})
	case session.TurnCompleted:
		p.emit(jsonEvent{Type: "turn.completed", Usage: usageJSON(ev.Total)})
	case session.TurnFailed:
		p.emit(jsonEvent{Type: "turn.failed", Error: &jsonError{Message: ev.Err.Error()}})
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
