// Package anthropic is the Anthropic Messages API's reading half: the
// [transport.Decoder] of a streamed POST {base_url}/messages. It turns the
// events of one stream (message_start, content blocks by index, their
// deltas, message_delta, message_stop, error) into the events of the
// Responses API the session reads: text deltas and an assistant message
// item per text block, thinking as reasoning (the block kept whole, its
// signature included, so the encoder can send it back unmodified as the
// API requires), tool_use blocks assembled from their input_json_delta
// fragments into function_call items, the usage with cache reads and
// writes, and the stream's end.
package anthropic

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentcli/agent/transport"
)

// Decoder is the Messages API's [transport.Decoder]. The zero value is
// ready to use.
type Decoder struct{}

// NewStream returns the decoder of one stream.
func (Decoder) NewStream() transport.StreamDecoder { return &stream{blocks: map[int]*block{}} }

// End names the event that ends a stream successfully, for the notice of
// a stream cut before it.
func (*stream) End() string { return "message_stop" }

// Reasoning items made here carry the API's thinking block whole, as
// JSON, in encrypted_content: content only this wire reads back. A
// failover to another provider drops reasoning items, so no other API
// ever sees it.
const (
	// BlockThinking and BlockRedacted are the block types a reasoning
	// item's encrypted_content holds.
	BlockThinking = "thinking"
	BlockRedacted = "redacted_thinking"
)

// stream is one stream's state: the content blocks by index.
type stream struct {
	id      string // the message id, from message_start
	prefix  string // the ids of this stream's items
	started bool
	blocks  map[int]*block
	usage   wireUsage
	counted bool   // a usage arrived
	stop    string // message_delta's stop_reason
}

// block is one content block being assembled.
type block struct {
	typ   string
	index int
	text  strings.Builder // text, or thinking
	sig   string          // a thinking block's signature
	id    string          // tool_use
	name  string
	input strings.Builder // input_json_delta fragments
	start json.RawMessage // the block as content_block_start gave it
}

type wireEvent struct {
	Type    string `json:"type"`
	Message *struct {
		ID    string     `json:"id"`
		Usage *wireUsage `json:"usage"`
	} `json:"message"`
	Index        int                  `json:"index"`
	ContentBlock json.RawMessage      `json:"content_block"`
	Delta        *wireDelta           `json:"delta"`
	Usage        *wireUsage           `json:"usage"`
	Error        *transport.ErrorBody `json:"error"`
}

