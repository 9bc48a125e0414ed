package responsestest

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// stepKind says what a [Step] does. The zero kind does nothing, so the zero
// Step is a no-op.
type stepKind uint8

const (
	stepNone    stepKind = iota
	stepEvent            // SSE event: typ is the event name, data its JSON
	stepRaw              // data written verbatim
	stepComment          // SSE comment line(s) with text data
	stepDrop             // hijack and close the connection
	stepEnd              // finish the body cleanly
	stepStall            // block until ctx done, Release or Close
	stepBarrier          // signal Reached(data)
	stepSleep            // wait d (fake time inside a synctest bubble)
	stepCloseWS          // WebSocket close frame with code; SSE: as stepDrop
	stepBinary           // WebSocket binary message; SSE: data verbatim
	stepQuorum           // wait until d streams reached Quorum(data)
)

// Step is one action inside a [Stream]: an event, raw bytes, or a control
// point. It is plain data, built with the functions below. The zero Step
// does nothing.
type Step struct {
	kind stepKind
	typ  string               // stepEvent: the event type
	data string               // event JSON, raw bytes, comment text, barrier name or close reason
	d    time.Duration        // stepSleep: the wait; stepQuorum: the count
	code websocket.StatusCode // stepCloseWS only
}

// Event writes one SSE event named typ whose data is a JSON object with
// "type": typ first, followed by fields (a "type" key in fields is
// ignored). It panics if fields cannot be marshalled as JSON.
func Event(typ string, fields map[string]any) Step {
	rest := "{}"
	if len(fields) > 0 {
		f := maps.Clone(fields)
		delete(f, "type")
		rest = mustJSON(f)
	}
	data := `{"type":` + mustJSON(typ)
	if rest != "{}" {
		data += "," + strings.TrimPrefix(rest, "{")
	} else {
		data += "}"
	}
	return Step{kind: stepEvent, typ: typ, data: data}
}

// Created writes response.created for a response with id respID and status
// in_progress.
func Created(respID string) Step {
	return Event("response.created", map[string]any{
		"response": map[string]any{"id": respID, "status": "in_progress"},
	})
}

// InProgress writes response.in_progress for the response respID.
func InProgress(respID string) Step {
	return Event("response.in_progress", map[string]any{
		"response": map[string]any{"id": respID, "status": "in_progress"},
	})
}

// OutputItemAdded writes response.output_item.added at output_index 0
// carrying item (for example a message, reasoning or function_call item).
func OutputItemAdded(item map[string]any) Step {
	return Event("response.output_item.added", map[string]any{
		"output_index": 0,
		"item":         item,
	})
}

// OutputItemDone writes response.output_item.done at output_index 0
// carrying item, the authoritative final form of the item.
func OutputItemDone(item map[string]any) Step {
	return Event("response.output_item.done", map[string]any{
		"output_index": 0,
		"item":         item,
	})
}

// TextDelta writes response.output_text.delta for the message itemID at
// output_index 0 and content_index 0.
func TextDelta(itemID, delta string) Step {
	return Event("response.output_text.delta", map[string]any{
		"item_id":       itemID,
		"output_index":  0,
		"content_index": 0,
		"delta":         delta,
	})
}

// MessageDone writes response.output_item.done for a completed assistant
// message itemID whose single output_text content is text.
func MessageDone(itemID, text string) Step {
	// A text of megabytes that JSON writes as it is goes in after the
	// encoding: encoding/json takes seconds for 10 MiB under the race
	// detector, a placeholder and one copy milliseconds.
	encoded := text
	if len(text) > 64<<10 && !strings.ContainsFunc(text, func(r rune) bool { return r < ' ' || r > '~' || r == '"' || r == '\\' }) {
		encoded = "\x00"
	}
	s := OutputItemDone(map[string]any{
		"type":   "message",
		"id":     itemID,
		"role":   "assistant",
		"status": "completed",
		"content": []any{map[string]any{
			"type":        "output_text",
			"text":        encoded,
			"annotations": []any{},
		}},
	})
	if encoded != text {
		s.data = strings.Replace(s.data, `"\u0000"`, `"`+text+`"`, 1)
	}
	return s
}

// FunctionCallDone writes response.output_item.done for a completed
// function_call item; arguments is the JSON-encoded argument string.
func FunctionCallDone(itemID, callID, name, arguments string) Step {
	return OutputItemDone(map[string]any{
		"type":      "function_call",
		"id":        itemID,
		"call_id":   callID,
		"name":      name,
		"arguments": arguments,
		"status":    "completed",
	})
}

