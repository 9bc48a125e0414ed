package modelclient_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/transport"
)

func TestClassifyResponse(t *testing.T) {
	kw := modelclient.DefaultKeywords()
	tests := []struct {
		name      string
		status    int
		header    []string
		body      string
		kw        *modelclient.Keywords // nil: the defaults
		failure   bool
		kind      modelclient.Kind
		class     string
		retryable bool
		delay     time.Duration
	}{
		{name: "200 stream", status: 200, body: "data: {}\n\n"},
		{name: "200 json answer mentioning rate limits", status: 200,
			body: `{"output":[{"content":[{"text":"rate limit overloaded at capacity"}]}]}`},
		{name: "200 error null", status: 200, body: `{"id":"r1","error":null}`},
		{name: "200 with error object", status: 200, body: `{"error":{"message":"Service is overloaded"}}`,
			failure: true, kind: modelclient.KindOverloaded, class: provider.ClassOverloaded, retryable: true},
		{name: "200 with unknown error object", status: 200, body: `{"error":{"message":"nope"}}`,
			failure: true, kind: modelclient.KindPermanent},
		{name: "503 at capacity", status: 503, body: `{"error":{"message":"Selected model is at capacity."}}`,
			failure: true, kind: modelclient.KindOverloaded, class: provider.ClassOverloaded, retryable: true},
		{name: "503 plain", status: 503, header: []string{"Retry-After", "2"},
			failure: true, kind: modelclient.KindServerError, class: provider.ClassServerError, retryable: true, delay: 2 * time.Second},
		{name: "502 html", status: 502, body: "<html>bad gateway</html>",
			failure: true, kind: modelclient.KindServerError, class: provider.ClassServerError, retryable: true},
		{name: "429 rate limit hint", status: 429, body: `{"error":{"message":"Rate limit reached. Please try again in 1.5s."}}`,
			failure: true, kind: modelclient.KindRateLimited, class: provider.ClassRateLimit, retryable: true, delay: 1500 * time.Millisecond},
		{name: "429 quota", status: 429, body: `{"error":{"type":"insufficient_quota","code":"insufficient_quota","message":"You exceeded your current quota; rate limit"}}`,
			failure: true, kind: modelclient.KindQuota},
		{name: "400 invalid request", status: 400, body: `{"error":{"type":"invalid_request_error","message":"bad"}}`,
			failure: true, kind: modelclient.KindInvalidRequest},
		{name: "400 with retryable keyword", status: 400, body: `{"error":{"message":"service is overloaded"}}`,
			failure: true, kind: modelclient.KindOverloaded, class: provider.ClassOverloaded, retryable: true},
		{name: "403 too many requests", status: 403, body: "Too Many Requests",
			failure: true, kind: modelclient.KindRateLimited, class: provider.ClassRateLimit, retryable: true},
		{name: "404 temporarily unavailable", status: 404, body: "temporarily unavailable",
			failure: true, kind: modelclient.KindServerError, class: provider.ClassServerError, retryable: true},
		{name: "401", status: 401, body: `{"error":{"message":"Incorrect API key provided"}}`,
			failure: true, kind: modelclient.KindAuth},
		{name: "404 model not found", status: 404, body: `{"error":{"code":"model_not_found","message":"The model x does not exist"}}`,
			failure: true, kind: modelclient.KindPermanent},
		{name: "503 unsupported model beats status", status: 503, body: "unsupported model: overloaded",
			failure: true, kind: modelclient.KindPermanent},
		{name: "500 unknown parameter", status: 500, body: `{"error":{"message":"Unknown parameter: 'foo'"}}`,
			failure: true, kind: modelclient.KindPermanent},
		{name: "400 context window keeps its kind", status: 400, body: `{"error":{"code":"context_length_exceeded"}}`,
			failure: true, kind: modelclient.KindContextWindow},
		{name: "500 unrecognized configuration", status: 500, body: "Unrecognized configuration setting",
			failure: true, kind: modelclient.KindPermanent},
		{name: "custom retryable", status: 400, body: "upstream busy, come back", kw: &modelclient.Keywords{Retryable: []string{"Upstream Busy"}},
			failure: true, kind: modelclient.KindServerError, class: provider.ClassServerError, retryable: true},
		{name: "no keywords", status: 400, body: "overloaded", kw: &modelclient.Keywords{},
			failure: true, kind: modelclient.KindInvalidRequest},
		{name: "custom non-retryable", status: 503, body: "region disabled", kw: &modelclient.Keywords{NonRetryable: []string{"region disabled"}},
			failure: true, kind: modelclient.KindPermanent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for i := 0; i+1 < len(tt.header); i += 2 {
				h.Set(tt.header[i], tt.header[i+1])
			}
			k := kw
			if tt.kw != nil {
				k = *tt.kw
			}
			f := modelclient.ClassifyResponse(tt.status, h, []byte(tt.body), k)
			if got := f.Err != nil; got != tt.failure {
				t.Fatalf("ClassifyResponse(%d, %q) failure = %v; want %v", tt.status, tt.body, got, tt.failure)
			}
			if !tt.failure {
				return
			}
			if f.Kind != tt.kind || f.Class() != tt.class || f.Retryable() != tt.retryable || f.Delay != tt.delay {
				t.Errorf("ClassifyResponse(%d, %q) = {%v %q retryable=%v delay=%v}; want {%v %q %v %v}",
					tt.status, tt.body, f.Kind, f.Class(), f.Retryable(), f.Delay, tt.kind, tt.class, tt.retryable, tt.delay)
			}
			var he *transport.HTTPError
			if !errors.As(f.Err, &he) || he.StatusCode != tt.status {
				t.Errorf("Err = %v; want *transport.HTTPError with status %d", f.Err, tt.status)
			}
			if f.Status != tt.status {
				t.Errorf("Status = %d; want %d", f.Status, tt.status)
			}
		})
	}
}

