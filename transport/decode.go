package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentcli/agent/internal/jsonstring"
	"github.com/agentcli/agent/internal/readonly"
)

// The wire forms below are decoded per event type: each event reads only
// the fields its type has, and every field is lenient ([text], [number],
// [flag]): a value of another type than expected decodes as absent rather
// than breaking a known event (a top-level string "status" on
// response.completed, an object "delta" on an event that has none).

// wireHead is what every event carries: its type. The item and response
// of the events that carry one are read in the same pass, as slices of
// the payload (a 10 MiB item is scanned once here, not twice).
type wireHead struct {
	Type text `json:"type"`
	// Error is read only when the payload has no type: a gateway's bare
	// {"error": {...}} (LiteLLM) is an error event.
	Error    json.RawMessage `json:"error"`
	Item     rawRef          `json:"item"`
	Response rawRef          `json:"response"`
}

// wireDelta is the fields of the delta and part events.
type wireDelta struct {
	ItemID       text       `json:"item_id"`
	CallID       text       `json:"call_id"`
	Delta        textOrKind `json:"delta"`
	SummaryIndex number     `json:"summary_index"`
	ContentIndex number     `json:"content_index"`
}

// wireErrorEvent is an error event: the spec's form carries code, message
// and param at the top level; the WebSocket form (and gateways) nest them
// in "error", with the HTTP status beside it.
type wireErrorEvent struct {
	Code    code     `json:"code"`
	Message text     `json:"message"`
	Param   text     `json:"param"`
	Type    text     `json:"type"`
	Status  number   `json:"status"`
	Error   errorObj `json:"error"`
}

// errorObj is an error object ({type, code, message, param}); a bare
// string is its message, anything else is empty.
type errorObj struct {
	Type    text `json:"type"`
	Code    code `json:"code"`
	Message text `json:"message"`
	Param   text `json:"param"`
}

func (e *errorObj) UnmarshalJSON(b []byte) error {
	type plain errorObj
	switch first(b) {
	case '{':
		var p plain
		if json.Unmarshal(b, &p) == nil {
			*e = errorObj(p)
		}
	case '"':
		var s text
		_ = s.UnmarshalJSON(b)
		*e = errorObj{Message: s}
	}
	return nil
}

// text is a string field read leniently: a JSON string, else "".
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	if len(b) >= 2 && b[0] == '"' { // encoding/json hands over the value alone
		*t = text(jsonstring.Unquote(b[1 : len(b)-1]))
	}
	return nil
}

// code is an error code: a string, or a number as some servers send it
// (vLLM's "code": 400); anything else is "".
type code string

func (c *code) UnmarshalJSON(b []byte) error {
	switch f := first(b); {
	case f == '"':
		var s text
		_ = s.UnmarshalJSON(b)
		*c = code(s)
	case f == '-' || f >= '0' && f <= '9':
		var n json.Number
		if json.Unmarshal(b, &n) == nil {
			*c = code(n)
		}
	}
	return nil
}

// number is an integer field read leniently: anything else is 0.
type number int

func (n *number) UnmarshalJSON(b []byte) error {
	var i int
	if json.Unmarshal(b, &i) == nil {
		*n = number(i)
	}
	return nil
}

// flag is an optional boolean: set only by true or false.
type flag struct{ set, v bool }

func (f *flag) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		*f = flag{true, true}
	case "false":
		*f = flag{true, false}
	}
	return nil
}

func (f flag) ptr() *bool {
	if !f.set {
		return nil
	}
	v := f.v
	return &v
}

// rawList is a JSON array's elements, kept raw as slices of the input
// (see [rawRef]); anything else is empty.
type rawList []rawRef

func (l *rawList) UnmarshalJSON(b []byte) error {
	if first(b) == '[' {
		var v []rawRef
		if json.Unmarshal(b, &v) == nil {
			*l = v
		}
	}
	return nil
}

// incompleteDetails is a response's incomplete_details.
type incompleteDetails struct {
	Reason text `json:"reason"`
}

func (d *incompleteDetails) UnmarshalJSON(b []byte) error {
	type plain incompleteDetails
	var p plain
	if first(b) == '{' && json.Unmarshal(b, &p) == nil {
		*d = incompleteDetails(p)
	}
	return nil
}

// rawRef is a JSON value kept as the slice of the input it was decoded
// from (encoding/json hands an Unmarshaler a slice of its input), not
// copied: only for input the decoder owns and never changes.
type rawRef []byte