type wireDelta struct {
	Type        string  `json:"type"`
	Text        string  `json:"text"`
	Thinking    string  `json:"thinking"`
	Signature   string  `json:"signature"`
	PartialJSON string  `json:"partial_json"`
	StopReason  *string `json:"stop_reason"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// wireUsage is the usage of message_start and message_delta (cumulative:
// a later count replaces an earlier one). input_tokens leaves out the
// tokens read from and written to the cache.
type wireUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
}

// merge takes o's counts over u's.
func (u *wireUsage) merge(o *wireUsage) {
	for _, p := range [...]struct{ dst, src **int64 }{
		{&u.InputTokens, &o.InputTokens}, {&u.OutputTokens, &o.OutputTokens},
		{&u.CacheCreationInputTokens, &o.CacheCreationInputTokens}, {&u.CacheReadInputTokens, &o.CacheReadInputTokens},
	} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
}

// usage is the Responses API's form: input tokens include the cached
// ones (read and written), as OpenAI counts them.
func (u *wireUsage) usage() *transport.Usage {
	n := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	read, write := n(u.CacheReadInputTokens), n(u.CacheCreationInputTokens)
	out := &transport.Usage{
		InputTokens:           n(u.InputTokens) + read + write,
		CachedInputTokens:     read,
		CacheWriteInputTokens: write,
		OutputTokens:          n(u.OutputTokens),
	}
	out.TotalTokens = out.InputTokens + out.OutputTokens
	return out
}

// Ignored drops the keep-alive pings unread.
func (*stream) Ignored(name string, _ []byte) bool { return name == "ping" }

// IgnoredPieces never drops a frame: the wire has no WebSocket form.
func (*stream) IgnoredPieces([][]byte) bool { return false }

// Decode decodes one event. Events are told by their data's type (a
// gateway may leave out the event: lines).
func (s *stream) Decode(_, data string, emit func(transport.Event) bool) error {
	var ev wireEvent
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		return &transport.DecodeError{Type: "message stream event", Err: err}
	}
	if ev.Type == "error" || (ev.Error != nil && ev.Type == "") {
		return apiError(ev.Error)
	}
	if !s.started {
		s.started = true
		s.prefix = newID()
		if ev.Message != nil {
			s.id = ev.Message.ID
		}
		if !emit(transport.Created{ResponseID: s.id}) {
			return nil
		}
	}
	switch ev.Type {
	case "message_start":
		if ev.Message != nil && ev.Message.Usage != nil {
			s.usage.merge(ev.Message.Usage)
			s.counted = true
		}
	case "content_block_start":
		return s.begin(ev.Index, ev.ContentBlock, data, emit)
	case "content_block_delta":
		return s.delta(ev.Index, ev.Delta, data, emit)
	case "content_block_stop":
		if b := s.blocks[ev.Index]; b != nil {
			delete(s.blocks, ev.Index)
			return s.done(b, emit)
		}
	case "message_delta":
		if ev.Usage != nil {
			s.usage.merge(ev.Usage)
			s.counted = true
		}
		if ev.Delta != nil && ev.Delta.StopReason != nil {
			s.stop = *ev.Delta.StopReason
		}
	case "message_stop":
		return s.complete(emit)
	case "ping":
	default:
		emit(transport.Unknown{Type: ev.Type, Raw: json.RawMessage(data)})
	}
	return nil
}

// begin starts the block at index.
func (s *stream) begin(index int, raw json.RawMessage, data string, emit func(transport.Event) bool) error {
	var w wireBlock
	if err := json.Unmarshal(raw, &w); err != nil {
		return &transport.DecodeError{Type: "content_block_start", Err: err}
	}
	b := &block{typ: w.Type, index: index, id: w.ID, name: w.Name, sig: w.Signature, start: raw}
	switch w.Type {
	case "text":
		if w.Text != "" {
			b.text.WriteString(w.Text)
			if !emit(transport.TextDelta{ItemID: s.itemID(b), Delta: w.Text}) {
				return nil
			}
		}
	case BlockThinking:
		b.text.WriteString(w.Thinking)
	case BlockRedacted:
	case "tool_use":
		if len(w.Input) > 0 && string(w.Input) != "{}" {
			b.input.Write(w.Input) // a block that came whole, not in fragments
		}
	default:
		// server_tool_use, web_search_tool_result, ...: the API's own
		// tools, which agent never offers. Said, not dropped silently.
		emit(transport.Malformed{Type: "content_block_start", Problem: fmt.Sprintf("a content block of type %q, which agent does not read", w.Type), Raw: json.RawMessage(data)})
		return nil
	}
	s.blocks[index] = b
	return nil
}

// delta adds one delta to the block at index.
func (s *stream) delta(index int, d *wireDelta, data string, emit func(transport.Event) bool) error {
	b := s.blocks[index]
	if b == nil || d == nil {
		return nil // a block agent does not read, said at its start
	}
	switch d.Type {
	case "text_delta":
		b.text.WriteString(d.Text)
		emit(transport.TextDelta{ItemID: s.itemID(b), Delta: d.Text})
	case "thinking_delta":
		b.text.WriteString(d.Thinking)
		emit(transport.ReasoningSummaryDelta{ItemID: s.itemID(b), Delta: d.Thinking})
	case "signature_delta":
		b.sig += d.Signature
	case "input_json_delta":
		b.input.WriteString(d.PartialJSON)
	case "citations_delta":
		// Citations of documents agent never sends.
	default:
		emit(transport.Malformed{Type: "content_block_delta", ItemID: s.itemID(b), Kept: true,
			Problem: fmt.Sprintf("a delta of type %q, which agent does not read", d.Type), Raw: json.RawMessage(data)})
	}
	return nil
}

func (s *stream) itemID(b *block) string { return s.prefix + "_" + strconv.Itoa(b.index) }

// done emits the item of a finished block.
func (s *stream) done(b *block, emit func(transport.Event) bool) error {
	id := s.itemID(b)
	switch b.typ {
	case "text":
		if b.text.Len() == 0 {
			return nil
		}
		raw, _ := json.Marshal(map[string]any{"type": "message", "role": "assistant",
			"content": []map[string]string{{"type": "output_text", "text": b.text.String()}}})
		emit(transport.OutputItemDone{Item: transport.Item{Type: "message", ID: id, Role: "assistant", Raw: raw}})
	case BlockThinking, BlockRedacted:
		emit(transport.OutputItemDone{Item: reasoning(id, b)})
	case "tool_use":
		args := b.input.String()
		if strings.TrimSpace(args) == "" {
			args = "{}" // a tool called without arguments
		}
		callID := b.id
		if callID == "" {
			callID = "toolu_" + newID()
		}
		raw, _ := json.Marshal(map[string]string{"type": "function_call", "call_id": callID, "name": b.name, "arguments": args})
		emit(transport.OutputItemDone{Item: transport.Item{Type: "function_call", CallID: callID, Name: b.name, Arguments: args, Raw: raw}})
	}
	return nil
}

// reasoning is the reasoning item of a thinking or redacted_thinking
// block: its text as the summary the user sees, the block whole (text
// and signature, or the redacted data) in encrypted_content.
func reasoning(id string, b *block) transport.Item {
	var whole []byte
	if b.typ == BlockThinking {
		whole, _ = json.Marshal(map[string]string{"type": BlockThinking, "thinking": b.text.String(), "signature": b.sig})
	} else {
		whole = b.start
	}
	item := map[string]any{"type": "reasoning", "id": id, "summary": []map[string]string{}, "encrypted_content": string(whole)}
	if b.text.Len() > 0 {
		item["summary"] = []map[string]string{{"type": "summary_text", "text": b.text.String()}}
	}
	raw, _ := json.Marshal(item)
	return transport.Item{Type: "reasoning", ID: id, Raw: raw}
}

// complete ends the stream at message_stop: a response cut at max_tokens
// or refused ends as the Responses API's response.incomplete would.
func (s *stream) complete(emit func(transport.Event) bool) error {
	// Blocks a server left open are finished as they are.
	for _, i := range slices.Sorted(maps.Keys(s.blocks)) {
		if err := s.done(s.blocks[i], emit); err != nil {
			return err
		}
	}
	clear(s.blocks)
	switch s.stop {
	case "max_tokens":
		return &transport.IncompleteError{ResponseID: s.id, Reason: "max_output_tokens"}
	case "refusal":
		return &transport.IncompleteError{ResponseID: s.id, Reason: "content_filter"}
	case "model_context_window_exceeded":
		return &transport.APIError{Event: "message_delta", ResponseID: s.id, Code: "context_length_exceeded",
			Message: "the conversation reached the model's context window"}
	}
	var u *transport.Usage
	if s.counted {
		u = s.usage.usage()
	}
	emit(transport.Completed{ResponseID: s.id, Usage: u})
	return nil
}

// apiError is an error event, as the classifier reads it: the error's
// type is its code (overloaded_error, rate_limit_error, api_error, ...).
func apiError(e *transport.ErrorBody) error {
	if e == nil {
		return &transport.APIError{Event: "error", Code: "api_error", Message: "an error event without an error"}
	}
	return &transport.APIError{Event: "error", Code: e.Type, Type: e.Type, Message: e.Message}
}

// newID is a random id for the items of one stream.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
