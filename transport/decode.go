package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// wireEvent is the union of the fields any Responses stream event carries.
type wireEvent struct {
	Type         string          `json:"type"`
	Response     json.RawMessage `json:"response"`
	Item         json.RawMessage `json:"item"`
	ItemID       string          `json:"item_id"`
	CallID       string          `json:"call_id"`
	Delta        string          `json:"delta"`
	SummaryIndex int             `json:"summary_index"`
	ContentIndex int             `json:"content_index"`
	// Top-level error events (and WebSocket-wrapped errors).
	Error  *wireError `json:"error"`
	Status int        `json:"status"`
}

type wireError struct {
	Type    string `json:"type"`
	Code    string `json:"code"`
	Message string `json:"message"`
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
	ID                string     `json:"id"`
	Error             *wireError `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	// Usage is decoded on its own (see [decodeUsage]): a usage object a
	// gateway spells oddly must not cost the answer.
	Usage   json.RawMessage `json:"usage"`
	EndTurn *bool           `json:"end_turn"`
}

// Decode turns one event payload into an [Event]. The event type is taken
// from the payload's "type" field; typ (the SSE event name, may be empty) is
// used only when the payload has none. A response.failed or error event is
// returned as an [*APIError], response.incomplete as an [*IncompleteError];
// both end the stream. Unknown types yield [Unknown]. Malformed JSON yields
// a [*DecodeError], which callers may skip for non-terminal events.
func Decode(typ string, data []byte) (Event, error) {
	if ev, ok := decodeDelta(string(data)); ok {
		return ev, nil
	}
	return decodeGeneral(typ, data)
}

// decodeGeneral is Decode by way of encoding/json.
func decodeGeneral(typ string, data []byte) (Event, error) {
	var w wireEvent
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, &DecodeError{Type: typ, Err: err}
	}
	if w.Type == "" {
		w.Type = typ
	}
	switch w.Type {
	case "response.created":
		var r wireResponse
		_ = json.Unmarshal(w.Response, &r) // the id is informational
		return Created{ResponseID: r.ID}, nil
	case "response.output_item.added", "response.output_item.done":
		it, err := parseItem(w.Item) // w.Item is already a copy of data
		if err != nil || it.Type == "" {
			return nil, &DecodeError{Type: w.Type, Err: fmt.Errorf("bad item: %s", truncate(w.Item))}
		}
		if w.Type == "response.output_item.added" {
			return OutputItemAdded{Item: it}, nil
		}
		return OutputItemDone{Item: it}, nil
	case "response.output_text.delta":
		return TextDelta{ItemID: w.ItemID, Delta: w.Delta}, nil
	case "response.reasoning_summary_text.delta":
		return ReasoningSummaryDelta{ItemID: w.ItemID, Delta: w.Delta, SummaryIndex: w.SummaryIndex}, nil
	case "response.reasoning_summary_part.added":
		return ReasoningSummaryPartAdded{ItemID: w.ItemID, SummaryIndex: w.SummaryIndex}, nil
	case "response.reasoning_text.delta":
		return ReasoningContentDelta{ItemID: w.ItemID, Delta: w.Delta, ContentIndex: w.ContentIndex}, nil
	case "response.custom_tool_call_input.delta":
		return ToolCallInputDelta{ItemID: w.ItemID, CallID: w.CallID, Delta: w.Delta}, nil
	case "response.completed":
		var r wireResponse
		if err := json.Unmarshal(w.Response, &r); err != nil {
			return nil, &DecodeError{Type: w.Type, Err: err}
		}
		c := Completed{ResponseID: r.ID, EndTurn: r.EndTurn, Usage: decodeUsage(r.Usage)}
		return c, nil
	case "response.failed":
		var r wireResponse
		_ = json.Unmarshal(w.Response, &r)
		e := &APIError{Event: w.Type, ResponseID: r.ID}
		if r.Error != nil {
			e.Code, e.Type, e.Message = r.Error.Code, r.Error.Type, r.Error.Message
		}
		return nil, e
	case "response.incomplete":
		var r wireResponse
		_ = json.Unmarshal(w.Response, &r)
		e := &IncompleteError{ResponseID: r.ID}
		if r.IncompleteDetails != nil {
			e.Reason = r.IncompleteDetails.Reason
		}
		return nil, e
	case "error":
		e := &APIError{Event: w.Type, Status: w.Status}
		if w.Error != nil {
			e.Code, e.Type, e.Message = w.Error.Code, w.Error.Type, w.Error.Message
		}
		return nil, e
	}
	return Unknown{Type: w.Type, Raw: append(json.RawMessage(nil), data...)}, nil
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
// delta is a substring of it, not a copy.
func DecodeFrame(typ string, data string) (ev Event, skip bool, err error) {
	if len(data) == 0 || data == "[DONE]" {
		return nil, true, nil
	}
	ev, ok := decodeDelta(data)
	if !ok {
		ev, err = decodeGeneral(typ, []byte(data))
	}
	if err == nil { // the common case, without errors.As's allocation
		return ev, false, nil
	}
	var de *DecodeError
	if errors.As(err, &de) && de.Type != "response.completed" {
		return nil, true, nil
	}
	return ev, false, err
}
