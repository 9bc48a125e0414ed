package modelclient

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

// Kind is what a failure means to the user and to the retry loops. This file
// is the only place that turns transport facts into kinds.
type Kind int

// The kinds of failure.
const (
	KindPermanent       Kind = iota // anything not known to be retryable
	KindCanceled                    // the user (or caller) cancelled
	KindTransient                   // retryable: resets, 5xx, idle, incomplete
	KindConnect                     // retryable: no connection could be made
	KindRateLimited                 // retryable: 429 / rate_limit_exceeded
	KindOverloaded                  // retryable on the long schedule
	KindAuth                        // 401
	KindUpgradeRequired             // 426 on a WebSocket handshake
	KindContextWindow               // context_length_exceeded
	KindQuota                       // insufficient_quota, usage_not_included
	KindUsageLimit                  // usage_limit_reached (has a reset time)
	KindInvalidRequest              // 400, invalid_prompt, policy refusals
	KindConfig                      // the configuration cannot make a valid request
)

var kindNames = [...]string{
	"permanent", "canceled", "transient", "connect", "rate_limited", "overloaded",
	"auth", "upgrade_required", "context_window", "quota", "usage_limit", "invalid_request", "config",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Failure is a classified error.
type Failure struct {
	Kind Kind
	// Class is the retry class (provider.Class*) of a retryable failure.
	Class string
	// Retryable says some retry layer may try again.
	Retryable bool
	// Delay is the server's requested wait, zero when it gave none.
	Delay time.Duration
	// Status is the HTTP status involved, or 0.
	Status int
	// Code is the API error code (e.g. "rate_limit_exceeded"), if any.
	Code string
	// Message is the server's human message, if any.
	Message string
	// RequestID is the server's request id, if known.
	RequestID string
	// ResetsAt is when a usage limit resets, zero when unknown.
	ResetsAt time.Time
	// Err is the classified error.
	Err error
}

// ProviderDown reports whether f says this provider cannot serve the turn
// now, so another provider may: a transient class that outlasted its
// budgets (server errors, cut streams, connection failures, rate limits,
// overload) or a usage or quota limit. Never auth, an invalid request, a
// full context window or a cancellation: another provider would not help.
func (f Failure) ProviderDown() bool {
	switch f.Kind {
	case KindTransient, KindConnect, KindRateLimited, KindOverloaded, KindQuota, KindUsageLimit:
		return true
	}
	return false
}

// WebSocketUnavailable reports whether f is a handshake answer saying
// WebSocket is not served here, so asking again cannot help: 426, or a
// plain HTTP answer from something that does not upgrade (404, 405, 400,
// 200 ...). 401 goes to auth recovery; 408, 429 and 5xx are retried like
// any request.
func (f Failure) WebSocketUnavailable() bool {
	var he *transport.HandshakeError
	var st *transport.HTTPError
	if !errors.As(f.Err, &he) || !errors.As(he.Err, &st) {
		return false
	}
	switch s := st.StatusCode; {
	case s == http.StatusUnauthorized, s == http.StatusRequestTimeout, s == http.StatusTooManyRequests, s >= 500:
		return false
	}
	return true
}

// Reason is a short human description used in retry notices.
func (f Failure) Reason() string {
	var (
		re *transport.ReadError
		op *net.OpError
		ce *transport.ConnectError
	)
	switch {
	case errors.Is(f.Err, transport.ErrIncomplete):
		return "stream closed before response.completed"
	case errors.Is(f.Err, transport.ErrStreamIdle):
		return "stream idle timeout"
	case errors.Is(f.Err, transport.ErrNoProgress):
		return "stream made no progress"
	case f.Kind == KindConnect && errors.As(f.Err, &op):
		return "cannot connect to the server: " + op.Error()
	case f.Kind == KindConnect && errors.As(f.Err, &ce):
		return "cannot connect to the server: " + ce.Err.Error()
	case errors.As(f.Err, &re):
		return "stream disconnected before completion: " + re.Err.Error()
	case f.Status != 0 && f.Message != "":
		return strconv.Itoa(f.Status) + " " + f.Message
	case f.Status != 0:
		return strconv.Itoa(f.Status) + " " + http.StatusText(f.Status)
	case f.Message != "":
		return f.Message
	case f.Err != nil:
		return f.Err.Error()
	}
	return f.Kind.String()
}

func retryable(k Kind, class string, err error) Failure {
	return Failure{Kind: k, Class: class, Retryable: true, Err: err}
}

// classifiedError carries the [Failure] of an error, computed once where
// the error arose, so every layer that judges it reads the same verdict.
type classifiedError struct{ f Failure }

func (e *classifiedError) Error() string { return e.f.Err.Error() }
func (e *classifiedError) Unwrap() error { return e.f.Err }

// classified wraps err with its classification (nil stays nil; an error
// already classified is returned as it is).
func classified(err error) error {
	var ce *classifiedError
	if err == nil || errors.As(err, &ce) {
		return err
	}
	return &classifiedError{f: Classify(err)}
}

// Classify sorts err into a [Failure]. It never matches error strings of
// other packages: it reads typed transport errors, status codes, API error
// codes and server bodies. An error classified where it arose keeps that
// verdict (a cancellation in its chain still wins).
func Classify(err error) Failure {
	var (
		ce         *classifiedError
		outcome    *Outcome
		header     *HeaderError
		httpErr    *transport.HTTPError
		apiErr     *transport.APIError
		incomplete *transport.IncompleteError
		connErr    *transport.ConnectError
		readErr    *transport.ReadError
		decodeErr  *transport.DecodeError
		closeErr   *transport.CloseError
		refused    *auth.RefreshTokenFailedError
		command    *auth.CommandError
		refreshErr *auth.RefreshError
	)
	switch {
	case err == nil:
		return Failure{}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return Failure{Kind: KindCanceled, Err: err}
	case errors.As(err, &outcome):
		return outcome.Failure
	case errors.As(err, &ce):
		return ce.f
	case errors.As(err, &header):
		k := KindConfig
		if header.Credential {
			k = KindAuth
		}
		return Failure{Kind: k, Message: header.Error(), Err: err}
	case errors.Is(err, transport.ErrEventTooLarge):
		return Failure{Kind: KindPermanent, Message: err.Error(), Err: err}
	case errors.As(err, &refused):
		// The login must be renewed by hand: the message says how.
		return Failure{Kind: KindAuth, Message: refused.Error(), Err: err}
	case errors.As(err, &command):
		return Failure{Kind: KindAuth, Message: command.Error(), Err: err}
	case errors.As(err, &refreshErr):
		if refreshErr.StatusCode >= 500 {
			return retryable(KindTransient, provider.ClassServerError, err)
		}
		return retryable(KindTransient, provider.ClassTransport, err)
	case errors.Is(err, transport.ErrStreamIdle) || errors.Is(err, transport.ErrNoProgress):
		return retryable(KindTransient, provider.ClassIdle, err)
	case errors.Is(err, transport.ErrIncomplete) || errors.Is(err, transport.ErrUnexpectedBinary) ||
		errors.Is(err, transport.ErrHandshakeTimeout) || errors.As(err, &closeErr):
		return retryable(KindTransient, provider.ClassTransport, err)
	case errors.As(err, &connErr):
		return retryable(KindConnect, provider.ClassTransport, err)
	case errors.As(err, &readErr):
		return retryable(KindTransient, provider.ClassTransport, err)
	case errors.As(err, &incomplete):
		f := retryable(KindTransient, provider.ClassServerError, err)
		f.Message = incomplete.Error()
		return f
	case errors.As(err, &decodeErr):
		return retryable(KindTransient, provider.ClassServerError, err)
	case errors.As(err, &httpErr):
		return classifyHTTP(httpErr, err)
	case errors.As(err, &apiErr):
		return classifyAPI(apiErr, err)
	}
	return Failure{Kind: KindPermanent, Err: err}
}

// apiBody is the OpenAI error body shape.
type apiBody struct {
	Error struct {
		Type     string          `json:"type"`
		Code     json.RawMessage `json:"code"`
		Message  string          `json:"message"`
		ResetsAt int64           `json:"resets_at"`
		ResetsIn int64           `json:"resets_in_seconds"`
	} `json:"error"`
}

func classifyHTTP(e *transport.HTTPError, err error) Failure {
	var body apiBody
	_ = json.Unmarshal(e.Body, &body) // not every server sends JSON
	code := strings.Trim(string(body.Error.Code), `"`)
	if code == "null" {
		code = ""
	}
	msg := body.Error.Message
	if msg == "" {
		msg = strings.TrimSpace(string(e.Body))
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
	}
	f := Failure{Status: e.StatusCode, Code: code, Message: msg, RequestID: e.RequestID(), Err: err}
	if d, ok := headerDelay(e.Header, time.Now()); ok {
		f.Delay = d
	} else if d, ok := bodyDelay(msg); ok {
		f.Delay = d
	}
	typ := body.Error.Type
	switch s := e.StatusCode; {
	case s == http.StatusUnauthorized:
		f.Kind = KindAuth
	case s == http.StatusUpgradeRequired:
		f.Kind = KindUpgradeRequired
	case isContextWindow(code):
		f.Kind = KindContextWindow
	case s == http.StatusTooManyRequests && (typ == "usage_limit_reached" || code == "usage_limit_reached"):
		f.Kind = KindUsageLimit
		switch {
		case body.Error.ResetsAt > 0:
			f.ResetsAt = time.Unix(body.Error.ResetsAt, 0)
		case body.Error.ResetsIn > 0:
			f.ResetsAt = time.Now().Add(time.Duration(body.Error.ResetsIn) * time.Second)
		}
	case isQuota(typ) || isQuota(code):
		f.Kind = KindQuota
	case isOverloaded(s, code, msg):
		f.Kind, f.Class, f.Retryable = KindOverloaded, provider.ClassOverloaded, true
	case s == http.StatusTooManyRequests:
		f.Kind, f.Class, f.Retryable = KindRateLimited, provider.ClassRateLimit, true
	case s == http.StatusRequestTimeout || s == http.StatusConflict:
		f.Kind, f.Class, f.Retryable = KindTransient, provider.ClassTransport, true
	case s >= 500:
		f.Kind, f.Class, f.Retryable = KindTransient, provider.ClassServerError, true
	case s == http.StatusBadRequest || s == http.StatusUnprocessableEntity:
		f.Kind = KindInvalidRequest
	default: // 403, 404, 405, 413, ...: asking again cannot help
		f.Kind = KindPermanent
	}
	return f
}

func classifyAPI(e *transport.APIError, err error) Failure {
	if e.Code == "websocket_connection_limit_reached" || e.Code == "previous_response_not_found" {
		// The connection (and its response chain) is gone: a fresh
		// connection with the full request will do.
		f := retryable(KindTransient, provider.ClassTransport, err)
		f.Code, f.Message, f.Status = e.Code, e.Message, e.Status
		return f
	}
	if e.Status != 0 {
		// A WebSocket-wrapped HTTP error: judge it like the HTTP answer.
		body, _ := json.Marshal(map[string]any{"error": map[string]string{
			"type": e.Type, "code": e.Code, "message": e.Message,
		}})
		return classifyHTTP(&transport.HTTPError{StatusCode: e.Status, Header: http.Header{}, Body: body}, err)
	}
	f := Failure{Code: e.Code, Message: e.Message, Err: err}
	if d, ok := bodyDelay(e.Message); ok {
		f.Delay = d
	}
	switch c := e.Code; {
	case isContextWindow(c):
		f.Kind = KindContextWindow
	case c == "usage_limit_reached" || e.Type == "usage_limit_reached":
		f.Kind = KindUsageLimit
	case isQuota(c) || isQuota(e.Type):
		f.Kind = KindQuota
	case c == "cyber_policy" || c == "misalignment_policy_violation" || c == "invalid_prompt" ||
		c == "bio_policy" || c == "invalid_request_error" || e.Type == "invalid_request_error":
		f.Kind = KindInvalidRequest
	case isOverloaded(0, c, e.Message):
		f.Kind, f.Class, f.Retryable = KindOverloaded, provider.ClassOverloaded, true
	case c == "rate_limit_exceeded" || e.Type == "rate_limit_exceeded":
		f.Kind, f.Class, f.Retryable = KindRateLimited, provider.ClassRateLimit, true
	default:
		// server_error, websocket_connection_limit_reached,
		// previous_response_not_found and unknown codes: the reference
		// client retries them, and so do we.
		f.Kind, f.Class, f.Retryable = KindTransient, provider.ClassServerError, true
	}
	return f
}

func isContextWindow(code string) bool { return code == "context_length_exceeded" }

func isQuota(s string) bool { return s == "insufficient_quota" || s == "usage_not_included" }

func isOverloaded(status int, code, msg string) bool {
	if status == 529 || code == "server_is_overloaded" || code == "slow_down" {
		return true
	}
	if status != 0 && status != http.StatusServiceUnavailable && status != http.StatusTooManyRequests {
		return false
	}
	m := strings.ToLower(msg)
	return strings.Contains(m, "at capacity") || strings.Contains(m, "overloaded")
}

// headerDelay reads Retry-After-Ms, then Retry-After (seconds or an
// HTTP-date relative to now).
func headerDelay(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

var tryAgainRE = regexp.MustCompile(`(?i)try again in\s*(\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b`)

// bodyDelay parses "try again in 1.5s" / "28ms" / "35 seconds".
func bodyDelay(msg string) (time.Duration, bool) {
	m := tryAgainRE.FindStringSubmatch(msg)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	if strings.EqualFold(m[2], "ms") {
		return time.Duration(v * float64(time.Millisecond)), true
	}
	return time.Duration(v * float64(time.Second)), true
}
