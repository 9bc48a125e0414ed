package transport

import (
	"encoding/json"
	"errors"
	"fmt"
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

type wireResponse struct {
	ID                string     `json:"id"`
	Error             *wireError `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Usage *struct {
		InputTokens        int64 `json:"input_tokens"`
		InputTokensDetails struct {
			CachedTokens     int64 `json:"cached_tokens"`
			CacheWriteTokens int64 `json:"cache_write_tokens"`
		} `json:"input_tokens_details"`
		OutputTokens        int64 `json:"output_tokens"`
		OutputTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
		TotalTokens int64 `json:"total_tokens"`
	} `json:"usage"`
	EndTurn *bool `json:"end_turn"`
}

// Decode turns one event payload into an [Event]. The event type is taken
// from the payload's "type" field; typ (the SSE event name, may be empty) is
// used only when the payload has none. A response.failed or error event is
// returned as an [*APIError], response.incomplete as an [*IncompleteError];
// both end the stream. Unknown types yield [Unknown]. Malformed JSON yields
// a [*DecodeError], which callers may skip for non-terminal events.
func Decode(typ string, data []byte) (Event, error) {
	if ev, ok := decodeDelta(data); ok {
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
		it, err := ParseItem(w.Item)
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
		c := Completed{ResponseID: r.ID, EndTurn: r.EndTurn}
		if u := r.Usage; u != nil {
			c.Usage = &Usage{
				InputTokens:           u.InputTokens,
				CachedInputTokens:     u.InputTokensDetails.CachedTokens,
				CacheWriteInputTokens: u.InputTokensDetails.CacheWriteTokens,
				OutputTokens:          u.OutputTokens,
				ReasoningOutputTokens: u.OutputTokensDetails.ReasoningTokens,
				TotalTokens:           u.TotalTokens,
			}
		}
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
func DecodeFrame(typ string, data []byte) (ev Event, skip bool, err error) {
	if len(data) == 0 || string(data) == "[DONE]" {
		return nil, true, nil
	}
	ev, err = Decode(typ, data)
	if err == nil { // the common case, without errors.As's allocation
		return ev, false, nil
	}
	var de *DecodeError
	if errors.As(err, &de) && de.Type != "response.completed" {
		return nil, true, nil
	}
	return ev, false, err
}