func TestClassifyEvent(t *testing.T) {
	kw := modelclient.DefaultKeywords()
	tests := []struct {
		name      string
		typ, data string
		isErr     bool
		kind      modelclient.Kind
		class     string
		retryable bool
	}{
		{name: "created", typ: "response.created", data: `{"type":"response.created","response":{"id":"r","error":null}}`},
		{name: "delta mentioning overload", typ: "response.output_text.delta", data: `{"type":"response.output_text.delta","delta":"the server is overloaded"}`},
		{name: "done marker", data: "[DONE]"},
		{name: "chat chunk", data: `{"object":"chat.completion.chunk","choices":[{"delta":{"content":"rate limit"}}]}`},
		{name: "failed server_error", typ: "response.failed",
			data:  `{"type":"response.failed","response":{"id":"r","error":{"code":"server_error","message":"boom"}}}`,
			isErr: true, kind: modelclient.KindServerError, class: provider.ClassServerError, retryable: true},
		{name: "failed at capacity", typ: "response.failed",
			data:  `{"type":"response.failed","response":{"error":{"code":"server_error","message":"Selected model is at capacity"}}}`,
			isErr: true, kind: modelclient.KindOverloaded, class: provider.ClassOverloaded, retryable: true},
		{name: "failed context window", typ: "response.failed",
			data:  `{"type":"response.failed","response":{"error":{"code":"context_length_exceeded","message":"too long"}}}`,
			isErr: true, kind: modelclient.KindContextWindow},
		{name: "error event without name", data: `{"type":"error","error":{"code":"server_error","message":"x"}}`,
			isErr: true, kind: modelclient.KindServerError, class: provider.ClassServerError, retryable: true},
		{name: "error event invalid request", typ: "error", data: `{"type":"error","error":{"type":"invalid_request_error","message":"x"}}`,
			isErr: true, kind: modelclient.KindInvalidRequest},
		{name: "chat error object", data: `{"error":{"code":503,"message":"Service temporarily unavailable"}}`,
			isErr: true, kind: modelclient.KindServerError, class: provider.ClassServerError, retryable: true},
		{name: "chat error string", data: `{"error":"model not found"}`,
			isErr: true, kind: modelclient.KindPermanent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, isErr := modelclient.ClassifyEvent(tt.typ, []byte(tt.data), kw)
			if isErr != tt.isErr {
				t.Fatalf("ClassifyEvent(%q, %s) error = %v; want %v", tt.typ, tt.data, isErr, tt.isErr)
			}
			if !isErr {
				return
			}
			if f.Kind != tt.kind || f.Class() != tt.class || f.Retryable() != tt.retryable {
				t.Errorf("ClassifyEvent(%q, %s) = {%v %q %v}; want {%v %q %v}",
					tt.typ, tt.data, f.Kind, f.Class(), f.Retryable(), tt.kind, tt.class, tt.retryable)
			}
			var ae *transport.APIError
			if !errors.As(f.Err, &ae) {
				t.Errorf("Err = %T; want *transport.APIError", f.Err)
			}
		})
	}
}

func TestClassifyRoundTrip(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	tests := []struct {
		name string
		err  error
		kind modelclient.Kind
	}{
		{"dial", fmt.Errorf("post: %w", dial), modelclient.KindConnect},
		{"dns", &net.DNSError{Err: "no such host", Name: "x.invalid"}, modelclient.KindConnect},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("reset")}, modelclient.KindTransport},
		{"canceled", fmt.Errorf("post: %w", context.Canceled), modelclient.KindCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := modelclient.ClassifyRoundTrip(tt.err)
			if f.Kind != tt.kind {
				t.Errorf("ClassifyRoundTrip(%v).Kind = %v; want %v", tt.err, f.Kind, tt.kind)
			}
			if want := tt.kind != modelclient.KindCanceled; f.Retryable() != want || (want && f.Class() != provider.ClassTransport) {
				t.Errorf("ClassifyRoundTrip(%v) = {%q retryable=%v}", tt.err, f.Class(), f.Retryable())
			}
		})
	}
	if f := modelclient.ClassifyRoundTrip(nil); f.Err != nil {
		t.Errorf("ClassifyRoundTrip(nil).Err = %v; want nil", f.Err)
	}
}

func TestDefaultKeywordsAreFresh(t *testing.T) {
	a := modelclient.DefaultKeywords()
	a.Retryable[0] = "changed"
	if b := modelclient.DefaultKeywords(); b.Retryable[0] == "changed" {
		t.Error("DefaultKeywords shares its slices between calls")
	}
}
