package transport

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Sentinel errors for data-less stream failures.
var (
	// ErrIncomplete: the stream ended before response.completed.
	ErrIncomplete = errors.New("transport: stream closed before response.completed")
	// ErrStreamIdle: no bytes arrived within the idle timeout.
	ErrStreamIdle = errors.New("transport: stream idle")
	// ErrNoProgress: bytes (keep-alives) kept arriving but no event did
	// within the progress timeout.
	ErrNoProgress = errors.New("transport: stream made no progress")
	// ErrEventTooLarge: one event (an SSE event or a WebSocket message)
	// is larger than the transport's bound ([MaxEventSize] by default).
	// Asking again gets the same event, so it is not retried. The
	// transports report it as an [*EventTooLargeError], which names the
	// bound.
	ErrEventTooLarge = errors.New("transport: an event is larger than the limit")
)

// MaxEventSize bounds one event of a stream on either transport unless
// the transport is given another bound (a provider's
// stream_max_event_bytes).
const MaxEventSize = 128 << 20

// EventTooLargeError is [ErrEventTooLarge] with the bound the event
// exceeded, in bytes.
type EventTooLargeError struct{ Limit int64 }

func (e *EventTooLargeError) Error() string {
	return "an event of the stream is larger than the " + sizeText(e.Limit) + " limit"
}

// Is makes errors.Is(err, [ErrEventTooLarge]) hold.
func (e *EventTooLargeError) Is(target error) bool { return target == ErrEventTooLarge }

// sizeText writes a size the way limits are said: "128 MiB", "1.5 KiB",
// "100 bytes".
func sizeText(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// HeaderProxyAttempts is the response header a retrying proxy (agent
// proxy) sets on the answers of requests it retried itself: the number of
// upstream attempts the answer took. A failure carrying it is final
// before the stream: the proxy already spent a budget on it.
const HeaderProxyAttempts = "X-Agent-Proxy-Attempts"

// RetriedByProxy reports whether err is an HTTP answer a retrying proxy
// gave after its own retries ([HeaderProxyAttempts]).
func RetriedByProxy(err error) bool {
	var he *HTTPError
	return errors.As(err, &he) && he.Header.Get(HeaderProxyAttempts) != ""
}

// HTTPError is a non-2xx answer to the request (or handshake).
type HTTPError struct {
	StatusCode int
	Header     http.Header
	// Body is the start of the response body (bounded).
	Body []byte
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("http %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if b := strings.TrimSpace(string(e.Body)); b != "" {
		if len(b) > 300 {
			b = b[:300] + "…"
		}
		msg += ": " + b
	}
	return msg
}

// RequestID returns the server's request id header, if any.
func (e *HTTPError) RequestID() string {
	for _, k := range []string{"x-request-id", "x-oai-request-id", "cf-ray"} {
		if v := e.Header.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// APIError is an error the server reported inside the stream: a
// response.failed event, or a top-level error event.
type APIError struct {
	// Event is the event type that carried it ("response.failed", "error").
	Event      string
	ResponseID string
	Code       string
	Type       string
	Message    string
	// Param is the request parameter the error is about, if any.
	Param string
	// Status is the HTTP status a wrapped WebSocket error carried, or 0.
	Status int
}

func (e *APIError) Error() string {
	s := e.Event
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// IncompleteError is a response.incomplete event.
type IncompleteError struct {
	ResponseID string
	Reason     string
}

func (e *IncompleteError) Error() string {
	r := e.Reason
	if r == "" {
		r = "unknown"
	}
	return "incomplete response returned, reason: " + r
}

// ConnectError means no connection to the server could be made (DNS, refused,
// unreachable, TLS handshake). Nothing was sent.
type ConnectError struct {
	Err error
}

func (e *ConnectError) Error() string { return "connect: " + e.Err.Error() }
func (e *ConnectError) Unwrap() error { return e.Err }

// ReadError is a failure reading the stream after it started (reset,
// unexpected EOF).
type ReadError struct {
	Err error
}

func (e *ReadError) Error() string { return "read stream: " + e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// PageError is a successful answer that is a web page (text/html), not an
// event stream: a login page of a proxy or network in the way, or a
// base_url that is a web site. Body is its start.
type PageError struct {
	StatusCode  int
	ContentType string
	Body        []byte
}

func (e *PageError) Error() string {
	return fmt.Sprintf("the server answered %d with a web page (%s), not an event stream", e.StatusCode, e.ContentType)
}

// DecodeError is an event the client could not make sense of where it must
// (a response.completed that does not parse).
type DecodeError struct {
	Type string
	Err  error
}

func (e *DecodeError) Error() string { return "decode " + e.Type + ": " + e.Err.Error() }
func (e *DecodeError) Unwrap() error { return e.Err }

// WebSocket facts.
var (
	// ErrUnexpectedBinary: the server sent a binary frame.
	ErrUnexpectedBinary = errors.New("transport: unexpected binary websocket message")
	// ErrHandshakeTimeout: the WebSocket handshake did not finish within
	// the connect timeout.
	ErrHandshakeTimeout = errors.New("transport: websocket handshake timed out")
)

// HandshakeError is a failed WebSocket handshake. Err is an [*HTTPError]
// when the server answered with something other than 101, a
// [*ConnectError] when no connection could be made, or
// [ErrHandshakeTimeout].
type HandshakeError struct {
	Err error
}

func (e *HandshakeError) Error() string { return "websocket handshake: " + e.Err.Error() }
func (e *HandshakeError) Unwrap() error { return e.Err }

// CloseError is a WebSocket close frame received before response.completed.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string {
	s := fmt.Sprintf("websocket closed by server before response.completed (status %d", e.Code)
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s + ")"
}

// An Ender is a [StreamDecoder] whose wire names the event that ends its
// streams successfully ("[DONE]", "message_stop"), for the error of a
// stream that ended without it. A decoder that is not one ends with
// response.completed, the Responses API's.
type Ender interface {
	End() string
}

// ClosedEarlyError is a stream that ended before its wire's end: it is
// [ErrIncomplete] (errors.Is), naming the end it lacked.
type ClosedEarlyError struct {
	// End is the event the stream lacked.
	End string
}

func (e *ClosedEarlyError) Error() string { return "transport: stream closed before " + e.End }

// Is makes the error [ErrIncomplete].
func (e *ClosedEarlyError) Is(target error) bool { return target == ErrIncomplete }

// Incomplete is the error of a stream decoded by d that ended before its
// wire's end: a [*ClosedEarlyError] naming it when d is an [Ender], else
// [ErrIncomplete].
func Incomplete(d StreamDecoder) error {
	if e, ok := d.(Ender); ok {
		return &ClosedEarlyError{End: e.End()}
	}
	return ErrIncomplete
}
