package responsestest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// Script is the ordered list of answers a [Server] gives: request number i
// (0-based, in arrival order) is answered by Script[i].
type Script []Attempt

// attemptKind says how an [Attempt] answers. The zero kind is a stream so
// that the zero Attempt is a valid, empty stream.
type attemptKind uint8

const (
	attemptStream attemptKind = iota
	attemptStatus
	attemptHang
)

// Attempt is the server's answer to one request. It is plain data (no
// callbacks), so one script drives both the SSE and the WebSocket
// transport (see the package documentation for which WebSocket handshake
// or message consumes it). Build it with [Status], [StatusBody], [Error],
// [Stream], [StreamWithHeaders], [Reply] or [Hang]. The zero Attempt is an
// empty 200 event stream, like Stream().
//
// Over WebSocket, a non-stream attempt answers a handshake as plain HTTP
// (refusing the upgrade), or a response.create message with an error
// event {"type":"error","status":N,"error":{...},"headers":{...}}.
type Attempt struct {
	kind   attemptKind
	status int      // attemptStatus only
	header []string // key/value pairs, len is even
	body   string   // attemptStatus only
	steps  []Step   // attemptStream only
}

// Status answers with HTTP status code, the response headers given as
// key/value pairs in headerKV (for example "Retry-After", "2") and a small
// JSON body {"error":{"message":<status text>}}. Status codes that forbid a
// body (1xx, 204, 304) get none. It panics if headerKV has an odd length.
func Status(code int, headerKV ...string) Attempt {
	body := ""
	if bodyAllowed(code) {
		body = mustJSON(map[string]any{
			"error": map[string]string{"message": http.StatusText(code)},
		})
	}
	return StatusBody(code, body, headerKV...)
}

// StatusBody answers with HTTP status code, the headers in headerKV and
// body verbatim. Content-Type defaults to application/json unless headerKV
// sets it. It panics if headerKV has an odd length.
func StatusBody(code int, body string, headerKV ...string) Attempt {
	return Attempt{
		kind:   attemptStatus,
		status: code,
		header: checkKV(headerKV),
		body:   body,
	}
}

// Error answers with HTTP status code and an OpenAI-style error body,
// {"error":{"message":message,"type":errType,"param":null,"code":errCode}}.
// Empty errType and errCode are sent as null. It panics if headerKV has an
// odd length.
func Error(code int, errType, errCode, message string, headerKV ...string) Attempt {
	return StatusBody(code, errorBody(errType, errCode, message), headerKV...)
}

// Stream answers 200 with Content-Type text/event-stream and then writes
// steps in order, flushing after each one. The body ends cleanly after the
// last step unless a step ([Drop], [Stall], [End]) says otherwise.
//
// Over WebSocket, Stream answers a response.create message: each event is
// one text message, and after the last step the connection stays open
// for the next response.create unless a step ([Drop], [End], [CloseWS])
// closed it.
func Stream(steps ...Step) Attempt {
	return StreamWithHeaders(nil, steps...)
}

// StreamWithHeaders is [Stream] with extra response headers given as
// key/value pairs in headerKV; they replace the defaults (Content-Type,
// Cache-Control) of the same name. It panics if headerKV has an odd length.
func StreamWithHeaders(headerKV []string, steps ...Step) Attempt {
	return Attempt{
		kind:   attemptStream,
		header: checkKV(headerKV),
		steps:  slices.Clone(steps),
	}
}

// Hang accepts the request and never sends a status line or headers. The
// handler returns when the client gives up (the request context ends);
// after [Server.Release] or [Server.Close] it drops the connection without
// a response. A WebSocket handshake meeting a Hang is never answered; a
// response.create message meeting one gets no reply, and the connection
// is dropped after Release or Close.
func Hang() Attempt {
	return Attempt{kind: attemptHang}
}

// Reply is the happy path for one assistant message: [Created],
// [OutputItemAdded] of an empty message, one [TextDelta] per word of text
// (each word keeps its trailing space), [MessageDone] and [Completed].
func Reply(respID, itemID, text string) Attempt {
	steps := []Step{
		Created(respID),
		OutputItemAdded(map[string]any{
			"type":    "message",
			"id":      itemID,
			"role":    "assistant",
			"status":  "in_progress",
			"content": []any{},
		}),
	}
	for chunk := range strings.SplitAfterSeq(text, " ") {
		if chunk != "" {
			steps = append(steps, TextDelta(itemID, chunk))
		}
	}
	steps = append(steps, MessageDone(itemID, text), Completed(respID))
	return Stream(steps...)
}

// checkKV returns a copy of kv, panicking if it is not key/value pairs.
func checkKV(kv []string) []string {
	if len(kv)%2 != 0 {
		panic("responsestest: odd number of header key/value strings")
	}
	return slices.Clone(kv)
}

// bodyAllowed reports whether a response with status code may have a body
// (RFC 9110 section 6.4.1).
func bodyAllowed(code int) bool {
	return code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified
}

// errorBody renders the OpenAI error envelope; empty typ and code become
// null, as the API sends them.
func errorBody(typ, code, message string) string {
	type apiError struct {
		Message string  `json:"message"`
		Type    *string `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	e := apiError{Message: message}
	if typ != "" {
		e.Type = &typ
	}
	if code != "" {
		e.Code = &code
	}
	return mustJSON(map[string]any{"error": e})
}

// mustJSON marshals v without HTML escaping and panics on failure, which
// can only come from a caller passing an unmarshalable value to [Event].
func mustJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("responsestest: encoding JSON: " + err.Error())
	}
	return strings.TrimSuffix(b.String(), "\n")
}
