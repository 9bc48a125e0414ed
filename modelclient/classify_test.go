package modelclient_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

func httpErr(status int, body string, kv ...string) error {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return &transport.HTTPError{StatusCode: status, Header: h, Body: []byte(body)}
}

func apiErr(code, msg string) error {
	return &transport.APIError{Event: "response.failed", Code: code, Message: msg}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		kind      modelclient.Kind
		class     string
		retryable bool
		delay     time.Duration
	}{
		{"canceled", fmt.Errorf("x: %w", context.Canceled), modelclient.KindCanceled, "", false, 0},
		{"event too large", transport.ErrEventTooLarge, modelclient.KindPermanent, "", false, 0},
		{"credential with a line break", &modelclient.HeaderError{Header: "Authorization", Source: "env", Credential: true}, modelclient.KindAuth, "", false, 0},
		{"configured header with CR/LF", &modelclient.HeaderError{Header: "X-Team", Source: "config"}, modelclient.KindConfig, "", false, 0},
		{"eof before completed", transport.ErrIncomplete, modelclient.KindTransport, provider.ClassTransport, true, 0},
		{"idle", transport.ErrStreamIdle, modelclient.KindIdle, provider.ClassIdle, true, 0},
		{"no progress", transport.ErrNoProgress, modelclient.KindIdle, provider.ClassIdle, true, 0},
		{"connect", &transport.ConnectError{Err: errors.New("refused")}, modelclient.KindConnect, provider.ClassTransport, true, 0},
		{"reset", &transport.ReadError{Err: errors.New("reset")}, modelclient.KindTransport, provider.ClassTransport, true, 0},
		{"incomplete", &transport.IncompleteError{Reason: "x"}, modelclient.KindServerError, provider.ClassServerError, true, 0},
		{"500", httpErr(500, ""), modelclient.KindServerError, provider.ClassServerError, true, 0},
		{"502", httpErr(502, "bad gateway"), modelclient.KindServerError, provider.ClassServerError, true, 0},
		{"503 at capacity", httpErr(503, `{"error":{"message":"Selected model is at capacity. Please try a different model."}}`), modelclient.KindOverloaded, provider.ClassOverloaded, true, 0},
		{"503 overloaded code", httpErr(503, `{"error":{"code":"server_is_overloaded","message":"x"}}`), modelclient.KindOverloaded, provider.ClassOverloaded, true, 0},
		{"529", httpErr(529, ""), modelclient.KindOverloaded, provider.ClassOverloaded, true, 0},
		{"429 retry-after seconds", httpErr(429, "", "Retry-After", "2"), modelclient.KindRateLimited, provider.ClassRateLimit, true, 2 * time.Second},
		{"429 retry-after-ms wins", httpErr(429, "", "Retry-After", "2", "Retry-After-Ms", "1500"), modelclient.KindRateLimited, provider.ClassRateLimit, true, 1500 * time.Millisecond},
		{"429 body hint", httpErr(429, `{"error":{"message":"Rate limit reached. Please try again in 11.054s."}}`), modelclient.KindRateLimited, provider.ClassRateLimit, true, 11054 * time.Millisecond},
		{"429 quota", httpErr(429, `{"error":{"type":"insufficient_quota","code":"insufficient_quota"}}`), modelclient.KindQuota, "", false, 0},
		{"429 usage limit", httpErr(429, `{"error":{"type":"usage_limit_reached","resets_at":1900000000}}`), modelclient.KindUsageLimit, "", false, 0},
		{"400", httpErr(400, `{"error":{"message":"bad"}}`), modelclient.KindInvalidRequest, "", false, 0},
		{"400 context", httpErr(400, `{"error":{"code":"context_length_exceeded"}}`), modelclient.KindContextWindow, "", false, 0},
		{"401", httpErr(401, ""), modelclient.KindAuth, "", false, 0},
		{"403", httpErr(403, "Cloudflare blocked"), modelclient.KindPermanent, "", false, 0},
		{"404", httpErr(404, ""), modelclient.KindPermanent, "", false, 0},
		{"426", httpErr(426, ""), modelclient.KindUpgradeRequired, "", false, 0},
		{"408", httpErr(408, ""), modelclient.KindTransport, provider.ClassTransport, true, 0},
		{"failed context", apiErr("context_length_exceeded", "too long"), modelclient.KindContextWindow, "", false, 0},
		{"failed quota", apiErr("insufficient_quota", ""), modelclient.KindQuota, "", false, 0},
		{"failed usage not included", apiErr("usage_not_included", ""), modelclient.KindQuota, "", false, 0},
		{"failed invalid prompt", apiErr("invalid_prompt", "no"), modelclient.KindInvalidRequest, "", false, 0},
		{"failed cyber", apiErr("cyber_policy", ""), modelclient.KindInvalidRequest, "", false, 0},
		{"failed overloaded", apiErr("server_is_overloaded", ""), modelclient.KindOverloaded, provider.ClassOverloaded, true, 0},
		{"failed slow down", apiErr("slow_down", ""), modelclient.KindOverloaded, provider.ClassOverloaded, true, 0},
		{"failed rate limit hint", apiErr("rate_limit_exceeded", "Please try again in 1.5s."), modelclient.KindRateLimited, provider.ClassRateLimit, true, 1500 * time.Millisecond},
		{"failed rate limit ms", apiErr("rate_limit_exceeded", "try again in 28ms"), modelclient.KindRateLimited, provider.ClassRateLimit, true, 28 * time.Millisecond},
		{"failed rate limit azure", apiErr("rate_limit_exceeded", "Try again in 35 seconds."), modelclient.KindRateLimited, provider.ClassRateLimit, true, 35 * time.Second},
		{"failed server error", apiErr("server_error", "oops"), modelclient.KindServerError, provider.ClassServerError, true, 0},
		{"failed unknown code", apiErr("brand_new_code", ""), modelclient.KindServerError, provider.ClassServerError, true, 0},
		{"ws wrapped 429", &transport.APIError{Event: "error", Status: 429, Code: "rate_limit_exceeded"}, modelclient.KindRateLimited, provider.ClassRateLimit, true, 0},
		{"ws connection limit", &transport.APIError{Event: "error", Status: 400, Code: "websocket_connection_limit_reached"}, modelclient.KindTransport, provider.ClassTransport, true, 0},
		{"ws previous response gone", &transport.APIError{Event: "error", Status: 400, Code: "previous_response_not_found"}, modelclient.KindTransport, provider.ClassTransport, true, 0},
		{"ws close frame", &transport.CloseError{Code: 1011}, modelclient.KindTransport, provider.ClassTransport, true, 0},
		{"ws binary frame", transport.ErrUnexpectedBinary, modelclient.KindTransport, provider.ClassTransport, true, 0},
		{"ws handshake timeout", &transport.HandshakeError{Err: transport.ErrHandshakeTimeout}, modelclient.KindTransport, provider.ClassTransport, true, 0},
		{"ws handshake 426", &transport.HandshakeError{Err: &transport.HTTPError{StatusCode: 426, Header: http.Header{}}}, modelclient.KindUpgradeRequired, "", false, 0},
		{"unknown error", errors.New("weird"), modelclient.KindPermanent, "", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := modelclient.Classify(tt.err)
			if f.Kind != tt.kind || f.Class() != tt.class || f.Retryable() != tt.retryable || f.Delay != tt.delay {
				t.Errorf("Classify(%v) = {%v %q retryable=%v delay=%v}; want {%v %q %v %v}",
					tt.err, f.Kind, f.Class(), f.Retryable(), f.Delay, tt.kind, tt.class, tt.retryable, tt.delay)
			}
		})
	}
}

