package modelclient

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/anthropic"
)

// AnthropicVersion is the anthropic-version header every Messages request
// carries (the API's one stable version), unless the provider's headers
// name another.
const AnthropicVersion = "2023-06-01"

// Anthropic is the Anthropic Messages API's wire: POST {base_url}/messages
// streamed over SSE, with the key as x-api-key. Never over WebSocket,
// never chained on previous_response_id.
func Anthropic() Wire {
	return Wire{API: provider.WireAPIAnthropic, Encoder: anthropicEncoder{}, Decoder: anthropic.Decoder{}}
}

// anthropicEncoder is the Messages API's [Encoder]: the session's history
// (Responses items) translated to messages of content blocks.
type anthropicEncoder struct{}

// URL is POST {base_url}/messages, with the provider's query_params.
func (anthropicEncoder) URL(p provider.Info) string {
	u := strings.TrimRight(p.BaseURL, "/") + "/messages"
	if len(p.QueryParams) == 0 {
		return u
	}
	q := url.Values{}
	for k, v := range p.QueryParams {
		q.Set(k, v)
	}
	return u + "?" + q.Encode()
}

// Header moves the bearer token to x-api-key, where the API reads the key
// (unless the provider's headers already send one), and adds
// anthropic-version (unless they name one).
func (anthropicEncoder) Header(h http.Header) http.Header { return AnthropicHeader(h) }

// AnthropicHeader is h as the Messages API reads it (a copy; h is not
// changed): the bearer token as x-api-key, unless h has one, and
// anthropic-version, unless h has one. agent doctor and agent proxy send
// it too.
func AnthropicHeader(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	if auth := out.Get("Authorization"); auth != "" && out.Get("X-Api-Key") == "" {
		key, ok := strings.CutPrefix(auth, "Bearer ")
		if ok {
			out.Set("X-Api-Key", key)
			out.Del("Authorization")
		}
	}
	if out.Get("Anthropic-Version") == "" {
		out.Set("Anthropic-Version", AnthropicVersion)
	}
	return out
}

type anthropicBody struct {
	Model        string             `json:"model"`
	MaxTokens    int                `json:"max_tokens"`
	System       []map[string]any   `json:"system,omitempty"`
	Messages     []anthropicMessage `json:"messages"`
	Tools        []map[string]any   `json:"tools,omitempty"`
	ToolChoice   map[string]any     `json:"tool_choice,omitempty"`
	Thinking     map[string]any     `json:"thinking,omitempty"`
	OutputConfig map[string]any     `json:"output_config,omitempty"`
	Stream       bool               `json:"stream"`
}

// anthropicMessage is one message: a role and its content blocks (maps,
// or a thinking block's JSON as the API sent it).
type anthropicMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// ephemeral is the cache breakpoint of the prompt's stable prefix.
var ephemeral = map[string]string{"type": "ephemeral"}

// Body encodes r as a streamed Messages request: the instructions as the
// system prompt, the history as alternating user and assistant messages,
// the tools with their input schemas, thinking when a reasoning effort is
// set, and two cache breakpoints: the end of the system prompt (tools and
// instructions, the same for the whole session) and the end of the
// conversation so far (read back by the next request of the turn).
func (anthropicEncoder) Body(r *Call) ([]byte, error) {
	p, st := r.Prompt, r.Settings
	b := anthropicBody{
		Model:     st.Model,
		MaxTokens: anthropicMaxTokens(st.Model, r.MaxOutputTokens),
		Messages:  anthropicMessages(p.Input),
		Tools:     anthropicTools(p.Tools),
		Stream:    true,
	}
	if p.Instructions != "" {
		b.System = []map[string]any{{"type": "text", "text": p.Instructions, "cache_control": ephemeral}}
	} else if len(b.Tools) > 0 {
		b.Tools[len(b.Tools)-1]["cache_control"] = ephemeral
	}
	if n := len(b.Messages); n > 0 && b.Messages[n-1].Role == "user" {
		last := b.Messages[n-1].Content
		if blk, ok := last[len(last)-1].(map[string]any); ok {
			blk["cache_control"] = ephemeral
		}
	}
	if len(b.Tools) > 0 {
		b.ToolChoice = map[string]any{"type": "auto", "disable_parallel_tool_use": !p.ParallelToolCalls}
	}
	if budget := min(thinkingBudget(st.ReasoningEffort), b.MaxTokens/2); budget >= minThinkingBudget && thinkingAllowed(b.Messages) {
		b.Thinking = map[string]any{"type": "enabled", "budget_tokens": budget}
	}
	if len(p.OutputSchema) > 0 {
		if !json.Valid(p.OutputSchema) {
			return nil, errors.New("output schema: not valid JSON")
		}
		b.OutputConfig = map[string]any{"format": map[string]any{"type": "json_schema", "schema": p.OutputSchema}}
	}
	return json.Marshal(b)
}

