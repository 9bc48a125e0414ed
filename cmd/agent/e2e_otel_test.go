package main

import (
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/telemetry/otlptest"
)

// TestE2EOtel runs exec with [otel] exporting to an in-process OTLP
// receiver over HTTP and over gRPC: the receiver gets Codex's events of
// the turn (the conversation's start, the prompt as [REDACTED], a
// codex.api_request log record and span per request with its status,
// the retry, the completed response), with the configured header, and
// the header's secret appears nowhere in agent's output.
func TestE2EOtel(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	if err := agenttest.CompanionBinary("agent-otel"); err != nil {
		t.Fatalf("build agent-otel: %v", err)
	}
	const header = "otlp-secret-value-1"
	for _, tc := range []struct {
		kind       string
		new        func(testing.TB) *otlptest.Receiver
		logs, span string
	}{
		{"otlp-http", otlptest.NewHTTP, "/v1/logs", "/v1/traces"},
		{"otlp-grpc", otlptest.NewGRPC, "", ""},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			rcv := tc.new(t)
			srv := rt.NewServer(t, rt.Script{rt.Status(500), rt.Reply("r1", "m1", "deployed")})
			proto := ""
			if tc.kind == "otlp-http" {
				proto = `, protocol = "binary"`
			}
			otel := "[otel]\nenvironment = \"ci\"\n" +
				`exporter = { ` + tc.kind + ` = { endpoint = "` + rcv.URL + tc.logs + `"` + proto + `, headers = { "x-otlp-api-key" = "` + header + `" } } }` + "\n" +
				`trace_exporter = { ` + tc.kind + ` = { endpoint = "` + rcv.URL + tc.span + `"` + proto + ` } }` + "\n"
			home := writeConfig(t, srv.URL, otel)
			cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "deploy the thing")
			if err := cmd.Run(); err != nil {
				t.Fatalf("agent exec: %v\nstderr:\n%s", err, stderr)
			}
			if stdout.String() != "deployed\n" {
				t.Errorf("stdout = %q", stdout)
			}
			var logStatus, spanStatus []string
			for _, e := range rcv.Named("codex.api_request") {
				if e.Span {
					spanStatus = append(spanStatus, e.Attrs["http.response.status_code"])
				} else {
					logStatus = append(logStatus, e.Attrs["http.response.status_code"])
				}
				if e.Header.Get("x-otlp-api-key") != header && !e.Span {
					t.Errorf("log export without the configured header: %v", e.Header)
				}
				if e.Resource["env"] != "ci" || e.Resource["service.name"] != "agent_exec" {
					t.Errorf("resource %v", e.Resource)
				}
			}
			if strings.Join(logStatus, ",") != "500,200" || strings.Join(spanStatus, ",") != "500,200" {
				t.Errorf("codex.api_request statuses: logs %v, spans %v; want 500,200 each", logStatus, spanStatus)
			}
			p := rcv.Named("codex.user_prompt")
			if len(p) != 1 || p[0].Attrs["prompt"] != "[REDACTED]" || p[0].Attrs["prompt_length"] != "16" {
				t.Errorf("codex.user_prompt = %+v", p)
			}
			for _, name := range []string{"codex.conversation_starts", "codex.retry", "codex.sse_event"} {
				if len(rcv.Named(name)) == 0 {
					t.Errorf("no %s arrived", name)
				}
			}
			if strings.Contains(stdout.String()+stderr.String(), header) {
				t.Error("the exporter's header leaked into agent's output")
			}
		})
	}
}