func TestClassifyRetryAfterDate(t *testing.T) {
	at := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	f := modelclient.Classify(httpErr(503, "", "Retry-After", at))
	if f.Delay < 85*time.Second || f.Delay > 91*time.Second {
		t.Errorf("Retry-After date delay = %v; want about 90s", f.Delay)
	}
}

func TestClassifyUsageLimitResetsAt(t *testing.T) {
	f := modelclient.Classify(httpErr(429, `{"error":{"type":"usage_limit_reached","resets_at":1900000000}}`))
	if !f.ResetsAt.Equal(time.Unix(1900000000, 0)) {
		t.Errorf("ResetsAt = %v", f.ResetsAt)
	}
}

// TestWebSocketUnavailable: which handshake answers end WebSocket for the
// session at once (the server does not upgrade) and which are retried or
// recovered like any request; a POST's answer is never about WebSocket.
func TestWebSocketUnavailable(t *testing.T) {
	hs := func(status int) error {
		return &transport.HandshakeError{Err: &transport.HTTPError{StatusCode: status, Header: http.Header{}}}
	}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"426", hs(426), true},
		{"404", hs(404), true},
		{"405", hs(405), true},
		{"400", hs(400), true},
		{"200 without upgrade", hs(200), true},
		{"401", hs(401), false},
		{"408", hs(408), false},
		{"429", hs(429), false},
		{"500", hs(500), false},
		{"503", hs(503), false},
		{"handshake timeout", &transport.HandshakeError{Err: transport.ErrHandshakeTimeout}, false},
		{"404 on a POST", &transport.HTTPError{StatusCode: 404, Header: http.Header{}}, false},
		{"classified 426", fmt.Errorf("wrapped: %w", hs(426)), true},
	} {
		if got := modelclient.Classify(c.err).WebSocketUnavailable(); got != c.want {
			t.Errorf("%s: WebSocketUnavailable = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCodeRulesEverywhere: a code means the same in an HTTP error body,
// either form of an error event and response.failed; what the input
// reproduces is final, with advice.
func TestCodeRulesEverywhere(t *testing.T) {
	for _, r := range modelclient.CodeRules() {
		if r.Code == "max_output_tokens" || r.Code == "content_filter" {
			f := modelclient.Classify(&transport.IncompleteError{Reason: r.Code})
			if f.Retryable() || f.Advice == "" {
				t.Errorf("incomplete %s: retryable %v advice %q; want final with advice", r.Code, f.Retryable(), f.Advice)
			}
			continue
		}
		forms := map[string]error{
			"response.failed": apiErr(r.Code, "m"),
			"error event":     &transport.APIError{Event: "error", Code: r.Code, Message: "m"},
			"http 400":        httpErr(400, `{"error":{"code":"`+r.Code+`","message":"m"}}`),
		}
		for form, err := range forms {
			f := modelclient.Classify(err)
			if form == "http 400" && r.Retryable() {
				continue // a 400 is judged by its status unless the code is final
			}
			if f.Kind != r.Kind || f.Retryable() != r.Retryable() || f.Advice != r.Advice {
				t.Errorf("%s %s = %v retryable %v advice %q; want %v %v %q", form, r.Code, f.Kind, f.Retryable(), f.Advice, r.Kind, r.Retryable(), r.Advice)
			}
		}
	}
	for _, c := range []string{"invalid_image", "image_too_large", "data_residency_mismatch", "bio_policy", "invalid_prompt"} {
		if f := modelclient.Classify(apiErr(c, "m")); f.Retryable() || f.Advice == "" {
			t.Errorf("%s: retryable %v advice %q; want final, with advice", c, f.Retryable(), f.Advice)
		}
	}
	if f := modelclient.Classify(&transport.IncompleteError{Reason: "other"}); !f.Retryable() {
		t.Error("an incomplete response for another reason is retried")
	}
}

// TestHTTPMessages: what a notice quotes of a body that is not OpenAI's.
func TestHTTPMessages(t *testing.T) {
	for _, tt := range []struct{ name, body, msg, advice string }{
		{"an HTML error page: its title", "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway &amp; co</title></head><body><h1>nginx</h1></body></html>", "502 Bad Gateway & co", ""},
		{"an HTML page without a title: its first text", "<html><body>\n<h1>Service Unavailable</h1><p>later</p></body></html>", "Service Unavailable", ""},
		{"older vLLM: a top-level message", "{\n  \"object\": \"error\",\n  \"message\": \"The model `x` does not exist.\",\n  \"type\": \"NotFoundError\",\n  \"param\": null,\n  \"code\": 404\n}", "The model `x` does not exist.", ""},
		{"FastAPI's detail", `{"detail":"Not Found"}`, "Not Found", ""},
		{"an Ollama before its Responses API", "404 page not found", "page not found", "Ollama"},
	} {
		f := modelclient.Classify(httpErr(404, tt.body))
		if f.Message != tt.msg || !strings.Contains(f.Advice, tt.advice) || (tt.advice == "") != (f.Advice == "") {
			t.Errorf("%s: message %q advice %q; want %q, advice with %q", tt.name, f.Message, f.Advice, tt.msg, tt.advice)
		}
	}
}

// TestLocalRefused: a loopback port nothing listens on is named, with
// what usually listens there; a remote host's refusal is not.
func TestLocalRefused(t *testing.T) {
	refused := func(ip string, port int) error {
		return &transport.ConnectError{Err: &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.ParseIP(ip), Port: port},
			Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	}
	f := modelclient.Classify(refused("127.0.0.1", 11434))
	if f.Kind != modelclient.KindConnect || f.Local != "127.0.0.1:11434" || !strings.Contains(f.Advice, "is Ollama running?") {
		t.Errorf("loopback 11434: %v local %q advice %q", f.Kind, f.Local, f.Advice)
	}
	if f := modelclient.Classify(refused("::1", 1234)); !strings.Contains(f.Advice, "LM Studio") {
		t.Errorf("::1 port 1234: advice %q", f.Advice)
	}
	if f := modelclient.Classify(refused("10.1.2.3", 11434)); f.Local != "" || f.Advice != "" {
		t.Errorf("a remote host: local %q advice %q; want neither", f.Local, f.Advice)
	}
}