// ReasoningSummaryDelta writes response.reasoning_summary_text.delta for
// the reasoning item itemID at output_index 0 and summary_index 0.
func ReasoningSummaryDelta(itemID, delta string) Step {
	return Event("response.reasoning_summary_text.delta", map[string]any{
		"item_id":       itemID,
		"output_index":  0,
		"summary_index": 0,
		"delta":         delta,
	})
}

// Completed writes response.completed for respID with a fixed usage: 10
// input tokens (0 cached), 5 output tokens (0 reasoning), 15 in total.
func Completed(respID string) Step {
	return CompletedUsage(respID, 10, 0, 5, 0)
}

// CompletedUsage writes response.completed for respID with the given
// usage: in input tokens of which cached came from the prompt cache, out
// output tokens of which reasoning were reasoning tokens; total_tokens is
// in+out.
func CompletedUsage(respID string, in, cached, out, reasoning int) Step {
	return Event("response.completed", map[string]any{
		"response": map[string]any{
			"id":     respID,
			"status": "completed",
			"usage": map[string]any{
				"input_tokens":          in,
				"input_tokens_details":  map[string]any{"cached_tokens": cached},
				"output_tokens":         out,
				"output_tokens_details": map[string]any{"reasoning_tokens": reasoning},
				"total_tokens":          in + out,
			},
		},
	})
}

// Failed writes response.failed for respID with error code and message,
// for example "rate_limit_exceeded" or "context_length_exceeded".
func Failed(respID, code, message string) Step {
	return Event("response.failed", map[string]any{
		"response": map[string]any{
			"id":     respID,
			"status": "failed",
			"error":  map[string]any{"code": code, "message": message},
		},
	})
}

// Incomplete writes response.incomplete for respID with
// incomplete_details.reason set to reason (for example
// "max_output_tokens").
func Incomplete(respID, reason string) Step {
	return Event("response.incomplete", map[string]any{
		"response": map[string]any{
			"id":                 respID,
			"status":             "incomplete",
			"incomplete_details": map[string]any{"reason": reason},
		},
	})
}

// Raw writes b verbatim: malformed frames, CRLF line endings, giant lines,
// unterminated events and other bytes no builder produces. Over WebSocket
// it is one text message whose payload is b.
func Raw(b string) Step {
	return Step{kind: stepRaw, data: b}
}

// Comment writes an SSE comment (": text", one line per line of text)
// followed by a blank line, as servers do for keep-alives. Clients must
// ignore it.
//
// Over WebSocket it is the equivalent keep-alive, a ping control frame
// whose payload is text (cut to 125 bytes). The server writes the frame
// and goes on without waiting for the pong, so a client that never reads
// cannot block the stream; the pong is read and discarded later.
func Comment(text string) Step {
	return Step{kind: stepComment, data: text}
}

// Drop closes the connection abruptly (hijack and close) after flushing
// what was written so far, so the client sees an unexpected EOF or reset
// in the middle of the chunked body rather than a clean end. Later steps
// are not run. Over WebSocket the connection is closed without a close
// frame (websocket.Conn.CloseNow), so the client's read fails with an
// error that is not a websocket.CloseError.
func Drop() Step {
	return Step{kind: stepDrop}
}

// End finishes the body cleanly here, with the normal chunked terminator,
// even if no response.completed was sent. Later steps are not run. Over
// WebSocket it closes the connection with a close frame carrying
// websocket.StatusNormalClosure and the reason "end of stream".
func End() Step {
	return Step{kind: stepEnd}
}

// Stall blocks, sending nothing, until the request context is done (the
// client went away), [Server.Release] is called, or [Server.Close]. After
// Release the stream continues with the next step; after Close the
// connection is dropped as by [Drop]. Over WebSocket "the client went
// away" means the connection failed or the client closed it.
func Stall() Step {
	return Step{kind: stepStall}
}

// Barrier marks that the stream reached this point, after everything
// before it was flushed; the channel from [Server.Reached](name) is closed
// the first time any stream reaches it. It writes nothing.
func Barrier(name string) Step {
	return Step{kind: stepBarrier, data: name}
}

// Quorum holds the stream here until n streams (counted over the
// server's life) have reached Quorum(name, n), so a test can make n
// requests be in flight upstream at once. It writes nothing. Like
// [Stall], it ends the stream when the client goes away and drops it
// when the server closes. All Quorum steps of one name must give the
// same n.
func Quorum(name string, n int) Step {
	return Step{kind: stepQuorum, data: name, d: time.Duration(n)}
}

// Sleep pauses the stream for d, sending nothing. It is meant for streams
// served inside a testing/synctest bubble ([NewPipeServer]), where d passes
// on the fake clock at once; outside a bubble it really waits, so keep d
// tiny there. The wait ends early when the client goes away or the server
// closes.
func Sleep(d time.Duration) Step {
	return Step{kind: stepSleep, d: d}
}

