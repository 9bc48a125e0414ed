package modelclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"html"
	"maps"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentcli/agent/auth"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

// Kind is what a failure means to the user and to the retry loops: for a
// retryable failure, also its retry class ([Kind.Class]), whose behaviour
// the retry policy table says ([provider.Behaviour]). This file is the
// only place that turns transport facts into kinds.
type Kind int

// The kinds of failure.
const (
	KindPermanent       Kind = iota // anything not known to be retryable
	KindCanceled                    // the user (or caller) cancelled
	KindTransport                   // retryable (transport): resets, cut streams, 408, 409
	KindServerError                 // retryable (server_error): 5xx, server-side stream errors, unknown codes
	KindIdle                        // retryable (idle): a stream that stopped delivering data or progress
	KindConnect                     // retryable (transport): no connection could be made
	KindRateLimited                 // retryable (rate_limit): 429 / rate_limit_exceeded
	KindOverloaded                  // retryable (overloaded), on the long schedule
	KindAuth                        // 401
	KindUpgradeRequired             // 426 on a WebSocket handshake
	KindContextWindow               // context_length_exceeded
	KindQuota                       // insufficient_quota, usage_not_included
	KindUsageLimit                  // usage_limit_reached (has a reset time)
	KindInvalidRequest              // 400, invalid_prompt, policy refusals
	KindConfig                      // the configuration cannot make a valid request
	KindBudget                      // the run's cost budget (--max-cost) is spent: no request was sent
)

