package telemetry_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/internal/telemetry"
	"github.com/agentcli/agent/internal/telemetry/otlp"
	"github.com/agentcli/agent/internal/telemetry/otlptest"
	"github.com/agentcli/agent/internal/telemetry/wire"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

const secret = "sk-live-0123456789abcdef"

// pipeline runs the exporter in process on a pipe, as agent-otel runs
// it, and returns the Telemetry writing to it and a func that ends the
// stream and waits for the export.
func pipeline(t *testing.T, s wire.Settings, opts telemetry.Options) (*telemetry.Telemetry, func()) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := otlp.Run(context.Background(), pr, otlp.Options{})
		pr.CloseWithError(err)
		done <- err
	}()
	tel, err := telemetry.New(pw, s, opts, func(context.Context) error { return errors.Join(pw.Close(), <-done) })
	if err != nil {
		t.Fatal(err)
	}
	return tel, func() {
		if err := tel.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEventsArrive sends a session's events through the exporter to an
// OTLP receiver over HTTP and over gRPC: each arrives under Codex's name
// with Codex's attributes, the prompt as [REDACTED], the secret masked in
// a tool's output, and requests and tool calls as spans too.
func TestEventsArrive(t *testing.T) {
	for _, tc := range []struct {
		kind       string
		new        func(testing.TB) *otlptest.Receiver
		logs, span string
	}{
		{wire.OTLPHTTP, otlptest.NewHTTP, "/v1/logs", "/v1/traces"},
		{wire.OTLPGRPC, otlptest.NewGRPC, "", ""},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			rcv := tc.new(t)
			s := wire.Settings{Service: "agent_exec", Version: "0.1", Environment: "test",
				Logs:   wire.Exporter{Kind: tc.kind, Endpoint: rcv.URL + tc.logs},
				Traces: wire.Exporter{Kind: tc.kind, Endpoint: rcv.URL + tc.span}}
			tel, end := pipeline(t, s, telemetry.Options{Secrets: redact.New(secret),
				Meta: telemetry.Meta{ConversationID: "conv-1", AppVersion: "0.1", Model: "gpt-5.5", TerminalType: "xterm"}})
			ctx := t.Context()
			tel.ConversationStarts(telemetry.ConversationStart{Provider: "openai", ApprovalPolicy: "never", SandboxPolicy: "read-only", MCPServers: []string{"a", "b"}})
			tel.UserPrompt(ctx, "deploy with "+secret, 0)
			tel.APIRequest(ctx, modelclient.APIRequest{Attempt: 2, Status: 503, Duration: 40 * time.Millisecond, Err: errors.New("503 Service Unavailable")})
			tel.StreamEvent(ctx, session.StreamEvent{Kind: "response.completed"})
			call := tools.Call{ID: "call_1", Name: "exec_command", Input: `{"cmd":"env"}`}
			tel.ToolDecision(ctx, call, session.ToolDecision{Decision: session.DecisionApproved, Source: session.SourceConfig})
			tel.ToolResult(ctx, call, tools.Result{Status: tools.StatusCompleted, Output: "KEY=" + secret}, 7*time.Millisecond)
			tel.Retry(ctx, modelclient.Retry{Layer: "http", Attempt: 1, Delay: 200 * time.Millisecond})
			end()

			one := func(name string, span bool) map[string]string {
				t.Helper()
				var got []otlptest.Event
				for _, e := range rcv.Named(name) {
					if e.Span == span {
						got = append(got, e)
					}
				}
				if len(got) != 1 {
					t.Fatalf("%s (span %v) arrived %d times, want once; all: %+v", name, span, len(got), rcv.Events())
				}
				if got[0].Attrs["conversation.id"] != "conv-1" || got[0].Attrs["model"] != "gpt-5.5" || got[0].Attrs["slug"] != "gpt-5.5" {
					t.Errorf("%s: metadata %v", name, got[0].Attrs)
				}
				return got[0].Attrs
			}
			if a := one("codex.user_prompt", false); a["prompt"] != "[REDACTED]" || a["prompt_length"] != "36" {
				t.Errorf("codex.user_prompt %v, want the prompt redacted, its length kept", a)
			}
			for _, span := range []bool{false, true} {
				if a := one("codex.api_request", span); a["attempt"] != "2" || a["http.response.status_code"] != "503" ||
					a["duration_ms"] != "40" || a["error.message"] != "503 Service Unavailable" {
					t.Errorf("codex.api_request (span %v) %v", span, a)
				}
			}
			if a := one("codex.tool_result", false); a["output"] != "KEY=[REDACTED]" || a["success"] != "true" || a["duration_ms"] != "7" {
				t.Errorf("codex.tool_result %v, want the secret masked", a)
			}
			one("codex.tool_result", true)
			if a := one("codex.tool_decision", false); a["decision"] != "approved" || a["source"] != "config" || a["tool_name"] != "exec_command" {
				t.Errorf("codex.tool_decision %v", a)
			}
			if a := one("codex.conversation_starts", false); a["mcp_servers"] != "a, b" || a["provider_name"] != "openai" {
				t.Errorf("codex.conversation_starts %v", a)
			}
			one("codex.sse_event", false)
			one("codex.retry", false)
			for _, e := range rcv.Events() {
				for k, v := range e.Attrs {
					if strings.Contains(v, secret) {
						t.Errorf("%s: %s carries the secret", e.Name, k)
					}
				}
			}
		})
	}
}

// TestLogUserPrompt sends the prompt as typed when log_user_prompt is
// set, its secrets still masked.
func TestLogUserPrompt(t *testing.T) {
	rcv := otlptest.NewHTTP(t)
	s := wire.Settings{Logs: wire.Exporter{Kind: wire.OTLPHTTP, Endpoint: rcv.URL + "/v1/logs"}}
	tel, end := pipeline(t, s, telemetry.Options{LogUserPrompt: true, Secrets: redact.New(secret)})
	tel.UserPrompt(t.Context(), "fix the build, token "+secret, 1)
	tel.SetModel("gpt-5.5-mini") // the chat's /model
	tel.UserPrompt(t.Context(), "again", 0)
	end()
	got := rcv.Named("codex.user_prompt")
	if len(got) != 2 || got[0].Attrs["prompt"] != "fix the build, token [REDACTED]" || got[0].Attrs["image_input_count"] != "1" {
		t.Fatalf("codex.user_prompt = %+v", got)
	}
	if got[1].Attrs["model"] != "gpt-5.5-mini" || got[1].Attrs["slug"] != "gpt-5.5-mini" {
		t.Errorf("after SetModel: %v", got[1].Attrs)
	}
}

// TestFindExporter finds agent-otel beside agent, else says where it
// looked.
func TestFindExporter(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	if _, err := telemetry.FindExporter(dir + "/agent"); err == nil || !strings.Contains(err.Error(), "agent-otel was not found beside "+dir+"/agent or on PATH") {
		t.Errorf("FindExporter with none: %v", err)
	}
}
