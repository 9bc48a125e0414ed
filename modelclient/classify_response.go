package modelclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/agentcli/agent/transport"
)

// This file classifies raw answers (a status, headers and body bytes, or
// one stream event) for callers that relay them instead of decoding them,
// such as the retrying proxy. It layers body keywords over [Classify]: the
// status and error-code rules stay in classify.go, and the keyword lists
// are data the caller may replace.

// Keywords are phrases looked for, case-insensitively and as substrings,
// in the body of a failed answer. They only ever apply to something
// already known to be a failure (a status of 400 or more, a JSON error
// object, an error event), never to the text of a successful answer. A
// nil or empty list matches nothing; start from [DefaultKeywords].
type Keywords struct {
	// NonRetryable phrases make a failure final, whatever its status.
	// They are checked first, so a body with phrases of both lists is
	// not retried.
	NonRetryable []string
	// Retryable phrases make a failure retryable, whatever its status.
	Retryable []string
}

// DefaultKeywords returns the keyword lists used when configuration sets
// none. Each call returns fresh slices.
func DefaultKeywords() Keywords {
	return Keywords{
		NonRetryable: []string{
			"invalid api key",
			"incorrect api key",
			"invalid_api_key",
			"auth token is unavailable",
			"invalid_request",
			"unsupported model",
			"model is not supported",
			"model not found",
			"model_not_found",
			"unrecognized configuration",
			"unknown parameter",
			"context_length_exceeded",
			"insufficient_quota",
		},
		Retryable: []string{
			"at capacity",
			"overloaded",
			"rate limit",
			"too many requests",
			"temporarily unavailable",
		},
	}
}

// ClassifyResponse classifies an HTTP answer from its status, headers and
// (the start of) its body. A status below 400 whose body is not a JSON
// object with a non-null "error" member is a success: the zero [Failure]
// (Err == nil). Anything else is a failure, judged in this order: a
// non-retryable keyword of kw in body makes it final; else a retryable
// keyword makes it retryable (keeping the status rules' class when they
// already retry it); else the status and error-code rules of [Classify]
// decide. Delay carries the server's hint (Retry-After-Ms, Retry-After,
// "try again in Xs") either way. The returned Err is a
// [*transport.HTTPError]. A Retry-After date is measured against the
// machine's clock; [ClassifyResponseAt] takes another.
func ClassifyResponse(status int, header http.Header, body []byte, kw Keywords) Failure {
	return ClassifyResponseAt(status, header, body, kw, time.Now)
}

// ClassifyResponseAt is [ClassifyResponse] on the clock now (a
// Retry-After date's delay is its distance from now()).
func ClassifyResponseAt(status int, header http.Header, body []byte, kw Keywords, now func() time.Time) Failure {
	if status < http.StatusBadRequest && !hasErrorObject(body) {
		return Failure{}
	}
	if header == nil {
		header = http.Header{}
	}
	f := ClassifyAt(&transport.HTTPError{StatusCode: status, Header: header, Body: body}, now)
	return applyKeywords(f, body, kw)
}

// ClassifyEvent classifies one server-sent event of a streamed answer,
// typ being its SSE event name (may be empty) and data its payload. ok is
// false when the event is not an error: anything but an "error" or
// "response.failed" event, or, for streams whose events carry no type
// (Chat Completions), a payload with no non-null top-level "error"
// member. An error event is classified like [Classify] does the
// [*transport.APIError] it decodes to, with kw applied to data first, as
// in [ClassifyResponse].
func ClassifyEvent(typ string, data []byte, kw Keywords) (f Failure, ok bool) {
	var apiErr *transport.APIError
	_, err := transport.Decode(typ, data)
	if !errors.As(err, &apiErr) {
		e, found := errorObject(data)
		if !found {
			return Failure{}, false
		}
		apiErr = &transport.APIError{Event: "error", Code: e.code(), Type: e.Type, Message: e.Message}
	}
	return applyKeywords(Classify(apiErr), data, kw), true
}

// ClassifyRoundTrip classifies the error of an HTTP round trip that
// produced no response: a failure to resolve or dial is a
// [*transport.ConnectError] (nothing was sent), anything else a
// [*transport.ReadError]; both are retryable in the transport class. A
// cancelled or expired ctx in err's chain classifies as [KindCanceled].
func ClassifyRoundTrip(err error) Failure {
	var (
		dns *net.DNSError
		op  *net.OpError
	)
	switch {
	case err == nil:
		return Failure{}
	case Classify(err).Kind == KindCanceled:
		return Classify(err)
	case errors.As(err, &dns) || (errors.As(err, &op) && op.Op == "dial"):
		return Classify(&transport.ConnectError{Err: err})
	}
	return Classify(&transport.ReadError{Err: err})
}

// applyKeywords overrides f's retry decision when text holds a keyword.
func applyKeywords(f Failure, text []byte, kw Keywords) Failure {
	lower := bytes.ToLower(text)
	if containsAny(lower, kw.NonRetryable) != "" {
		if f.Retryable() {
			f.Kind = KindPermanent
		}
		return f
	}
	if k := containsAny(lower, kw.Retryable); k != "" && !f.Retryable() {
		f.Kind = keywordKind(k)
	}
	return f
}

// containsAny returns the first keyword found in lower, or "".
func containsAny(lower []byte, keywords []string) string {
	for _, k := range keywords {
		if k = strings.TrimSpace(k); k != "" && bytes.Contains(lower, []byte(strings.ToLower(k))) {
			return k
		}
	}
	return ""
}

// keywordKind picks the kind (and so the retry class) of a failure that only a
// retryable keyword marks as retryable: capacity phrases wait on the
// overloaded schedule, rate-limit phrases on the rate_limit one, anything
// else on the server_error one.
func keywordKind(keyword string) Kind {
	k := strings.ToLower(keyword)
	switch {
	case strings.Contains(k, "capacity") || strings.Contains(k, "overload"):
		return KindOverloaded
	case strings.Contains(k, "rate") || strings.Contains(k, "too many"):
		return KindRateLimited
	}
	return KindServerError
}

// wireErrorObject is an error member as OpenAI-compatible servers send
// it; code may be a string or a number.
type wireErrorObject struct {
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

func (e wireErrorObject) code() string {
	c := strings.Trim(string(e.Code), `"`)
	if c == "null" {
		return ""
	}
	return c
}

// errorObject returns the top-level "error" member of a JSON object, if
// it has a non-null one. A string member becomes the message.
func errorObject(b []byte) (wireErrorObject, bool) {
	var top struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &top) != nil {
		return wireErrorObject{}, false
	}
	raw := bytes.TrimSpace(top.Error)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) || bytes.Equal(raw, []byte("false")) {
		return wireErrorObject{}, false
	}
	var e wireErrorObject
	if json.Unmarshal(raw, &e) != nil {
		var msg string
		if json.Unmarshal(raw, &msg) != nil {
			return wireErrorObject{}, true
		}
		e.Message = msg
	}
	return e, true
}

// hasErrorObject reports whether b is a JSON object with a non-null
// top-level "error" member.
func hasErrorObject(b []byte) bool {
	_, ok := errorObject(b)
	return ok
}
