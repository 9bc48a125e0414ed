// Package telemetry is agent's [otel]: Codex's telemetry events
// (codex.conversation_starts, codex.api_request, codex.sse_event,
// codex.user_prompt, codex.tool_decision, codex.tool_result, codex.retry)
// with Codex's attributes, heard from the session ([session.Observer])
// and the model client ([modelclient.Observer]) and written to the
// exporter, agent-otel, which sends them over OTLP. Agent links no
// OpenTelemetry code: with no [otel] (or exporter = "none") nothing of
// this package runs and no process starts. Prompts are sent as
// "[REDACTED]" unless log_user_prompt is set, and every secret agent
// holds is masked in every attribute.
package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/internal/telemetry/wire"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// RedactedPrompt stands for a prompt when log_user_prompt is off, as
// Codex sends it.
const RedactedPrompt = "[REDACTED]"

// Meta is what every event carries: Codex's metadata attributes.
type Meta struct {
	ConversationID string // conversation.id
	AppVersion     string // app.version
	AuthMode       string // auth_mode: "ApiKey", "ChatGPT"; "" omits it
	AccountID      string // user.account_id; "" omits it
	Email          string // user.email; "" omits it
	TerminalType   string // terminal.type
	Model          string // model
	Slug           string // slug; Model when ""
}

// Options configure a [Telemetry].
type Options struct {
	Meta Meta
	// LogUserPrompt sends prompts as typed ([otel] log_user_prompt);
	// false sends [RedactedPrompt].
	LogUserPrompt bool
	// Secrets are masked in every attribute; nil masks nothing more.
	Secrets *redact.Set
	// Now is the clock of event times; nil: time.Now.
	Now func() time.Time
}

// Telemetry writes a session's events to the exporter. It is safe for
// concurrent use. Writing never blocks a turn on the exporter's
// progress beyond the pipe, and a write that fails (the exporter
// exited) stops the stream with the first error kept for [Telemetry.Close].
//
// Each session reports through a Telemetry of its own ([Telemetry.Conversation]):
// its conversation.id and model, over the one stream of the process.
type Telemetry struct {
	mu   sync.Mutex // guards opts.Meta
	opts Options
	out  *output
}

// output is the stream to the exporter that every conversation of a
// process writes to.
type output struct {
	mu    sync.Mutex
	enc   *json.Encoder
	err   error
	close func(ctx context.Context) error
}

// New writes the stream's settings s to w and returns the Telemetry that
// writes events after them. close, when set, is what [Telemetry.Close]
// runs (ending the exporter).
func New(w io.Writer, s wire.Settings, opts Options, close func(ctx context.Context) error) (*Telemetry, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Secrets == nil {
		opts.Secrets = redact.New()
	}
	if opts.Meta.Slug == "" {
		opts.Meta.Slug = opts.Meta.Model
	}
	t := &Telemetry{opts: opts, out: &output{enc: json.NewEncoder(w), close: close}}
	if err := t.out.enc.Encode(s); err != nil {
		return nil, fmt.Errorf("start telemetry: %w", err)
	}
	return t, nil
}

// Close ends the stream and waits, within ctx, for the exporter to send
// what it holds. It returns the first failure to write or export.
func (t *Telemetry) Close(ctx context.Context) error {
	o := t.out
	o.mu.Lock()
	err := o.err
	o.err = errClosed
	o.mu.Unlock()
	if o.close != nil {
		err = errors.Join(err, o.close(ctx))
	}
	return err
}

// Conversation returns the Telemetry of session id, whose events carry
// its id (conversation.id) and model, written to t's stream. Closing t
// ends them all.
func (t *Telemetry) Conversation(id, model string) *Telemetry {
	t.mu.Lock()
	opts := t.opts
	t.mu.Unlock()
	opts.Meta.ConversationID, opts.Meta.Model, opts.Meta.Slug = id, model, model
	return &Telemetry{opts: opts, out: t.out}
}

var errClosed = errors.New("telemetry closed")

// SetModel makes later events carry model (and slug) as theirs: the
// chat's /model, as Codex's with_model.
func (t *Telemetry) SetModel(model string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opts.Meta.Model, t.opts.Meta.Slug = model, model
}

// emit writes one record: the common attributes, then attrs, each
// masked. start, when not zero, makes the record a span too.
func (t *Telemetry) emit(name string, start time.Time, attrs ...wire.Attr) {
	now := t.opts.Now()
	t.mu.Lock()
	m := t.opts.Meta
	t.mu.Unlock()
	all := make([]wire.Attr, 0, len(attrs)+10)
	all = append(all, wire.String("event.timestamp", now.UTC().Format("2006-01-02T15:04:05.000Z")),
		wire.String("conversation.id", m.ConversationID), wire.String("app.version", m.AppVersion))
	for _, kv := range [][2]string{{"auth_mode", m.AuthMode}, {"user.account_id", m.AccountID}, {"user.email", m.Email}} {
		if kv[1] != "" {
			all = append(all, wire.String(kv[0], kv[1]))
		}
	}
	all = append(all, wire.String("terminal.type", m.TerminalType), wire.String("model", m.Model), wire.String("slug", m.Slug))
	all = append(all, attrs...)
	for i := range all {
		all[i].Str = t.opts.Secrets.String(all[i].Str)
	}
	r := wire.Record{Name: name, Time: now, Start: start, Attrs: all}
	o := t.out
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return
	}
	o.err = o.enc.Encode(r)
}

