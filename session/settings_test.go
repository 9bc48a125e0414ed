package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// dynamicTool stands for a tool an MCP server contributes (a source of
// the session's tool set).
type dynamicTool struct{}

func (dynamicTool) Name() string { return "mcp__srv__lookup" }
func (dynamicTool) Spec() json.RawMessage {
	return json.RawMessage(`{"type":"function","name":"mcp__srv__lookup","parameters":{"type":"object"}}`)
}
func (dynamicTool) ParallelSafe() bool { return true }
func (dynamicTool) Run(context.Context, *tools.Invocation) tools.Result {
	return tools.Result{Output: "found", Status: tools.StatusCompleted}
}

func toolNames(r rt.Request) []string {
	var out []string
	for _, t := range r.JSON["tools"].([]any) {
		out = append(out, t.(map[string]any)["name"].(string))
	}
	return out
}

// TestConfigureWhileATurnStreams changes the model and the approval
// policy while a turn streams (run with -race). The running turn finishes
// on the settings it started with; the next turns use the new ones, and
// the history, the MCP servers' tools and the approve-for-session
// decisions survive.
func TestConfigureWhileATurnStreams(t *testing.T) {
	dir := t.TempDir()
	var asks atomic.Int32
	approve := func(context.Context, tools.ApprovalRequest) tools.Decision {
		asks.Add(1)
		return tools.Decision{Kind: tools.ApproveForSession}
	}
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("fc1", "c1", "touch a"), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), rt.Barrier("streaming"), rt.Stall(), rt.MessageDone("m2", "one done"), rt.Completed("r2")),
		// Turn 2: the same command again (approved for the session).
		rt.Stream(rt.Created("r3"), execCall("fc3", "c3", "touch a"), rt.Completed("r3")),
		rt.Reply("r4", "m4", "two done"),
		// Turn 3, under the policy "never": another command, not asked.
		rt.Stream(rt.Created("r5"), execCall("fc5", "c5", "touch b"), rt.Completed("r5")),
		rt.Reply("r6", "m6", "three done"),
	}, withTools(t, dir, tools.PolicyUntrusted, approve), func(_ *provider.Info, o *session.Options) {
		o.Tools.AddSource(func() []tools.Tool { return []tools.Tool{dynamicTool{}} })
		o.ApprovalPolicy = tools.PolicyUntrusted
	})

	turnDone := make(chan error, 1)
	go func() { turnDone <- h.sess.Turn(t.Context(), "one", func(session.Event) {}) }()
	select {
	case <-h.srv.Reached("streaming"):
	case err := <-turnDone:
		t.Fatalf("turn ended before it streamed: %v", err)
	}
	// Mid-turn: change the model; readers of the settings (a /status) run
	// concurrently.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { _ = h.sess.Settings() })
	}
	h.sess.Configure(func(s *session.Settings) { s.Sampling.Model = "model-b" })
	if got := h.sess.Settings().Sampling.Model; got != "model-b" {
		t.Errorf("Settings reports model %q; want the pending model-b", got)
	}
	wg.Wait()
	h.srv.Release()
	if err := <-turnDone; err != nil {
		t.Fatal(err)
	}
	if err := h.turn(t, "two"); err != nil {
		t.Fatal(err)
	}
	h.sess.Configure(func(s *session.Settings) { s.ApprovalPolicy = tools.PolicyNever })
	if err := h.turn(t, "three"); err != nil {
		t.Fatal(err)
	}

	reqs := h.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests; want 6", len(reqs))
	}
	for i, want := range []string{"test-model", "test-model", "model-b", "model-b", "model-b", "model-b"} {
		if got := reqs[i].JSON["model"]; got != want {
			t.Errorf("request %d model = %v; want %s (a change applies at the next turn)", i+1, got, want)
		}
	}
	// History: turn 2 starts with all of turn 1 (user, call, output,
	// answer) and its own message.
	if n := len(reqs[2].JSON["input"].([]any)); n != 5 {
		t.Errorf("turn 2's first request carries %d items; want 5 (turn 1's 4 and the new message)", n)
	}
	for i, r := range reqs {
		names := toolNames(r)
		if names[len(names)-1] != "mcp__srv__lookup" {
			t.Errorf("request %d offers %v; the MCP tool is missing", i+1, names)
		}
	}
	// Asked once: "touch a" was approved for the session in turn 1 and
	// stays approved; "touch b" runs under "never".
	if n := asks.Load(); n != 1 {
		t.Errorf("asked %d times; want 1", n)
	}
	if out := outputOf(t, reqs[5], "c5"); out == "" {
		t.Error("turn 3's call has no output")
	}
	if got := h.sess.Settings().ApprovalPolicy; got != tools.PolicyNever {
		t.Errorf("Settings().ApprovalPolicy = %q", got)
	}
}

// TestConfigureToolsAndContext: new tools (a /permissions sandbox) and a
// context item apply at the next turn: its request offers the new tools
// and carries the item once, before the new message; the turn after does
// not repeat it.
func TestConfigureToolsAndContext(t *testing.T) {
	h := newHarness(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two"), rt.Reply("r3", "m3", "three")},
		withTools(t, t.TempDir(), tools.PolicyNever, nil))
	if err := h.turn(t, "one"); err != nil {
		t.Fatal(err)
	}
	set, err := tools.NewSet(dynamicTool{})
	if err != nil {
		t.Fatal(err)
	}
	note := transport.DeveloperMessage("the sandbox is read-only now")
	h.sess.Configure(func(s *session.Settings) { s.Tools, s.Context = set, []transport.Item{note} })
	if h.sess.Settings().Tools != set {
		t.Error("Settings does not report the pending tools")
	}
	for _, in := range []string{"two", "three"} {
		if err := h.turn(t, in); err != nil {
			t.Fatal(err)
		}
	}
	reqs := h.srv.Requests()
	if names := toolNames(reqs[0]); len(names) < 2 {
		t.Errorf("the first turn offers %v", names)
	}
	for i, r := range reqs[1:] {
		if names := toolNames(r); len(names) != 1 || names[0] != "mcp__srv__lookup" {
			t.Errorf("request %d offers %v; want the new tools only", i+2, names)
		}
		if n := strings.Count(string(r.Body), "the sandbox is read-only now"); n != 1 {
			t.Errorf("request %d carries the context item %d times; want 1", i+2, n)
		}
	}
	msgs, err := rt.InputMessages(reqs[1].Body)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(msgs); n < 2 || strings.Join(msgs[n-2].Text, "") != "the sandbox is read-only now" || strings.Join(msgs[n-1].Text, "") != "two" {
		t.Errorf("the context item is not just before the new message: %+v", msgs)
	}
}
