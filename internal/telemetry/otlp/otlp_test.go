package otlp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/telemetry/otlp"
	"github.com/agentcli/agent/internal/telemetry/otlptest"
	"github.com/agentcli/agent/internal/telemetry/wire"
)

// stream is the wire stream of settings s and records rs.
func stream(t *testing.T, s wire.Settings, rs ...wire.Record) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// TestRunExports sends a request record and a prompt record through both
// OTLP transports: every record arrives as a log event with its
// attributes and the configured headers, the request also as a span.
func TestRunExports(t *testing.T) {
	for _, tc := range []struct {
		kind string
		new  func(testing.TB) *otlptest.Receiver
		logs string
		span string
	}{
		{wire.OTLPHTTP, otlptest.NewHTTP, "/v1/logs", "/v1/traces"},
		{wire.OTLPGRPC, otlptest.NewGRPC, "", ""},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			rcv := tc.new(t)
			hdr := map[string]string{"x-team-key": "k-123"}
			s := wire.Settings{Service: "agent_exec", Version: "1.2.3", Environment: "staging",
				Logs:   wire.Exporter{Kind: tc.kind, Endpoint: rcv.URL + tc.logs, Headers: hdr},
				Traces: wire.Exporter{Kind: tc.kind, Endpoint: rcv.URL + tc.span, Headers: hdr}}
			now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
			in := stream(t, s,
				wire.Record{Name: "codex.api_request", Start: now, Time: now.Add(120 * time.Millisecond),
					Attrs: []wire.Attr{wire.Int("attempt", 1), wire.Int("http.response.status_code", 200), wire.String("model", "gpt-5.5")}},
				wire.Record{Name: "codex.user_prompt", Time: now, Attrs: []wire.Attr{wire.String("prompt", "[REDACTED]"), wire.Bool("b", true)}},
			)
			if err := otlp.Run(t.Context(), strings.NewReader(in), otlp.Options{}); err != nil {
				t.Fatal(err)
			}
			reqs := rcv.Named("codex.api_request")
			if len(reqs) != 2 {
				t.Fatalf("codex.api_request arrived %d times, want a log event and a span: %+v", len(reqs), rcv.Events())
			}
			for _, e := range reqs {
				if e.Attrs["attempt"] != "1" || e.Attrs["http.response.status_code"] != "200" || e.Attrs["model"] != "gpt-5.5" {
					t.Errorf("attributes %v (span %v)", e.Attrs, e.Span)
				}
				if e.Resource["service.name"] != "agent_exec" || e.Resource["env"] != "staging" || e.Resource["service.version"] != "1.2.3" {
					t.Errorf("resource %v", e.Resource)
				}
				if got := e.Header.Get("x-team-key"); got != "k-123" {
					t.Errorf("header x-team-key = %q, want the configured one", got)
				}
			}
			p := rcv.Named("codex.user_prompt")
			if len(p) != 1 || p[0].Span || p[0].Attrs["prompt"] != "[REDACTED]" || p[0].Attrs["event.name"] != "codex.user_prompt" || p[0].Attrs["b"] != "true" {
				t.Errorf("codex.user_prompt = %+v, want one log event", p)
			}
		})
	}
}

// TestRunNoExporter exports nothing and returns at once when the
// settings name no exporter, and refuses a malformed first line.
func TestRunNoExporter(t *testing.T) {
	in := stream(t, wire.Settings{}, wire.Record{Name: "codex.api_request", Time: time.Now()})
	if err := otlp.Run(t.Context(), strings.NewReader(in), otlp.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := otlp.Run(t.Context(), strings.NewReader("{not json\n"), otlp.Options{}); err == nil {
		t.Error("a malformed settings line was accepted")
	}
}

// TestRunCollectorDown ends within its flush bound when nothing listens
// at the endpoint, saying the export failed.
func TestRunCollectorDown(t *testing.T) {
	s := wire.Settings{Logs: wire.Exporter{Kind: wire.OTLPHTTP, Endpoint: "http://127.0.0.1:1/v1/logs"}}
	in := stream(t, s, wire.Record{Name: "codex.api_request", Time: time.Now()})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err := otlp.Run(ctx, strings.NewReader(in), otlp.Options{FlushTimeout: 200 * time.Millisecond})
	if err == nil {
		t.Error("an export to a closed port reported no error")
	}
}

// TestRunTLS exports to a collector whose certificate only the
// configured ca-certificate vouches for; without it the export fails.
func TestRunTLS(t *testing.T) {
	rcv, ca := otlptest.NewHTTPS(t)
	rec := wire.Record{Name: "codex.api_request", Time: time.Now()}
	s := wire.Settings{Logs: wire.Exporter{Kind: wire.OTLPHTTP, Endpoint: rcv.URL + "/v1/logs", TLS: &wire.TLS{CA: ca}}}
	if err := otlp.Run(t.Context(), strings.NewReader(stream(t, s, rec)), otlp.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(rcv.Named("codex.api_request")); n != 1 {
		t.Errorf("%d events arrived over TLS, want 1", n)
	}
	s.Logs.TLS = nil
	err := otlp.Run(t.Context(), strings.NewReader(stream(t, s, rec)), otlp.Options{FlushTimeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the CA: %v, want a certificate error", err)
	}
	s.Logs.TLS = &wire.TLS{CA: ca + ".missing"}
	if err := otlp.Run(t.Context(), strings.NewReader(stream(t, s, rec)), otlp.Options{}); err == nil || !strings.Contains(err.Error(), "tls ca-certificate") {
		t.Errorf("a missing CA file: %v", err)
	}
}
