package transport

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentcli/agent/internal/jsonstring"
)

// Event is one decoded server event. The set is sealed: consumers
// type-switch over the types in this package.
type Event interface{ isEvent() }

// Created is response.created.
type Created struct{ ResponseID string }

// OutputItemAdded is response.output_item.added: an item started.
type OutputItemAdded struct{ Item Item }

// OutputItemDone is response.output_item.done: the authoritative, complete
// item, the only thing recorded into history. Problem, when set, says what
// of the item agent could not read (a content part of a type it does not
// know); the item is used without it.
type OutputItemDone struct {
	Item    Item
	Problem *Malformed
}

// TextDelta is response.output_text.delta: display only.
type TextDelta struct {
	ItemID string
	Delta  string
}

// ReasoningSummaryDelta is response.reasoning_summary_text.delta.
type ReasoningSummaryDelta struct {
	ItemID       string
	Delta        string
	SummaryIndex int
}

// ReasoningSummaryPartAdded is response.reasoning_summary_part.added.
type ReasoningSummaryPartAdded struct {
	ItemID       string
	SummaryIndex int
}

// ReasoningContentDelta is response.reasoning_text.delta.
type ReasoningContentDelta struct {
	ItemID       string
	Delta        string
	ContentIndex int
}

// ToolCallInputDelta is response.custom_tool_call_input.delta.
type ToolCallInputDelta struct {
	ItemID string
	CallID string
	Delta  string
}

// Completed is response.completed: the only successful end of a stream.
type Completed struct {
	ResponseID string
	Usage      *Usage
	// EndTurn is the server's end_turn flag, nil when absent.
	EndTurn *bool
	// Output is the response's output items as response.completed lists
	// them. OpenAI lists again what the stream delivered; a gateway
	// (LiteLLM) may deliver an item only here. Decoded by a stream's
	// [FrameDecoder], it leaves out the items the stream delivered by id
	// (a 10 MiB call is not decoded, nor its arguments copied, twice).
	Output []Item
	// Malformed are the output items agent could not read, wholly (left
	// out of Output) or in part; their Raw is the item.
	Malformed []Malformed
}

// Unknown is any event type this client does not model. It is never an
// error: a new server event must not break the client.
type Unknown struct {
	Type string
	Raw  json.RawMessage
}

func (Created) isEvent()                   {}
func (OutputItemAdded) isEvent()           {}
func (OutputItemDone) isEvent()            {}
func (TextDelta) isEvent()                 {}
func (ReasoningSummaryDelta) isEvent()     {}
func (ReasoningSummaryPartAdded) isEvent() {}
func (ReasoningContentDelta) isEvent()     {}
func (ToolCallInputDelta) isEvent()        {}
func (Completed) isEvent()                 {}
func (Unknown) isEvent()                   {}
func (Malformed) isEvent()                 {}

// Usage is the token usage reported with response.completed.
type Usage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
	TotalTokens           int64 `json:"total_tokens"`
}

// Add accumulates o into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.CachedInputTokens += o.CachedInputTokens
	u.CacheWriteInputTokens += o.CacheWriteInputTokens
	u.OutputTokens += o.OutputTokens
	u.ReasoningOutputTokens += o.ReasoningOutputTokens
	u.TotalTokens += o.TotalTokens
}

// Item is one Responses input/output item (message, reasoning,
// function_call, function_call_output, ...). Raw is the item exactly as the
// server sent it (or as built locally) and is what gets replayed, so fields
// this client does not model (encrypted reasoning) survive verbatim.
type Item struct {
	Type      string
	ID        string
	Role      string
	CallID    string
	Name      string
	Arguments string
	// Input is a custom (freeform) tool call's input.
	Input string
	Raw   json.RawMessage
	// Origin says what the item is to the session beyond its wire form
	// (session context, a compaction summary); it is never sent, only
	// recorded beside the item.
	Origin Origin
}

// Origin is what a history item is to the session, beyond its wire form.
type Origin string

// The origins of items the session makes itself; "" is the conversation
// (the user's messages, the model's output, tool outputs).
const (
	// OriginContext marks session context recorded before the first user
	// message (the environment, AGENTS.md instructions): compaction keeps
	// it, and it is not one of the user's messages.
	OriginContext Origin = "context"
	// OriginSummary marks a local compaction's handoff summary.
	OriginSummary Origin = "summary"
	// OriginSteer marks the user's message added to a running turn
	// (turn/steer): the user's words, not the start of a turn.
	OriginSteer Origin = "steer"
)