// kinds is each kind's name, as logs and notices print it, and its retry
// class ("": not retried). The transport, server_error and idle kinds
// are all "transient" to a reader.
var kinds = [...]struct{ name, class string }{
	KindPermanent:       {"permanent", ""},
	KindCanceled:        {"canceled", ""},
	KindTransport:       {"transient", provider.ClassTransport},
	KindServerError:     {"transient", provider.ClassServerError},
	KindIdle:            {"transient", provider.ClassIdle},
	KindConnect:         {"connect", provider.ClassTransport},
	KindRateLimited:     {"rate_limited", provider.ClassRateLimit},
	KindOverloaded:      {"overloaded", provider.ClassOverloaded},
	KindAuth:            {"auth", ""},
	KindUpgradeRequired: {"upgrade_required", ""},
	KindContextWindow:   {"context_window", ""},
	KindQuota:           {"quota", ""},
	KindUsageLimit:      {"usage_limit", ""},
	KindInvalidRequest:  {"invalid_request", ""},
	KindConfig:          {"config", ""},
	KindBudget:          {"budget", ""},
}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kinds) {
		return kinds[k].name
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Class is the retry class (provider.Class*) of a retryable kind, "" for
// one that is not retried.
func (k Kind) Class() string {
	if k >= 0 && int(k) < len(kinds) {
		return kinds[k].class
	}
	return ""
}

// Failure is a classified error.
type Failure struct {
	// Kind is the verdict: what the failure means and, when it is
	// retryable, its retry class.
	Kind Kind
	// Delay is the server's requested wait, zero when it gave none.
	Delay time.Duration
	// Status is the HTTP status involved, or 0.
	Status int
	// Code is the API error code (e.g. "rate_limit_exceeded"), if any.
	Code string
	// Message is the server's human message, if any.
	Message string
	// Advice says what to change, for a failure the same input reproduces
	// (from the code's [CodeRule]); "" when there is nothing to say.
	Advice string
	// Local is the address of a connection refused on this machine (a
	// loopback port nothing listens on: a local server not running), ""
	// for any other failure.
	Local string
	// RequestID is the server's request id, if known.
	RequestID string
	// ResetsAt is when a usage limit resets, zero when unknown.
	ResetsAt time.Time
	// Err is the classified error.
	Err error
}

// Class is f's retry class (provider.Class*), "" when it is not retried.
func (f Failure) Class() string { return f.Kind.Class() }

// Retryable reports whether some retry layer may try f again: it has a
// retry class.
func (f Failure) Retryable() bool { return f.Class() != "" }

// Behaviour is what f's retry class does, from the retry policy table
// (the zero value when f is not retried).
func (f Failure) Behaviour() provider.ClassBehaviour { return provider.Behaviour(f.Class()) }

// Unreachable reports whether no connection to the server could be made
// at all: the connection layer's to wait for, when it is on.
func (f Failure) Unreachable() bool { return f.Kind == KindConnect }

// ProviderDown reports whether f says this provider cannot serve the turn
// now, so another provider may: a transient class that outlasted its
// budgets (server errors, cut streams, connection failures, rate limits,
// overload) or a usage or quota limit. Never auth, an invalid request, a
// full context window or a cancellation: another provider would not help.
func (f Failure) ProviderDown() bool {
	switch f.Kind {
	case KindTransport, KindServerError, KindIdle, KindConnect, KindRateLimited, KindOverloaded, KindQuota, KindUsageLimit:
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
	var ce *transport.CloseError
	if errors.As(f.Err, &ce) && ce.Code == closeMessageTooBig {
		return true // the request does not fit a WebSocket message there: HTTPS carries it
	}
	if !errors.As(f.Err, &he) || !errors.As(he.Err, &st) {
		return false
	}
	switch s := st.StatusCode; {
	case s == http.StatusUnauthorized, s == http.StatusRequestTimeout, s == http.StatusTooManyRequests, s >= 500:
		return false
	}
	return true
}

// closeMessageTooBig is WebSocket close code 1009: the server will not
// take a message this large. The reference client falls back to HTTPS at
// once.
const closeMessageTooBig = 1009

// ResponsesCode is the error code the Responses API gives a failure of
// f's kind, for a failure of another wire told to a Responses client
// (agent proxy's bridge): Anthropic's overloaded_error is
// server_is_overloaded there, a rate limit rate_limit_exceeded, ...; f's
// own code otherwise, server_error when it has none.
func (f Failure) ResponsesCode() string {
	switch f.Kind {
	case KindOverloaded:
		return "server_is_overloaded"
	case KindRateLimited:
		return "rate_limit_exceeded"
	case KindContextWindow:
		return "context_length_exceeded"
	case KindQuota:
		return "insufficient_quota"
	}
	if f.Code != "" {
		return f.Code
	}
	return "server_error"
}

// Reason is a short human description used in retry notices.
func (f Failure) Reason() string {
	var (
		re    *transport.ReadError
		op    *net.OpError
		ce    *transport.ConnectError
		early *transport.ClosedEarlyError
	)
	switch {
	case errors.As(f.Err, &early):
		return "stream closed before " + early.End
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
	case f.Status != 0 && strings.HasPrefix(f.Message, strconv.Itoa(f.Status)+" "):
		return f.Message // an error page's title ("502 Bad Gateway") names its status
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

func failure(k Kind, err error) Failure { return Failure{Kind: k, Err: err} }

// classifiedError carries the [Failure] of an error, computed once where
// the error arose, so every layer that judges it reads the same verdict.
type classifiedError struct{ f Failure }

func (e *classifiedError) Error() string { return e.f.Err.Error() }
func (e *classifiedError) Unwrap() error { return e.f.Err }

// classified wraps err with its classification on the clock now (nil
// stays nil; an error already classified is returned as it is).
func classified(err error, now func() time.Time) error {
	var ce *classifiedError
	if err == nil || errors.As(err, &ce) {
		return err
	}
	return &classifiedError{f: ClassifyAt(err, now)}
}

// Classify sorts err into a [Failure]. It never matches error strings of
// other packages: it reads typed transport errors, status codes, API error
// codes and server bodies. An error classified where it arose keeps that
// verdict (a cancellation in its chain still wins). Server times (an
// HTTP-date Retry-After, a usage limit's resets_in_seconds) are read on
// the wall clock; [ClassifyAt] takes the clock.
func Classify(err error) Failure { return ClassifyAt(err, time.Now) }

// ClassifyAt is [Classify] on the clock now, which turns the server's
// times into delays and reset times. The model client classifies every
// error where it arises on its own clock ([Options].Now).
func ClassifyAt(err error, now func() time.Time) Failure {
	var (
		ce         *classifiedError
		outcome    *Outcome
		header     *HeaderError
		httpErr    *transport.HTTPError
		apiErr     *transport.APIError
		incomplete *transport.IncompleteError
		connErr    *transport.ConnectError
		readErr    *transport.ReadError
		page       *transport.PageError
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
	case untrustedCertificate(err):
		return Failure{Kind: KindPermanent, Message: "the server's TLS certificate is not trusted: " + certErrText(err),
			Advice: adviceCertificate, Err: err}
	case errors.As(err, &header):
		k := KindConfig
		if header.Credential {
			k = KindAuth
		}
		return Failure{Kind: k, Message: header.Error(), Err: err}
	case errors.Is(err, transport.ErrEventTooLarge):
		return Failure{Kind: KindPermanent, Message: err.Error(), Advice: adviceEventLimit, Err: err}
	case errors.As(err, &refused):
		// The login must be renewed by hand: the message says how.
		return Failure{Kind: KindAuth, Message: refused.Error(), Err: err}
	case errors.As(err, &command):
		return Failure{Kind: KindAuth, Message: command.Error(), Err: err}
	case errors.As(err, &refreshErr):
		if refreshErr.StatusCode >= 500 {
			return failure(KindServerError, err)
		}
		return failure(KindTransport, err)
	case errors.Is(err, transport.ErrStreamIdle) || errors.Is(err, transport.ErrNoProgress):
		return failure(KindIdle, err)
	case errors.Is(err, transport.ErrIncomplete) || errors.Is(err, transport.ErrUnexpectedBinary) ||
		errors.Is(err, transport.ErrHandshakeTimeout) || errors.As(err, &closeErr):
		return failure(KindTransport, err)
	case errors.As(err, &connErr):
		f := failure(KindConnect, err)
		if addr, ok := localRefused(err); ok {
			f.Local, f.Advice = addr, notListening(addr)
		}
		return f
	case errors.As(err, &readErr):
		return failure(KindTransport, err)
	case errors.As(err, &page):
		// Retrying asks the same page again: say what it is at once.
		f := failure(KindPermanent, err)
		f.Message = "the server answered with an HTML page, not an event stream: " + bodyText(page.Body)
		f.Advice = "a login page of a proxy or network in the way, or a base_url that is not the API: check base_url and the network"
		return f
	case errors.As(err, &incomplete):
		f := failure(KindServerError, err)
		if r, ok := ruleFor(incomplete.Reason); ok {
			f = r.apply(f) // a cut the same input reproduces
		}
		f.Code, f.Message = incomplete.Reason, incomplete.Error()
		return f
	case errors.As(err, &decodeErr):
		return failure(KindServerError, err)
	case errors.As(err, &httpErr):
		return classifyHTTP(httpErr, err, now)
	case errors.As(err, &apiErr):
		return classifyAPI(apiErr, err, now)
	}
	return Failure{Kind: KindPermanent, Err: err}
}

// apiBody is an error body: OpenAI's shape and the others
// ([transport.ErrorBody]: Ollama's string, numeric codes, OpenRouter's
// metadata), with the top-level message of older vLLM ({"object":"error","message":...}) and FastAPI's "detail".
type apiBody struct {
	Error   transport.ErrorBody `json:"error"` // every server's shape
	Message json.RawMessage     `json:"message"`
	Detail  json.RawMessage     `json:"detail"`
}

// message is the body's human message: the error's, else a top-level
// string message or detail.
func (b apiBody) message() string {
	if b.Error.Message != "" {
		return b.Error.Message
	}
	for _, raw := range []json.RawMessage{b.Message, b.Detail} {
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// jsonMessage is the message of a JSON error body of a shape apiBody does
// not know: the first string under a key that names one (message, error,
// msg, detail, title, description), searched breadth-first through
// objects and lists, else the whole body on one line (at most 200 bytes).
// "" when the body is not JSON.
func jsonMessage(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	keys := []string{"message", "error", "msg", "detail", "title", "error_description", "description"}
	for level := []any{v}; len(level) > 0; {
		var next []any
		for _, x := range level {
			switch x := x.(type) {
			case map[string]any:
				for _, k := range keys {
					if s, ok := x[k].(string); ok && strings.TrimSpace(s) != "" {
						return strings.TrimSpace(s)
					}
				}
				for _, k := range slices.Sorted(maps.Keys(x)) {
					next = append(next, x[k])
				}
			case []any:
				next = append(next, x...)
			}
		}
		level = next
	}
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return ""
	}
	s := out.String()
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func classifyHTTP(e *transport.HTTPError, err error, now func() time.Time) Failure {
	var body apiBody
	_ = json.Unmarshal(e.Body, &body) // not every server sends JSON
	code := body.Error.Code
	msg := body.message()
	if msg == "" {
		msg = jsonMessage(e.Body)
	}
	if msg == "" {
		msg = bodyText(e.Body)
	}
	f := Failure{Status: e.StatusCode, Code: code, Message: msg, RequestID: e.RequestID(), Err: err}
	if d, ok := headerDelay(e.Header, now()); ok {
		f.Delay = d
	} else if d, ok := rateLimitReset(e.Header, now()); ok && e.StatusCode == http.StatusTooManyRequests {
		f.Delay = d
	} else if d, ok := bodyDelay(msg); ok {
		f.Delay = d
	}
	typ := body.Error.Type
	final, isFinal := ruleFor(code)
	isFinal = isFinal && !final.Retryable()
	switch s := e.StatusCode; {
	case s == http.StatusUnauthorized:
		f.Kind = KindAuth
	case s == http.StatusUpgradeRequired:
		f.Kind = KindUpgradeRequired
	case s == http.StatusTooManyRequests && (typ == "usage_limit_reached" || code == "usage_limit_reached"):
		f.Kind = KindUsageLimit
		switch {
		case body.Error.ResetsAt > 0:
			f.ResetsAt = time.Unix(body.Error.ResetsAt, 0)
		case body.Error.ResetsIn > 0:
			f.ResetsAt = now().Add(time.Duration(body.Error.ResetsIn) * time.Second)
		}
	case isFinal:
		f = final.apply(f) // what the input reproduces, whatever the status
	case isContextWindow(typ, msg) && s < 500:
		f.Kind = KindContextWindow
	case s == http.StatusPaymentRequired: // OpenRouter's credits, a gateway's budget
		f.Kind = KindQuota
	case typ == "insufficient_quota" || typ == "usage_not_included":
		f.Kind = KindQuota
	case isOverloaded(s, code, msg):
		f.Kind = KindOverloaded
	case s == http.StatusTooManyRequests:
		f.Kind = KindRateLimited
	case s == http.StatusRequestTimeout || s == http.StatusConflict:
		f.Kind = KindTransport
	case s >= 500:
		f.Kind = KindServerError
	case s == http.StatusBadRequest || s == http.StatusUnprocessableEntity:
		f.Kind = KindInvalidRequest
	default: // 403, 404, 405, 413, ...: asking again cannot help
		f.Kind = KindPermanent
		if s == http.StatusNotFound && strings.TrimSpace(string(e.Body)) == "404 page not found" {
			f.Message, f.Advice = "page not found", adviceNoResponsesAPI
		}
	}
	return f
}

// adviceNoResponsesAPI explains a plain-text 404 from the server's router
// (an Ollama before its Responses API, any Go server).
const adviceNoResponsesAPI = "this server does not serve the Responses API at base_url " +
	"(Ollama serves it from 0.13.3: upgrade it, or check base_url)"

// adviceEventLimit is what to do about an event larger than the limit,
// when the provider is not known (see [Client.eventLimit]).
const adviceEventLimit = "raise stream_max_event_bytes in the provider's [model_providers.<id>] table of config.toml"

// adviceCertificate is what to do about a certificate no trusted root
// signs: retrying cannot change it.
const adviceCertificate = "if a proxy or a private CA signs it, point ca_certificate in config.toml " +
	"(or the CODEX_CA_CERTIFICATE or SSL_CERT_FILE variable) at that CA's PEM file"

// untrustedCertificate reports whether err is a TLS certificate that did
// not verify: signed by an unknown authority, for another host name,
// expired or otherwise invalid.
func untrustedCertificate(err error) bool {
	var (
		verify  *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid)
}

// certErrText is the verification's own words (not the request's URL).
func certErrText(err error) string {
	var verify *tls.CertificateVerificationError
	if errors.As(err, &verify) && verify.Err != nil {
		return verify.Err.Error()
	}
	return err.Error()
}

// bodyText is a non-JSON body as one line fit for a notice: an HTML
// page's title (else its first line of text), else the body's first
// line, at most 200 bytes.
func bodyText(b []byte) string {
	s := strings.TrimSpace(string(b))
	if low := strings.ToLower(s); strings.HasPrefix(low, "<") {
		if i := strings.Index(low, "<title"); i >= 0 {
			if j := strings.IndexByte(low[i:], '>'); j >= 0 {
				rest := s[i+j+1:]
				if k := strings.Index(strings.ToLower(rest), "</title"); k >= 0 {
					s = rest[:k]
				}
			}
		}
		s = htmlText(s)
	}
	for _, line := range strings.Split(s, "\n") {
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			s = line
			break
		}
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// htmlText drops the tags of an HTML fragment and decodes its entities.
func htmlText(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
			b.WriteByte('\n')
		case !in:
			b.WriteRune(r)
		}
	}
	return html.UnescapeString(b.String())
}

func classifyAPI(e *transport.APIError, err error, now func() time.Time) Failure {
	status := e.Status
	if n, convErr := strconv.Atoi(e.Code); convErr == nil && status == 0 && n >= 400 && n <= 599 {
		status = n // an older vLLM sends its HTTP status as the code
	}
	if r, ok := ruleFor(e.Code); ok && r.Kind == KindTransport {
		// The connection (and its response chain) is gone: a fresh
		// connection with the full request will do, whatever the status.
		return r.apply(Failure{Code: e.Code, Message: e.Message, Status: e.Status, Err: err})
	}
	if status != 0 {
		// A WebSocket-wrapped HTTP error: judge it like the HTTP answer.
		body, _ := json.Marshal(map[string]any{"error": map[string]string{
			"type": e.Type, "code": e.Code, "message": e.Message,
		}})
		return classifyHTTP(&transport.HTTPError{StatusCode: status, Header: http.Header{}, Body: body}, err, now)
	}
	f := Failure{Code: e.Code, Message: e.Message, Err: err}
	if d, ok := bodyDelay(e.Message); ok {
		f.Delay = d
	}
	r, ok := ruleFor(e.Code)
	if !ok {
		r, ok = ruleFor(e.Type)
	}
	if ok && !r.Retryable() {
		return r.apply(f)
	}
	if isOverloaded(0, e.Code, e.Message) {
		return rule(e.Code, KindOverloaded, "").apply(f)
	}
	if ok {
		return r.apply(f)
	}
	// Unknown codes: the reference client retries them, and so do we.
	return rule(e.Code, KindServerError, "").apply(f)
}

// CodeRule is what one API error code means wherever it arrives: an HTTP
// error body, an error event (either form), response.failed, or the reason
// of response.incomplete. A rule with a retry class is retried on that
// class's schedule; one without is final: the same input reproduces it,
// so the turn ends at once with the server's message and the advice.
type CodeRule struct {
	Code string
	// Kind is the verdict; its retry class ("" is final) is [CodeRule.Class].
	Kind Kind
	// Advice says what to change, "" when the message says it all.
	Advice string
}

// Class is the retry class of the rule's failures; "" is final.
func (r CodeRule) Class() string { return r.Kind.Class() }

// Retryable reports whether the rule's failures are retried.
func (r CodeRule) Retryable() bool { return r.Class() != "" }

func rule(code string, k Kind, advice string) CodeRule {
	return CodeRule{Code: code, Kind: k, Advice: advice}
}

// apply gives f the rule's verdict.
func (r CodeRule) apply(f Failure) Failure {
	f.Kind, f.Advice = r.Kind, r.Advice
	return f
}

// The advice of the codes that come from the input itself.
const (
	adviceImage = "an attached image was refused: remove it or attach it again as PNG, JPEG, WEBP or non-animated GIF " +
		"under 50 MB (`-i FILE`)"
	adviceImageURL  = "an image URL could not be fetched by the provider: attach the file itself (`-i FILE`) or use a public https URL"
	advicePolicy    = "the provider's usage policy refused the request: rephrase it; sending it again gets the same answer"
	adviceResidency = "the project's data residency does not allow this endpoint: use the base_url of the project's region"
	adviceFilter    = "the provider's content filter stopped the response: rephrase the request"
	adviceTooLarge  = "the request is larger than the API takes: attach fewer or smaller images, or /compact the conversation"
	adviceMaxTokens = "the response reached the server's output token limit before it answered: ask for less at a time"
)

// CodeRules is the one table of error codes: every code agent knows, its
// kind and whether it is retried. Codes not in it are retried as server
// errors, as the reference client does. docs/failure-behaviour.md lists it.
func CodeRules() []CodeRule {
	const inv = KindInvalidRequest
	rules := []CodeRule{
		rule("server_error", KindServerError, ""),
		rule("vector_store_timeout", KindServerError, ""),
		rule("rate_limit_exceeded", KindRateLimited, ""),
		rule("server_is_overloaded", KindOverloaded, ""),
		rule("slow_down", KindOverloaded, ""),
		rule("websocket_connection_limit_reached", KindTransport, ""),
		rule("previous_response_not_found", KindTransport, ""),
		rule("context_length_exceeded", KindContextWindow, ""),
		rule("insufficient_quota", KindQuota, ""),
		rule("usage_not_included", KindQuota, ""),
		rule("usage_limit_reached", KindUsageLimit, ""),
		rule("invalid_request_error", inv, ""),
		rule("invalid_prompt", inv, advicePolicy),
		rule("bio_policy", inv, advicePolicy),
		rule("cyber_policy", inv, advicePolicy),
		rule("misalignment_policy_violation", inv, advicePolicy),
		rule("data_residency_mismatch", inv, adviceResidency),
		rule("failed_to_download_image", inv, adviceImageURL),
		rule("invalid_image_url", inv, adviceImageURL),
		rule("image_file_not_found", inv, adviceImageURL),
		// Anthropic's error types, its errors' only code.
		rule("overloaded_error", KindOverloaded, ""),
		rule("rate_limit_error", KindRateLimited, ""),
		rule("api_error", KindServerError, ""),
		rule("timeout_error", KindServerError, ""),
		rule("billing_error", KindQuota, ""),
		rule("request_too_large", KindPermanent, adviceTooLarge),
		rule("content_filter", KindPermanent, adviceFilter),
		rule("max_output_tokens", KindPermanent, adviceMaxTokens),
	}
	for _, c := range []string{"invalid_image", "invalid_image_format", "invalid_base64_image", "image_too_large",
		"image_too_small", "image_parse_error", "image_content_policy_violation", "invalid_image_mode",
		"image_file_too_large", "unsupported_image_media_type", "empty_image_file"} {
		rules = append(rules, rule(c, inv, adviceImage))
	}
	return rules
}

// ruleFor returns the rule of code, if the table has one.
func ruleFor(code string) (CodeRule, bool) {
	if code == "" {
		return CodeRule{}, false
	}
	for _, r := range CodeRules() {
		if r.Code == code {
			return r, true
		}
	}
	return CodeRule{}, false
}

// localRefused returns the address of a connection a loopback address
// refused, if err is one.
func localRefused(err error) (string, bool) {
	var op *net.OpError
	if !errors.Is(err, syscall.ECONNREFUSED) || !errors.As(err, &op) || op.Addr == nil {
		return "", false
	}
	host, _, splitErr := net.SplitHostPort(op.Addr.String())
	if ip := net.ParseIP(host); splitErr != nil || ip == nil || !ip.IsLoopback() {
		return "", false
	}
	return op.Addr.String(), true
}

// notListening says that nothing listens at addr on this machine, and
// what usually does on its port.
func notListening(addr string) string {
	msg := "nothing is listening at " + addr + " on this machine"
	_, port, _ := net.SplitHostPort(addr)
	switch port {
	case "11434":
		return msg + ": is Ollama running? (start it with `ollama serve`)"
	case "1234":
		return msg + ": is LM Studio's server running? (`lms server start`)"
	case "8000":
		return msg + ": is vLLM running? (`vllm serve MODEL`)"
	case "4000":
		return msg + ": is the LiteLLM proxy running?"
	case "8787": // agent proxy's default listen address
		return msg + ": is `agent proxy` running?"
	}
	return msg + ": is the server at base_url running?"
}

// isContextWindow reports whether an error says the prompt is larger
// than the model's context, as servers without OpenAI's
// context_length_exceeded code say it: llama.cpp's type, vLLM's,
// LiteLLM's and Anthropic's message.
func isContextWindow(typ, msg string) bool {
	if typ == "exceed_context_size_error" {
		return true
	}
	m := strings.ToLower(msg)
	return strings.Contains(m, "maximum context length") || strings.Contains(m, "exceeds the available context size") ||
		strings.Contains(m, "prompt is too long") || strings.Contains(m, "exceed context limit") ||
		strings.Contains(m, "context length exceeded") || strings.Contains(m, "context_length_exceeded")
}

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

// rateLimitReset reads the anthropic-ratelimit-*-reset headers (RFC 3339
// times) of the limits a 429 found spent (their -remaining is 0), for an
// answer without Retry-After: the wait until the last of them resets.
func rateLimitReset(h http.Header, now time.Time) (time.Duration, bool) {
	var until time.Time
	for _, l := range [...]string{"requests", "tokens", "input-tokens", "output-tokens"} {
		if strings.TrimSpace(h.Get("anthropic-ratelimit-"+l+"-remaining")) != "0" {
			continue
		}
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(h.Get("anthropic-ratelimit-"+l+"-reset")))
		if err == nil && t.After(until) {
			until = t
		}
	}
	if until.IsZero() {
		return 0, false
	}
	return max(until.Sub(now), 0), true
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
