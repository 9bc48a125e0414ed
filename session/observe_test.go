package session_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// recorder is an Observer (and the client's) writing what it hears as
// lines.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

func (r *recorder) APIRequest(_ context.Context, a modelclient.APIRequest) {
	r.add("api_request attempt=%d status=%d ms=%d err=%v", a.Attempt, a.Status, a.Duration.Milliseconds(), a.Err != nil)
}
func (r *recorder) UserPrompt(_ context.Context, p string, images int) {
	r.add("user_prompt %q images=%d", p, images)
}
func (r *recorder) StreamEvent(_ context.Context, e session.StreamEvent) {
	s := fmt.Sprintf("sse_event %s ms=%d", e.Kind, e.Duration.Milliseconds())
	if e.Usage != nil {
		s += fmt.Sprintf(" in=%d out=%d", e.Usage.InputTokens, e.Usage.OutputTokens)
	}
	r.add("%s", s)
}
func (r *recorder) ToolDecision(_ context.Context, c tools.Call, d session.ToolDecision) {
	r.add("tool_decision %s %s %s/%s", c.Name, c.ID, d.Decision, d.Source)
}
func (r *recorder) ToolResult(_ context.Context, c tools.Call, res tools.Result, took time.Duration) {
	r.add("tool_result %s %s %s ms=%d", c.Name, c.ID, res.Status, took.Milliseconds())
}
func (r *recorder) Retry(_ context.Context, x modelclient.Retry) {
	r.add("retry %s attempt=%d status=%d", x.Layer, x.Attempt, x.Failure.Status)
}

// TestObserverHearsTurn runs a turn with a server error, a command the
// policy allows and one the person declines: the observer hears Codex's
// events in order, each request attempt with its status, and durations
// on the injected clock (10 ms per reading).
func TestObserverHearsTurn(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Status(500),
		rt.Stream(rt.Created("r1"), execCall("fc1", "call_1", "true"), rt.CompletedUsage("r1", 20, 0, 4, 0)),
		rt.Stream(rt.Created("r2"), execCall("fc2", "call_2", "rm -rf /"), rt.Completed("r2")),
		rt.Reply("r3", "m3", "done"),
	})
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(10 * time.Millisecond)
		return clock
	}
	rec := &recorder{}
	p := provider.Custom("test")
	p.BaseURL = srv.URL
	dir := t.TempDir()
	ex := tools.NewExec(tools.ExecOptions{Cwd: dir, Shell: "/bin/sh", Policy: tools.PolicyOnRequest, Sandbox: tools.SandboxFullAccess})
	set, err := tools.NewSet(ex, tools.NewWriteStdin(ex))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	sess := session.New(session.Options{
		Client: modelclient.New(modelclient.Options{Provider: p, HTTPClient: srv.Client(), Now: now, Observer: rec,
			Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }, Rand: func() float64 { return 0.5 }}),
		Tools: set, ApprovalPolicy: tools.PolicyUntrusted, Observer: rec, Now: now,
		Approve: func(_ context.Context, req tools.ApprovalRequest) tools.Decision {
			if strings.Contains(req.Command, "rm") {
				return tools.Decision{Kind: tools.Deny}
			}
			return tools.Decision{Kind: tools.ApproveOnce}
		},
	})
	if err := sess.Turn(t.Context(), "clean up", func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`user_prompt "clean up" images=0`,
		"api_request attempt=1 status=500 ms=10 err=true",
		"retry http attempt=1 status=500",
		"api_request attempt=2 status=200 ms=10 err=false",
		"sse_event response.created ms=10",
		"sse_event response.output_item.done ms=10",
		"sse_event response.completed ms=10 in=20 out=4",
		"tool_decision exec_command call_1 approved/user",
		"tool_result exec_command call_1 completed ms=10",
		"api_request attempt=1 status=200 ms=10 err=false",
		"sse_event response.created ms=10",
		"sse_event response.output_item.done ms=10",
		"sse_event response.completed ms=10 in=10 out=5",
		"tool_decision exec_command call_2 denied/user",
		"tool_result exec_command call_2 declined ms=10",
		"api_request attempt=1 status=200 ms=10 err=false",
		"sse_event response.created ms=10",
		"sse_event response.output_item.done ms=10",
		"sse_event response.completed ms=10 in=10 out=5",
	}
	if diff := cmp.Diff(want, rec.lines); diff != "" {
		t.Errorf("observer heard (-want +got):\n%s", diff)
	}
}