// ConversationStart is what codex.conversation_starts says of a session.
type ConversationStart struct {
	Provider              string
	ReasoningEffort       string
	ReasoningSummary      string
	ContextWindow         int64
	AutoCompactTokenLimit int64
	ApprovalPolicy        string
	SandboxPolicy         string
	MCPServers            []string
	Profile               string
}

// ConversationStarts reports a session's start.
func (t *Telemetry) ConversationStarts(c ConversationStart) {
	attrs := []wire.Attr{wire.String("provider_name", c.Provider)}
	if c.ReasoningEffort != "" {
		attrs = append(attrs, wire.String("reasoning_effort", c.ReasoningEffort))
	}
	attrs = append(attrs, wire.String("reasoning_summary", c.ReasoningSummary))
	if c.ContextWindow > 0 {
		attrs = append(attrs, wire.Int("context_window", c.ContextWindow))
	}
	if c.AutoCompactTokenLimit > 0 {
		attrs = append(attrs, wire.Int("auto_compact_token_limit", c.AutoCompactTokenLimit))
	}
	attrs = append(attrs, wire.String("approval_policy", c.ApprovalPolicy), wire.String("sandbox_policy", c.SandboxPolicy))
	servers := ""
	for i, s := range c.MCPServers {
		if i > 0 {
			servers += ", "
		}
		servers += s
	}
	attrs = append(attrs, wire.String("mcp_servers", servers))
	if c.Profile != "" {
		attrs = append(attrs, wire.String("active_profile", c.Profile))
	}
	t.emit("codex.conversation_starts", time.Time{}, attrs...)
}

// APIRequest reports one attempt of a sampling request
// (codex.api_request), also as a span of its duration.
func (t *Telemetry) APIRequest(_ context.Context, r modelclient.APIRequest) {
	attrs := []wire.Attr{wire.Int("duration_ms", r.Duration.Milliseconds()), wire.Int("attempt", int64(r.Attempt))}
	if r.Status != 0 {
		attrs = append(attrs, wire.Int("http.response.status_code", int64(r.Status)))
	}
	if r.Err != nil {
		attrs = append(attrs, wire.String("error.message", r.Err.Error()))
	}
	t.emit("codex.api_request", t.opts.Now().Add(-r.Duration), attrs...)
}

// UserPrompt reports a turn's prompt (codex.user_prompt), redacted
// unless log_user_prompt is set.
func (t *Telemetry) UserPrompt(_ context.Context, prompt string, images int) {
	shown := RedactedPrompt
	if t.opts.LogUserPrompt {
		shown = prompt
	}
	t.emit("codex.user_prompt", time.Time{}, wire.Int("prompt_length", int64(len([]rune(prompt)))),
		wire.String("prompt", shown), wire.Int("image_input_count", int64(images)))
}

// StreamEvent reports one event of a response's stream (codex.sse_event).
func (t *Telemetry) StreamEvent(_ context.Context, e session.StreamEvent) {
	var attrs []wire.Attr
	if e.Kind != "" {
		attrs = append(attrs, wire.String("event.kind", e.Kind))
	}
	attrs = append(attrs, wire.Int("duration_ms", e.Duration.Milliseconds()))
	if u := e.Usage; u != nil {
		attrs = append(attrs, wire.Int("input_token_count", u.InputTokens), wire.Int("output_token_count", u.OutputTokens),
			wire.Int("cached_token_count", u.CachedInputTokens), wire.Int("reasoning_token_count", u.ReasoningOutputTokens),
			wire.Int("tool_token_count", 0))
	}
	if e.Err != nil {
		attrs = append(attrs, wire.String("error.message", e.Err.Error()))
	}
	t.emit("codex.sse_event", time.Time{}, attrs...)
}

// ToolDecision reports whether a tool call may run (codex.tool_decision).
func (t *Telemetry) ToolDecision(_ context.Context, call tools.Call, d session.ToolDecision) {
	t.emit("codex.tool_decision", time.Time{}, wire.String("tool_name", call.Name), wire.String("call_id", call.ID),
		wire.String("decision", d.Decision), wire.String("source", d.Source))
}

// ToolResult reports a tool call's end (codex.tool_result), also as a
// span of its duration.
func (t *Telemetry) ToolResult(_ context.Context, call tools.Call, res tools.Result, took time.Duration) {
	attrs := []wire.Attr{wire.String("tool_name", call.Name), wire.String("call_id", call.ID),
		wire.String("arguments", call.Input), wire.Int("duration_ms", took.Milliseconds()),
		wire.String("success", strconv.FormatBool(res.Status == tools.StatusCompleted)), wire.String("output", res.Output)}
	if res.MCP != nil {
		attrs = append(attrs, wire.String("mcp_server", res.MCP.Server))
	}
	t.emit("codex.tool_result", t.opts.Now().Add(-took), attrs...)
}

// Retry reports a retry about to wait (codex.retry).
func (t *Telemetry) Retry(_ context.Context, r modelclient.Retry) {
	t.emit("codex.retry", time.Time{}, wire.Int("retry.attempt", int64(r.Attempt)), wire.Int("retry.delay_ms", r.Delay.Milliseconds()),
		wire.String("retry.layer", r.Layer), wire.String("retry.class", r.Class), wire.String("error.message", r.Reason()))
}