func (r *rawRef) UnmarshalJSON(b []byte) error {
	*r = b[:len(b):len(b)] // an append to it copies, never writes the input
	return nil
}

// first is the first byte of a JSON value, 0 for none.
func first(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// wireUsage is the usage object of response.completed.
type wireUsage struct {
	InputTokens        tokenCount `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens     tokenCount `json:"cached_tokens"`
		CacheWriteTokens tokenCount `json:"cache_write_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        tokenCount `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens tokenCount `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens tokenCount `json:"total_tokens"`
}

// tokenCount is a token count as gateways send it: an integer, a float
// with an integral value (10.0, 1e3), a numeric string, or null. Anything
// else decodes as 0.
type tokenCount int64

func (t *tokenCount) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f < 1<<62 {
		*t = tokenCount(f)
	}
	return nil
}

// decodeUsage decodes a usage object leniently: nil when absent or
// undecodable, never an error.
func decodeUsage(raw json.RawMessage) *Usage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var u wireUsage
	if json.Unmarshal(raw, &u) != nil {
		return nil
	}
	return &Usage{
		InputTokens:           int64(u.InputTokens),
		CachedInputTokens:     int64(u.InputTokensDetails.CachedTokens),
		CacheWriteInputTokens: int64(u.InputTokensDetails.CacheWriteTokens),
		OutputTokens:          int64(u.OutputTokens),
		ReasoningOutputTokens: int64(u.OutputTokensDetails.ReasoningTokens),
		TotalTokens:           int64(u.TotalTokens),
	}
}

type wireResponse struct {
	ID                text              `json:"id"`
	Status            text              `json:"status"`
	Error             errorObj          `json:"error"`
	IncompleteDetails incompleteDetails `json:"incomplete_details"`
	// Usage is decoded on its own (see [decodeUsage]): a usage object a
	// gateway spells oddly must not cost the answer.
	Usage   json.RawMessage `json:"usage"`
	EndTurn flag            `json:"end_turn"`
	Output  rawList         `json:"output"`
}

// Decode turns one event payload into an [Event]. The event type is taken
// from the payload's "type" field; typ (the SSE event name, may be empty) is
// used only when the payload has none. A response.failed or error event (or
// a payload with no type and an "error" member, as gateways send one
// mid-stream) is returned as an [*APIError]; response.incomplete, and a
// response.completed whose status is "incomplete" (vLLM), as an
// [*IncompleteError]; both end the stream. Unknown types yield [Unknown].
// Each type reads only its own fields, leniently: a field of another type
// than expected is absent, never an error. Malformed JSON, or a
// response.completed whose response is not an object, yields a
// [*DecodeError], which callers may skip for non-terminal events.
func Decode(typ string, data []byte) (Event, error) {
	if ev, ok := decodeDelta(string(data)); ok {
		return ev, nil
	}
	return decodeGeneral(typ, data, false, nil)
}

// decodeGeneral is Decode by way of encoding/json. owned says data is the
// decoder's own, never written (a copy, or a string's bytes), which an
// item's Raw may then be a slice of.
//
// delivered are the ids of items the stream delivered, which a
// completed response's output leaves out.
func decodeGeneral(typ string, data []byte, owned bool, delivered map[string]bool) (Event, error) {
	var h wireHead
	if err := json.Unmarshal(data, &h); err != nil {
		if m, ok := unreadableItem(typ, data, err); ok {
			return m, nil
		}
		return nil, &DecodeError{Type: typ, Err: err}
	}
	t := string(h.Type)
	if t == "" {
		t = typ
	}
	if t == "" && len(h.Error) > 0 && string(h.Error) != "null" {
		t = "error"
	}
	if !modelled[t] { // the one list of modelled types, which Ignored reads too
		return unknown(t, data, owned), nil
	}
	switch t {
	case "response.created":
		var r struct {
			Response struct {
				ID text `json:"id"`
			} `json:"response"`
		}
		_ = json.Unmarshal(data, &r) // the id is informational
		return Created{ResponseID: string(r.Response.ID)}, nil
	case "response.output_item.added", "response.output_item.done":
		return decodeItemEvent(t, data, h.Item, owned)
	case "response.output_text.delta", "response.refusal.delta", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_part.added", "response.reasoning_text.delta", "response.custom_tool_call_input.delta":
		var w wireDelta
		_ = json.Unmarshal(data, &w) // lenient fields: it cannot fail once the head decoded
		if w.Delta.other != "" {
			p := fmt.Sprintf(`"delta" is %s, not a string`, w.Delta.other)
			return Malformed{Type: t, ItemID: string(w.ItemID), Problem: p, Raw: append(json.RawMessage(nil), data...)}, nil
		}
		return deltaEvent(t, w), nil
	case "response.completed", "response.failed", "response.incomplete":
		return decodeResponseEvent(t, h.Response, owned, delivered)
	case "error":
		var w wireErrorEvent
		_ = json.Unmarshal(data, &w)
		return nil, errorEvent(w)
	}
	return unknown(t, data, owned), nil
}