// CloseWS closes a WebSocket connection with a close frame carrying code
// and reason, then waits (at most 5s, fake time inside a synctest bubble)
// for the client to answer the close handshake. Later steps are not run.
// Over SSE, which has no close codes, it behaves like [Drop].
//
// It panics if code cannot be sent in a close frame (1005, 1006, 1015 and
// codes outside 1000-1014 and 3000-4999) or reason is longer than 123
// bytes; use Drop for an abnormal closure.
func CloseWS(code websocket.StatusCode, reason string) Step {
	if !sendableCloseCode(code) {
		panic(fmt.Sprintf("responsestest: close code %d cannot be sent in a close frame", int(code)))
	}
	if len(reason) > maxCloseReason {
		panic(fmt.Sprintf("responsestest: close reason is %d bytes, the limit is %d", len(reason), maxCloseReason))
	}
	return Step{kind: stepCloseWS, code: code, data: reason}
}

// Binary sends b as one WebSocket binary message, which the Responses
// protocol never uses (clients should fail on it). Over SSE it writes b
// verbatim, like [Raw].
func Binary(b string) Step {
	return Step{kind: stepBinary, data: b}
}

// maxCloseReason is the longest close reason: a control frame carries at
// most 125 bytes, two of which hold the code (RFC 6455 section 5.5).
const maxCloseReason = 123

// sendableCloseCode reports whether code may appear in a close frame
// (RFC 6455 section 7.4 and the IANA registry, as coder/websocket checks).
func sendableCloseCode(code websocket.StatusCode) bool {
	switch code {
	case 1004, websocket.StatusNoStatusRcvd, websocket.StatusAbnormalClosure, websocket.StatusTLSHandshake:
		return false
	}
	return code >= websocket.StatusNormalClosure && code <= websocket.StatusBadGateway ||
		code >= 3000 && code <= 4999
}

// EventData writes one event whose data is data verbatim (a JSON payload
// a builder does not make), without an SSE event name: a payload without
// a "type" field is then untyped, as gateways send a bare
// {"error": {...}}. Over WebSocket it is one text message.
func EventData(data string) Step {
	return Step{kind: stepEvent, data: data}
}

// ErrorEvent writes the spec's error event: code, message and param at
// the top level ({"type":"error","code":...,"message":...,"param":...}).
// Empty code and param are sent as null.
func ErrorEvent(code, message, param string) Step {
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	return Event("error", map[string]any{"code": null(code), "message": message, "param": null(param), "sequence_number": 1})
}

// BareError writes a gateway's mid-stream error without a type (LiteLLM):
// data {"error":{"message":message,"type":errType,"param":null,"code":errCode}}
// and no event name.
func BareError(errType, errCode, message string) Step {
	return EventData(errorBody(errType, errCode, message))
}

// RefusalDone writes response.output_item.done for an assistant message
// itemID whose single content part is a refusal.
func RefusalDone(itemID, refusal string) Step {
	return OutputItemDone(map[string]any{
		"type": "message", "id": itemID, "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "refusal", "refusal": refusal}},
	})
}

// RefusalDelta writes response.refusal.delta for the message itemID.
func RefusalDelta(itemID, delta string) Step {
	return Event("response.refusal.delta", map[string]any{
		"item_id": itemID, "output_index": 0, "content_index": 0, "delta": delta,
	})
}

// CompletedOutput writes response.completed for respID with the usage of
// [Completed] and output as its response's output items, as servers list
// the whole response in it (a gateway may deliver items only there).
func CompletedOutput(respID string, output ...map[string]any) Step {
	items := make([]any, len(output))
	for i, o := range output {
		items[i] = o
	}
	return Event("response.completed", map[string]any{
		"response": map[string]any{
			"id": respID, "status": "completed", "output": items,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
		},
	})
}

// MessageItem is an assistant message item with one output_text part, for
// [OutputItemDone], [OutputItemAdded] and [CompletedOutput]; status is
// "completed" or "incomplete".
func MessageItem(itemID, text, status string) map[string]any {
	return map[string]any{
		"type": "message", "id": itemID, "role": "assistant", "status": status,
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}},
	}
}

// FunctionCallItem is a completed function_call item, for [OutputItemDone]
// and [CompletedOutput].
func FunctionCallItem(itemID, callID, name, arguments string) map[string]any {
	return map[string]any{
		"type": "function_call", "id": itemID, "call_id": callID, "name": name,
		"arguments": arguments, "status": "completed",
	}
}
