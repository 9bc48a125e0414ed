// Package chat is the Chat Completions API's reading half: the
// [transport.Decoder] of a streamed POST {base_url}/chat/completions, as
// OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio, LiteLLM and
// OpenRouter send it. It turns the chunks of one stream into the events
// of the Responses API the session reads: text deltas and an assistant
// message item, reasoning_content (DeepSeek, vLLM, llama.cpp) as
// reasoning, tool-call fragments assembled by index into function_call
// items, the usage of the last chunk, and the stream's end.
package chat

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentcli/agent/transport"
)

// Decoder is the Chat Completions [transport.Decoder]. The zero value is
// ready to use.
type Decoder struct{}

// NewStream returns the decoder of one stream.
func (Decoder) NewStream() transport.StreamDecoder { return &stream{} }

// stream is one stream's state: what the chunks delivered so far.
type stream struct {
	id        string // the completion's id, from the first chunk
	prefix    string // the ids of this stream's items
	started   bool
	text      strings.Builder
	refusal   strings.Builder
	reasoning strings.Builder
	calls     []*call
	finish    string // the finish_reason, "" until one came
	usage     *transport.Usage
	flushed   bool // the items were emitted
}

// call is one tool call assembled from its fragments.
type call struct {
	index int
	id    string
	name  string
	args  strings.Builder
}

// wireChunk is the fields of a chat.completion.chunk agent reads.
type wireChunk struct {
	ID      string `json:"id"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"` // OpenRouter, newer vLLM
			Refusal          *string `json:"refusal"`
			ToolCalls        []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage           `json:"usage"`
	Error *transport.ErrorBody `json:"error"`
}

type wireUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u *wireUsage) usage() *transport.Usage {
	out := &transport.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if d := u.PromptTokensDetails; d != nil {
		out.CachedInputTokens = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningOutputTokens = d.ReasoningTokens
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out
}

// End names the marker that ends a stream successfully, for the notice of
// a stream cut before it.
func (*stream) End() string { return "[DONE]" }

// Ignored never drops a frame: Chat Completions streams name none.
func (*stream) Ignored(string, []byte) bool { return false }

// IgnoredPieces never drops a frame: the wire has no WebSocket form.
func (*stream) IgnoredPieces([][]byte) bool { return false }

// Decode decodes one chunk, or the [DONE] marker that ends the stream.
func (s *stream) Decode(_, data string, emit func(transport.Event) bool) error {
	if strings.TrimSpace(data) == "[DONE]" {
		return s.complete(emit)
	}
	var c wireChunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		return &transport.DecodeError{Type: "chat.completion.chunk", Err: err}
	}
	if c.Error != nil {
		return apiError(c.Error)
	}
	if !s.started {
		s.started = true
		s.id = c.ID
		s.prefix = newID()
		if !emit(transport.Created{ResponseID: c.ID}) {
			return nil
		}
	}
	if c.Usage != nil {
		s.usage = c.Usage.usage()
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 { // n > 1 is never asked for
			continue
		}
		d := ch.Delta
		for _, r := range []*string{d.ReasoningContent, d.Reasoning} {
			if r != nil && *r != "" {
				s.reasoning.WriteString(*r)
				if !emit(transport.ReasoningSummaryDelta{ItemID: s.prefix + "_rs", Delta: *r}) {
					return nil
				}
			}
		}
		if d.Content != nil && *d.Content != "" {
			s.text.WriteString(*d.Content)
			if !emit(transport.TextDelta{ItemID: s.prefix + "_msg", Delta: *d.Content}) {
				return nil
			}
		}
		if d.Refusal != nil && *d.Refusal != "" {
			s.refusal.WriteString(*d.Refusal)
		}
		for _, tc := range d.ToolCalls {
			s.fragment(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finish = *ch.FinishReason
			if err := s.finished(emit); err != nil {
				return err
			}
		}
	}
	if s.finish != "" && c.Usage != nil {
		// The usage chunk after finish_reason (stream_options.include_usage)
		// is the last one: [DONE] adds nothing.
		return s.complete(emit)
	}
	return nil
}

// fragment adds one tool-call fragment to the call at its index. A
// fragment with another id at an index whose call is already named is a
// new call (a server that numbers every call 0).
func (s *stream) fragment(index *int, id, name, args string) {
	i := len(s.calls)
	if index != nil {
		i = *index
	}
	var c *call
	for j := len(s.calls) - 1; j >= 0; j-- {
		if s.calls[j].index == i {
			c = s.calls[j]
			break
		}
	}
	if c == nil || (id != "" && c.id != "" && id != c.id && c.name != "") {
		c = &call{index: i}
		s.calls = append(s.calls, c)
	}
	if c.id == "" {
		c.id = id
	}
	if c.name == "" {
		c.name = name
	}
	c.args.WriteString(args)
}

// finished handles the finish_reason: the items are emitted, and a
// response cut or filtered ends the stream with the error the Responses
// API's response.incomplete would give.
func (s *stream) finished(emit func(transport.Event) bool) error {
	switch s.finish {
	case "content_filter":
		return &transport.IncompleteError{ResponseID: s.id, Reason: "content_filter"}
	case "length":
		s.flush(emit)
		return &transport.IncompleteError{ResponseID: s.id, Reason: "max_output_tokens"}
	}
	s.flush(emit)
	return nil
}

// complete ends the stream successfully.
func (s *stream) complete(emit func(transport.Event) bool) error {
	if !s.flush(emit) {
		return nil
	}
	emit(transport.Completed{ResponseID: s.id, Usage: s.usage})
	return nil
}

// flush emits the items the stream delivered, once: the reasoning, the
// assistant's message, then the tool calls in the order they began. It
// reports whether emit wants more.
func (s *stream) flush(emit func(transport.Event) bool) bool {
	if s.flushed {
		return true
	}
	s.flushed = true
	if s.prefix == "" {
		s.prefix = newID()
	}
	if s.reasoning.Len() > 0 {
		raw, _ := json.Marshal(map[string]any{"type": "reasoning",
			"summary": []map[string]string{{"type": "summary_text", "text": s.reasoning.String()}}})
		if !emit(transport.OutputItemDone{Item: transport.Item{Type: "reasoning", ID: s.prefix + "_rs", Raw: raw}}) {
			return false
		}
	}
	if s.text.Len() > 0 || s.refusal.Len() > 0 {
		var parts []map[string]string
		if s.text.Len() > 0 {
			parts = append(parts, map[string]string{"type": "output_text", "text": s.text.String()})
		}
		if s.refusal.Len() > 0 {
			parts = append(parts, map[string]string{"type": "refusal", "refusal": s.refusal.String()})
		}
		raw, _ := json.Marshal(map[string]any{"type": "message", "role": "assistant", "content": parts})
		it := transport.Item{Type: "message", ID: s.prefix + "_msg", Role: "assistant", Raw: raw}
		if !emit(transport.OutputItemDone{Item: it}) {
			return false
		}
	}
	for _, c := range s.calls {
		id := c.id
		if id == "" {
			id = "call_" + newID()
		}
		args := c.args.String()
		raw, _ := json.Marshal(map[string]string{"type": "function_call", "call_id": id, "name": c.name, "arguments": args})
		it := transport.Item{Type: "function_call", CallID: id, Name: c.name, Arguments: args, Raw: raw}
		if !emit(transport.OutputItemDone{Item: it}) {
			return false
		}
	}
	return true
}

// newID is a random id for the items of one stream: a server's
// completion id may repeat (Ollama's is "chatcmpl-" and a small number).
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// apiError is the error a chunk carried, as the classifier reads it. A
// numeric code of an HTTP status is the status.
func apiError(e *transport.ErrorBody) error {
	ae := &transport.APIError{Event: "error", Code: e.Code, Type: e.Type, Message: e.Message}
	if n, err := strconv.Atoi(e.Code); err == nil && n >= 400 && n <= 599 {
		ae.Status = n
	}
	return ae
}