// unknown is the event of a type this package does not model.
func unknown(t string, data []byte, owned bool) Unknown {
	raw := json.RawMessage(data)
	if !owned {
		raw = bytes.Clone(raw)
	}
	return Unknown{Type: t, Raw: raw}
}

// deltaEvent is the event of a delta or part type. A refusal's deltas are
// its message's text, shown as it streams like an answer's.
func deltaEvent(t string, w wireDelta) Event {
	id, delta := string(w.ItemID), string(w.Delta.s)
	switch t {
	case "response.reasoning_summary_text.delta":
		return ReasoningSummaryDelta{ItemID: id, Delta: delta, SummaryIndex: int(w.SummaryIndex)}
	case "response.reasoning_summary_part.added":
		return ReasoningSummaryPartAdded{ItemID: id, SummaryIndex: int(w.SummaryIndex)}
	case "response.reasoning_text.delta":
		return ReasoningContentDelta{ItemID: id, Delta: delta, ContentIndex: int(w.ContentIndex)}
	case "response.custom_tool_call_input.delta":
		return ToolCallInputDelta{ItemID: id, CallID: string(w.CallID), Delta: delta}
	}
	return TextDelta{ItemID: id, Delta: delta}
}

// decodeItemEvent decodes response.output_item.added or .done from its
// item, a slice of the payload data. When data is owned, the item's Raw
// is that slice (a 10 MiB message is not copied once more); else a copy.
// A done item agent cannot read, wholly or in part, is a [Malformed] (the
// whole event) or carries one; an added one is only a start, and an
// unreadable start is skipped ([DecodeError]).
func decodeItemEvent(t string, data []byte, item rawRef, owned bool) (Event, error) {
	raw := json.RawMessage(item)
	if !owned {
		raw = bytes.Clone(raw)
	}
	it, problem, ok := checkItem(raw)
	return itemEvent(t, data, raw, it, problem, ok)
}

// itemEvent is decodeItemEvent's event, the item checked.
func itemEvent(t string, data []byte, raw json.RawMessage, it Item, problem string, ok bool) (Event, error) {
	item := raw
	if t == "response.output_item.added" {
		if !ok {
			return nil, &DecodeError{Type: t, Err: fmt.Errorf("bad item: %s", truncate(item))}
		}
		return OutputItemAdded{Item: it}, nil
	}
	if problem == "" {
		return OutputItemDone{Item: it}, nil
	}
	m := Malformed{Type: t, ItemID: itemID(raw), Problem: problem, Kept: ok, Raw: append(json.RawMessage(nil), data...)}
	if !ok {
		return m, nil
	}
	return OutputItemDone{Item: it, Problem: &m}, nil
}

// decodeResponseEvent decodes the events that end a response from its
// response object, a slice of the payload; its output items' Raw are
// slices of it when the payload is owned.
//
// An output item whose id is in delivered (read from its first members
// without decoding it) is left out.
func decodeResponseEvent(t string, response rawRef, owned bool, delivered map[string]bool) (Event, error) {
	var r wireResponse
	if err := json.Unmarshal(response, &r); err != nil && t == "response.completed" {
		if len(response) == 0 {
			err = errors.New("no response object")
		}
		return nil, &DecodeError{Type: t, Err: err}
	}
	switch {
	case t == "response.failed":
		e := r.Error
		return nil, &APIError{Event: t, ResponseID: string(r.ID), Code: string(e.Code), Type: string(e.Type), Message: string(e.Message)}
	case t == "response.incomplete" || r.Status == "incomplete":
		return nil, &IncompleteError{ResponseID: string(r.ID), Reason: string(r.IncompleteDetails.Reason)}
	}
	c := Completed{ResponseID: string(r.ID), EndTurn: r.EndTurn.ptr(), Usage: decodeUsage(r.Usage)}
	for _, ref := range r.Output {
		if id, ok := leadingID(ref); ok && delivered[id] {
			continue
		}
		raw := json.RawMessage(ref)
		if !owned {
			raw = bytes.Clone(raw)
		}
		it, problem, ok := checkItem(raw)
		if ok {
			c.Output = append(c.Output, it)
		}
		if problem != "" {
			c.Malformed = append(c.Malformed, Malformed{Type: t, ItemID: itemID(raw), Problem: problem, Kept: ok, Raw: raw})
		}
	}
	return c, nil
}