// wireItem is the fields of an item that [Item] holds. The content parts
// are checked as [Item.Text] reads them, without keeping their text (a long
// answer is not copied for nothing).
type wireItem struct {
	Type      string            `json:"type"`
	ID        string            `json:"id"`
	Role      string            `json:"role"`
	CallID    string            `json:"call_id"`
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Arguments jsonstring.String `json:"arguments"` // 10 MiB of arguments: one copy
	Input     jsonstring.String `json:"input"`
	Content   []struct {
		Type    string       `json:"type"`
		Text    stringShaped `json:"text"`
		Refusal stringShaped `json:"refusal"`
	} `json:"content"`
}

// stringShaped accepts what a string field accepts (a JSON string or null)
// without decoding it; set says a string was there.
type stringShaped struct{ set bool }

func (s *stringShaped) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		s.set = true
		return nil
	}
	if string(b) == "null" {
		return nil
	}
	return fmt.Errorf("content text is not a string: %.40s", b)
}

// wireContent is a message item's content parts, as [Item.Text] reads them.
type wireContent struct {
	Content []struct {
		Type    string            `json:"type"`
		Text    jsonstring.String `json:"text"` // a 10 MiB answer: one copy
		Refusal jsonstring.String `json:"refusal"`
	} `json:"content"`
}

// qualifiedName is the flat tool name of a call the model made inside a
// tool namespace, as the reference client offers MCP tools (namespace
// "mcp__docs", name "search": "mcp__docs__search").
func qualifiedName(namespace, name string) string {
	switch {
	case namespace == "":
		return name
	case strings.HasSuffix(namespace, "__"):
		return namespace + name
	}
	return namespace + "__" + name
}

// ParseItem decodes an item from its JSON form; the item's Raw is a copy
// of raw.
func ParseItem(raw json.RawMessage) (Item, error) {
	return parseItem(append(json.RawMessage(nil), raw...))
}

// ParseItemOwned is [ParseItem] for a caller that hands raw over: the
// item's Raw is raw itself, not a copy, and raw must not change after.
func ParseItemOwned(raw json.RawMessage) (Item, error) {
	return parseItem(raw)
}

// parseItem is ParseItem keeping raw itself as the item's Raw.
func parseItem(raw json.RawMessage) (Item, error) {
	it, _, err := decodeItem(raw)
	return it, err
}

// decodeItem is parseItem also saying which content part of a message
// agent cannot read (of an unknown type, without text), read in the same
// pass: "" when none.
func decodeItem(raw json.RawMessage) (_ Item, unread string, _ error) {
	if it, unread, ok := decodeItemFast(raw); ok {
		return it, unread, nil
	}
	return decodeItemJSON(raw)
}

// decodeItemJSON is decodeItem by encoding/json, the strings copies.
func decodeItemJSON(raw json.RawMessage) (_ Item, unread string, _ error) {
	var w wireItem
	if err := json.Unmarshal(raw, &w); err != nil {
		return Item{}, "", err
	}
	if w.Type == "message" {
		for i, c := range w.Content {
			if !knownPart(c.Type) && !c.Text.set && !c.Refusal.set {
				unread = unreadPart(i+1, c.Type)
				break
			}
		}
	}
	return Item{
		Type: w.Type, ID: w.ID, Role: w.Role, CallID: w.CallID,
		Name: qualifiedName(w.Namespace, w.Name), Arguments: string(w.Arguments), Input: string(w.Input),
		Raw: raw,
	}, unread, nil
}

// unreadPart says that content part n (1-based), of type typ, is one
// agent cannot read.
func unreadPart(n int, typ string) string {
	return fmt.Sprintf("content part %d is of type %q, which agent does not read", n, typ)
}

// Text returns the concatenated text parts of a message item. A refusal
// part (the model declined) is text too: it is the answer.
func (it Item) Text() string {
	var w wireContent
	if json.Unmarshal(it.Raw, &w) != nil {
		return ""
	}
	if len(w.Content) == 1 {
		return string(w.Content[0].Text + w.Content[0].Refusal)
	}
	var b strings.Builder
	for _, c := range w.Content {
		b.WriteString(string(c.Text))
		b.WriteString(string(c.Refusal))
	}
	return b.String()
}

// Answer is [Item.Text] and [Item.Refused] of a message item in one
// decode (a long answer is parsed once, not twice).
func (it Item) Answer() (text string, refused bool) {
	var w wireContent
	if json.Unmarshal(it.Raw, &w) != nil {
		return "", false
	}
	var b strings.Builder
	for _, c := range w.Content {
		if c.Type == "refusal" {
			refused = it.Type == "message"
		}
		if len(w.Content) == 1 {
			return string(c.Text + c.Refusal), refused
		}
		b.WriteString(string(c.Text))
		b.WriteString(string(c.Refusal))
	}
	return b.String(), refused
}

