package modelclient

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
	"github.com/agentcli/agent/transport/chat"
)

// Chat is the Chat Completions API's wire: POST {base_url}/chat/completions
// streamed over SSE, as Ollama, vLLM, llama.cpp's server, LM Studio,
// LiteLLM and OpenRouter serve it. Never over WebSocket, never chained
// on previous_response_id.
func Chat() Wire {
	return Wire{API: provider.WireAPIChat, Encoder: chatEncoder{}, Decoder: chat.Decoder{}}
}

// chatEncoder is the Chat Completions API's [Encoder]: the session's
// history (Responses items) translated to chat messages.
type chatEncoder struct{}

// URL is POST {base_url}/chat/completions, with the provider's
// query_params.
func (chatEncoder) URL(p provider.Info) string {
	u := strings.TrimRight(p.BaseURL, "/") + "/chat/completions"
	if len(p.QueryParams) == 0 {
		return u
	}
	q := url.Values{}
	for k, v := range p.QueryParams {
		q.Set(k, v)
	}
	return u + "?" + q.Encode()
}

// Header adds nothing: the API reads the bearer token every wire sends.
func (chatEncoder) Header(h http.Header) http.Header { return h }

type chatBody struct {
	Model             string            `json:"model"`
	Messages          []chatMessage     `json:"messages"`
	Tools             []json.RawMessage `json:"tools,omitempty"`
	ToolChoice        string            `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool             `json:"parallel_tool_calls,omitempty"`
	ReasoningEffort   string            `json:"reasoning_effort,omitempty"`
	Verbosity         string            `json:"verbosity,omitempty"`
	ServiceTier       string            `json:"service_tier,omitempty"`
	ResponseFormat    map[string]any    `json:"response_format,omitempty"`
	Stream            bool              `json:"stream"`
	StreamOptions     map[string]bool   `json:"stream_options"`
}

// chatMessage is one message; Content is a string, an array of parts or
// null (an assistant message that only calls tools).
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Body encodes r as a streamed Chat Completions request.
func (chatEncoder) Body(r *Call) ([]byte, error) {
	p, st := r.Prompt, r.Settings
	b := chatBody{
		Model:           st.Model,
		Messages:        chatMessages(p.Instructions, p.Input),
		Tools:           chatTools(p.Tools),
		ReasoningEffort: st.ReasoningEffort,
		Verbosity:       st.Verbosity,
		ServiceTier:     st.ServiceTier,
		Stream:          true,
		StreamOptions:   map[string]bool{"include_usage": true},
	}
	if b.ServiceTier == "fast" {
		b.ServiceTier = "priority"
	}
	if b.ReasoningEffort == "none" {
		b.ReasoningEffort = ""
	}
	if len(b.Tools) > 0 {
		// Only beside tools: OpenAI refuses parallel_tool_calls without.
		b.ToolChoice = "auto"
		b.ParallelToolCalls = &p.ParallelToolCalls
	}
	if len(p.OutputSchema) > 0 {
		if !json.Valid(p.OutputSchema) {
			return nil, errors.New("output schema: not valid JSON")
		}
		b.ResponseFormat = map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": "agent_output_schema", "strict": true, "schema": p.OutputSchema,
		}}
	}
	return json.Marshal(b)
}

// chatTools translates the Responses tool specs: a function tool's fields
// move under "function"; a custom (freeform) tool, which Chat Completions
// lacks, becomes a function taking its text as the string argument
// "input" (apply_patch reads it so); other tools (web_search, the
// Responses API's own) have no Chat Completions form and are left out.
func chatTools(specs []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
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
		params := s.Parameters
		switch s.Type {
		case "function":
			if len(params) == 0 {
				params = json.RawMessage(`{"type":"object","properties":{}}`)
			}
		case "custom":
			params = json.RawMessage(`{"type":"object","properties":{"input":{"type":"string","description":"The tool's input text."}},"required":["input"],"additionalProperties":false}`)
		default:
			continue
		}
		b, err := json.Marshal(map[string]any{"type": "function", "function": map[string]any{
			"name": s.Name, "description": s.Description, "parameters": params,
		}})
		if err == nil {
			out = append(out, b)
		}
	}
	return out
}

// chatItem is the fields of a history item the translation reads.
type chatItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
	Content   []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Refusal  string          `json:"refusal"`
		ImageURL json.RawMessage `json:"image_url"`
	} `json:"content"`
}

// chatMessages translates the instructions and the history: the
// instructions as a system message; user and developer messages (images
// as image_url parts); the assistant's text and tool calls as one
// assistant message with tool_calls; each call's output as a tool
// message (its images, which a tool message cannot carry, in a user
// message after the outputs). Reasoning is the model's own and not sent
// back; items of other types have no chat form.
func chatMessages(instructions string, input []transport.Item) []chatMessage {
	msgs := []chatMessage{}
	if instructions != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: instructions})
	}
	var asst *chatMessage // the assistant message being assembled
	var images []any      // tool outputs' images, sent after the outputs
	flush := func() {
		if asst != nil {
			if asst.Content == "" && len(asst.ToolCalls) > 0 {
				asst.Content = nil // calls alone: null, as OpenAI sends it
			}
			msgs = append(msgs, *asst)
			asst = nil
		}
	}
	flushImages := func() {
		if len(images) > 0 {
			parts := append([]any{map[string]string{"type": "text", "text": "The images the tool calls returned:"}}, images...)
			msgs = append(msgs, chatMessage{Role: "user", Content: parts})
			images = nil
		}
	}
	for _, it := range input {
		var w chatItem
		if json.Unmarshal(it.Raw, &w) != nil {
			continue
		}
		if !it.IsCallOutput() {
			flushImages()
		}
		switch {
		case w.Type == "message" && w.Role == "assistant":
			if asst != nil && (len(asst.ToolCalls) > 0 || asst.Content != nil) {
				flush()
			}
			text := assistantText(w)
			asst = &chatMessage{Role: "assistant", Content: text}
		case w.Type == "message":
			flush()
			role := w.Role
			if role == "developer" {
				role = "system"
			}
			msgs = append(msgs, chatMessage{Role: role, Content: userContent(w)})
		case it.IsCall():
			if asst == nil {
				asst = &chatMessage{Role: "assistant"}
			}
			tc := chatToolCall{ID: w.CallID, Type: "function"}
			tc.Function.Name, tc.Function.Arguments = it.Name, w.Arguments
			if w.Type == "custom_tool_call" {
				arg, _ := json.Marshal(map[string]string{"input": w.Input})
				tc.Function.Arguments = string(arg)
			}
			asst.ToolCalls = append(asst.ToolCalls, tc)
		case it.IsCallOutput():
			flush()
			text, imgs := toolOutput(w.Output)
			images = append(images, imgs...)
			msgs = append(msgs, chatMessage{Role: "tool", ToolCallID: w.CallID, Content: text})
		}
	}
	flush()
	flushImages()
	return msgs
}

// assistantText is an assistant message's text, its refusals included.
func assistantText(w chatItem) any {
	var b strings.Builder
	for _, c := range w.Content {
		b.WriteString(c.Text)
		b.WriteString(c.Refusal)
	}
	return b.String()
}

// userContent is a message's content: a string when it is all text (what
// every server reads), else text and image_url parts.
func userContent(w chatItem) any {
	var parts []any
	var text []string
	hasImage := false
	for _, c := range w.Content {
		switch c.Type {
		case "input_image":
			hasImage = true
			parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]string{"url": imageURL(c.ImageURL)}})
		default:
			text = append(text, c.Text)
			parts = append(parts, map[string]string{"type": "text", "text": c.Text})
		}
	}
	if !hasImage {
		return strings.Join(text, "\n")
	}
	return parts
}

// imageURL reads an input_image's image_url: a string, or an object with
// a url.
func imageURL(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(raw, &o)
	return o.URL
}

// toolOutput is a call output's text and its images as image_url parts:
// the output is a string, or an array of input_text and input_image parts.
func toolOutput(raw json.RawMessage) (string, []any) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		ImageURL json.RawMessage `json:"image_url"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return string(raw), nil
	}
	var text []string
	var images []any
	for _, p := range parts {
		if p.Type == "input_image" {
			images = append(images, map[string]any{"type": "image_url", "image_url": map[string]string{"url": imageURL(p.ImageURL)}})
			continue
		}
		text = append(text, p.Text)
	}
	return strings.Join(text, "\n"), images
}