// errorEvent is the [*APIError] of an error event, whichever form it
// took: the nested error's fields win over the top-level ones.
func errorEvent(w wireErrorEvent) *APIError {
	e := &APIError{Event: "error", Status: int(w.Status), Code: string(w.Code), Type: string(w.Type), Message: string(w.Message), Param: string(w.Param)}
	if e.Type == "error" {
		e.Type = "" // the event's own type, as a typeless payload's SSE name
	}
	n := w.Error
	if n.Code != "" {
		e.Code = string(n.Code)
	}
	if n.Type != "" {
		e.Type = string(n.Type)
	}
	if n.Message != "" {
		e.Message = string(n.Message)
	}
	if n.Param != "" {
		e.Param = string(n.Param)
	}
	return e
}

func truncate(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

// DecodeFrame decodes one frame of a stream (an SSE event's data, a
// WebSocket text message) the way both transports must: empty and
// "[DONE]" payloads and malformed non-terminal events are skipped
// (skip=true), as the reference client does; a malformed
// response.completed, response.failed and the like are errors.
//
// data is a string (an SSE event's data is one already): the text of a
// delta is a substring of it, and an item's Raw a slice of its bytes, not
// copies: a 10 MiB event is decoded without another copy of it.
func DecodeFrame(typ string, data string) (ev Event, skip bool, err error) {
	return (&FrameDecoder{}).decode(typ, data)
}

// A FrameDecoder decodes the frames of one Responses stream (the
// [StreamDecoder] of [ResponsesDecoder]) as [DecodeFrame] does,
// remembering the ids of the items the stream delivered
// (response.output_item.done), which the completed response's output
// then leaves out undecoded: OpenAI sends every item again there, whole.
// The zero value is ready to use.
type FrameDecoder struct {
	delivered map[string]bool
}

// Ignored is [Ignored] for a named frame, from its data's beginning; an
// unnamed one's beginning says too little, and is never dropped.
func (d *FrameDecoder) Ignored(name string, prefix []byte) bool {
	return name != "" && Ignored(name, prefix)
}

// IgnoredPieces is [IgnoredPieces].
func (d *FrameDecoder) IgnoredPieces(pieces [][]byte) bool { return IgnoredPieces(pieces) }

// Decode decodes one frame (see [DecodeFrame]), emitting its event
// unless the frame is skipped.
func (d *FrameDecoder) Decode(name, data string, emit func(Event) bool) error {
	ev, skip, err := d.decode(name, data)
	if skip || err != nil {
		return err
	}
	emit(ev)
	return nil
}

// decode decodes one frame into at most one event (see [DecodeFrame]).
func (d *FrameDecoder) decode(typ string, data string) (ev Event, skip bool, err error) {
	if len(data) == 0 || data == "[DONE]" {
		return nil, true, nil
	}
	ev, ok := decodeDelta(data)
	if !ok && len(data) > largeEvent {
		ev, ok, err = decodeLarge(data, d.delivered)
	}
	if !ok {
		ev, err = decodeGeneral(typ, readonly.Bytes(data), true, d.delivered)
	}
	if done, ok := ev.(OutputItemDone); ok && done.Item.ID != "" {
		if d.delivered == nil {
			d.delivered = map[string]bool{}
		}
		d.delivered[done.Item.ID] = true
	}
	if err == nil { // the common case, without errors.As's allocation
		return ev, false, nil
	}
	var de *DecodeError
	if errors.As(err, &de) && !finalEvent(de.Type, data) {
		return nil, true, nil
	}
	return ev, false, err
}

// finalEvent reports whether an undecodable frame is a response.completed:
// its type says so, or, over WebSocket (no event name) when the JSON is too
// broken to read a type from, its text names it. A final event must not be
// skipped: the stream would wait for another that never comes.
func finalEvent(typ, data string) bool {
	if typ == "response.completed" {
		return true
	}
	return typ == "" && strings.Contains(data, `"response.completed"`)
}