// defaultMaxTokens is max_tokens for a model whose output limit nobody
// knows: what the Claude 4 models take (and opencode's cap).
const defaultMaxTokens = 32000

// minThinkingBudget is the least thinking budget the API takes: a
// max_tokens that leaves less (budget_tokens must be below it) turns
// thinking off.
const minThinkingBudget = 1024

// anthropicMaxTokens is the max_tokens a request asks for (the API
// requires one): the model's output limit in the catalogue (limit, from
// [Options].OutputLimit), else that of the older Claude models the
// catalogue leaves out, else [defaultMaxTokens].
func anthropicMaxTokens(model string, limit int64) int {
	if limit > 0 {
		return int(min(limit, math.MaxInt32))
	}
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "claude-3-haiku"), strings.Contains(m, "claude-3-opus"), strings.Contains(m, "claude-3-sonnet"):
		return 4096
	case strings.Contains(m, "claude-3-5"):
		return 8192
	case strings.Contains(m, "opus-4-0"), strings.Contains(m, "opus-4-1"), strings.HasSuffix(m, "opus-4"),
		strings.Contains(m, "opus-4-2025"):
		return 32000
	case strings.Contains(m, "claude-3-7"), strings.Contains(m, "sonnet-4"), strings.Contains(m, "haiku-4"), strings.Contains(m, "opus-4"):
		return 64000
	}
	return defaultMaxTokens
}

// thinkingAllowed reports whether a request of msgs may turn thinking
// on: the API then wants the assistant message before the lastmost
// tool_result to start with its thinking block ("Expected `thinking` or
// `redacted_thinking`, but found `tool_use`"), which a tool loop another
// provider ran (a failover mid-turn), or whose thinking was dropped, lacks.
// Such a request goes without thinking; the next turn has it again.
func thinkingAllowed(msgs []anthropicMessage) bool {
	n := len(msgs)
	if n < 2 || msgs[n-1].Role != "user" || msgs[n-2].Role != "assistant" {
		return true
	}
	loop := false
	for _, blk := range msgs[n-1].Content {
		if m, ok := blk.(map[string]any); ok && m["type"] == "tool_result" {
			loop = true
		}
	}
	if !loop {
		return true
	}
	_, signed := msgs[n-2].Content[0].(json.RawMessage) // a thinking block, as the API sent it
	return signed
}

// thinkingBudget is the thinking budget of a reasoning effort; 0: no
// thinking.
func thinkingBudget(effort string) int {
	switch effort {
	case "minimal":
		return 1024
	case "low":
		return 4096
	case "medium":
		return 10000
	case "high":
		return 24000
	case "xhigh":
		return 32000
	}
	return 0
}