// Refused reports whether a message item holds a refusal part: the model
// declined to answer, and its text says why.
func (it Item) Refused() bool {
	var w struct {
		Content []struct {
			Type string `json:"type"`
		} `json:"content"`
	}
	if it.Type != "message" || json.Unmarshal(it.Raw, &w) != nil {
		return false
	}
	for _, c := range w.Content {
		if c.Type == "refusal" {
			return true
		}
	}
	return false
}

// MarshalJSON encodes the item as its raw JSON.
func (it Item) MarshalJSON() ([]byte, error) {
	if len(it.Raw) == 0 {
		return []byte("null"), nil
	}
	return it.Raw, nil
}

// CallOutput builds the output item answering a function_call (or, when
// custom is set, a custom_tool_call).
func CallOutput(callID, output string, custom bool) Item {
	typ := "function_call_output"
	if custom {
		typ = "custom_tool_call_output"
	}
	raw, _ := json.Marshal(struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output string `json:"output"`
	}{typ, callID, output})
	return Item{Type: typ, CallID: callID, Raw: raw}
}

// CallOutputWithImages is [CallOutput] whose output also carries images
// (data: or https: URLs), as the reference client sends an MCP tool's image
// content: an output array of an input_text part (when output is not
// empty) and one input_image part per image. Without images it is
// CallOutput.
func CallOutputWithImages(callID, output string, images []string, custom bool) Item {
	if len(images) == 0 {
		return CallOutput(callID, output, custom)
	}
	typ := "function_call_output"
	if custom {
		typ = "custom_tool_call_output"
	}
	parts := []map[string]string{}
	if output != "" {
		parts = append(parts, map[string]string{"type": "input_text", "text": output})
	}
	for _, u := range images {
		parts = append(parts, map[string]string{"type": "input_image", "image_url": u, "detail": "original"})
	}
	raw, _ := json.Marshal(struct {
		Type   string              `json:"type"`
		CallID string              `json:"call_id"`
		Output []map[string]string `json:"output"`
	}{typ, callID, parts})
	return Item{Type: typ, CallID: callID, Raw: raw}
}

// IsCall reports whether the item is a tool call that needs an output.
func (it Item) IsCall() bool { return it.Type == "function_call" || it.Type == "custom_tool_call" }

// IsCallOutput reports whether the item answers a tool call.
func (it Item) IsCallOutput() bool {
	return it.Type == "function_call_output" || it.Type == "custom_tool_call_output"
}

// OutputText is a tool output item's text: the output string, or the text
// parts of an output given as content.
func (it Item) OutputText() string {
	var o struct {
		Output json.RawMessage `json:"output"`
	}
	if json.Unmarshal(it.Raw, &o) != nil || len(o.Output) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(o.Output, &s) == nil {
		return s
	}
	var parts []struct {
		Type, Text string
	}
	if json.Unmarshal(o.Output, &parts) != nil {
		return string(o.Output)
	}
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		} else if p.Type != "" {
			texts = append(texts, "["+p.Type+"]")
		}
	}
	return strings.Join(texts, "\n")
}

// UserMessage builds a user message item with one input_text part.
func UserMessage(text string) Item {
	return message("user", "input_text", text)
}

// UserMessageWithImages builds a user message with the text and then one
// input_image part per image URL (https: or data: URLs), each with the
// detail the spec requires: "auto", its default.
func UserMessageWithImages(text string, imageURLs []string) Item {
	if len(imageURLs) == 0 {
		return UserMessage(text)
	}
	parts := []map[string]string{{"type": "input_text", "text": text}}
	for _, u := range imageURLs {
		parts = append(parts, map[string]string{"type": "input_image", "image_url": u, "detail": "auto"})
	}
	raw, _ := json.Marshal(map[string]any{"type": "message", "role": "user", "content": parts})
	return Item{Type: "message", Role: "user", Raw: raw}
}

// DeveloperMessage builds a developer message item with one input_text part.
func DeveloperMessage(text string) Item {
	return message("developer", "input_text", text)
}

func message(role, partType, text string) Item {
	type part struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	raw, _ := json.Marshal(struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []part `json:"content"`
	}{"message", role, []part{{partType, text}}})
	return Item{Type: "message", Role: role, Raw: raw}
}