// anthropicTools translates the Responses tool specs: a function's
// parameters are its input_schema; a custom (freeform) tool becomes a
// tool taking its text as the string "input" (apply_patch reads it so);
// other tools (web_search, the Responses API's own) have no form here and
// are left out (the app says so at start).
func anthropicTools(specs []json.RawMessage) []map[string]any {
	var out []map[string]any
	for _, raw := range specs {
		var s struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		schema := s.Parameters
		switch s.Type {
		case "function":
			if len(schema) == 0 || string(schema) == "null" {
				schema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
		case "custom":
			schema = json.RawMessage(`{"type":"object","properties":{"input":{"type":"string","description":"The tool's input text."}},"required":["input"]}`)
		default:
			continue
		}
		out = append(out, map[string]any{"name": s.Name, "description": s.Description, "input_schema": schema})
	}
	return out
}

// anthropicItem is the fields of a history item the translation reads.
type anthropicItem struct {
	chatItem
	Encrypted string `json:"encrypted_content"`
}

// anthropicMessages translates the history: user and developer messages
// (the API has no developer role: their text goes in the user's turn)
// with images as image blocks; the assistant's thinking (sent back whole,
// as the API requires, before the rest of its turn), text and tool calls
// as tool_use blocks; each call's output as a tool_result block in the
// next user turn. Consecutive messages of one role are one message, as
// the API wants roles to alternate. Reasoning of other providers (no
// thinking block) is not sent.
func anthropicMessages(input []transport.Item) []anthropicMessage {
	msgs := []anthropicMessage{}
	add := func(role string, blocks ...any) {
		if len(blocks) == 0 {
			return
		}
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			msgs[n-1].Content = append(msgs[n-1].Content, blocks...)
			return
		}
		msgs = append(msgs, anthropicMessage{Role: role, Content: blocks})
	}
	for _, it := range input {
		var w anthropicItem
		if json.Unmarshal(it.Raw, &w) != nil {
			continue
		}
		switch {
		case w.Type == "reasoning":
			if blk := thinkingBlock(w.Encrypted); blk != nil {
				add("assistant", blk)
			}
		case w.Type == "message" && w.Role == "assistant":
			if text, _ := assistantText(w.chatItem).(string); text != "" {
				add("assistant", map[string]any{"type": "text", "text": text})
			}
		case w.Type == "message":
			add("user", anthropicContent(w.chatItem)...)
		case it.IsCall():
			input := json.RawMessage(w.Arguments)
			if w.Type == "custom_tool_call" {
				input, _ = json.Marshal(map[string]string{"input": w.Input})
			} else if !isObject(input) {
				// The API takes an object: arguments the model got wrong
				// are sent back as the text they were.
				input, _ = json.Marshal(map[string]string{"arguments": w.Arguments})
			}
			add("assistant", map[string]any{"type": "tool_use", "id": w.CallID, "name": it.Name, "input": input})
		case it.IsCallOutput():
			add("user", toolResult(w.CallID, w.Output))
		}
	}
	return msgs
}

// thinkingBlock is the thinking or redacted_thinking block a reasoning
// item of this wire holds, as the API sent it; nil for any other.
func thinkingBlock(encrypted string) json.RawMessage {
	var b struct {
		Type string `json:"type"`
	}
	if !strings.HasPrefix(encrypted, "{") || json.Unmarshal([]byte(encrypted), &b) != nil {
		return nil
	}
	if b.Type != anthropic.BlockThinking && b.Type != anthropic.BlockRedacted {
		return nil
	}
	return json.RawMessage(encrypted)
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// anthropicContent is a user or developer message's text and image
// blocks.
func anthropicContent(w chatItem) []any {
	var out []any
	for _, c := range w.Content {
		switch c.Type {
		case "input_image":
			out = append(out, imageBlock(imageURL(c.ImageURL)))
		default:
			if c.Text != "" {
				out = append(out, map[string]any{"type": "text", "text": c.Text})
			}
		}
	}
	return out
}

// imageBlock is an image block of a URL: a data: URL's bytes as base64,
// any other URL as a url source.
func imageBlock(u string) map[string]any {
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		if meta, data, ok := strings.Cut(rest, ","); ok && strings.HasSuffix(meta, ";base64") {
			return map[string]any{"type": "image", "source": map[string]string{
				"type": "base64", "media_type": strings.TrimSuffix(meta, ";base64"), "data": data}}
		}
	}
	return map[string]any{"type": "image", "source": map[string]string{"type": "url", "url": u}}
}

// toolResult is a call output's tool_result block: its text, or its text
// and image blocks.
func toolResult(callID string, output json.RawMessage) map[string]any {
	text, images := toolOutput(output)
	blk := map[string]any{"type": "tool_result", "tool_use_id": callID}
	if len(images) == 0 {
		if text != "" {
			blk["content"] = text
		}
		return blk
	}
	var content []any
	if text != "" {
		content = append(content, map[string]any{"type": "text", "text": text})
	}
	for _, img := range images {
		u, _ := img.(map[string]any)["image_url"].(map[string]string)
		content = append(content, imageBlock(u["url"]))
	}
	blk["content"] = content
	return blk
}
