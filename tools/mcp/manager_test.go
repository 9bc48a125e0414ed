package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/internal/mcptest"
	"github.com/agentcli/agent/internal/syncbuf"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/tools/mcp"
)

// testTimeout bounds every wait of a test; tests never sleep.
const testTimeout = 20 * time.Second

// harness is a manager under test with its notices and log.
type harness struct {
	m       *mcp.Manager
	notices chan mcp.Notice
	log     *syncbuf.Buffer
	ctx     context.Context
}

// start starts a manager for servers and registers its Close.
func start(t *testing.T, opts mcp.Options) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	h := &harness{notices: make(chan mcp.Notice, 16), log: &syncbuf.Buffer{}, ctx: ctx}
	opts.OnNotice = func(n mcp.Notice) { h.notices <- n }
	opts.Logger = slog.New(slog.NewTextHandler(h.log, nil))
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	h.m = mcp.New(opts)
	t.Cleanup(func() { h.m.Close() })
	h.m.Start(ctx)
	return h
}

// notice waits for the next notice.
func (h *harness) notice(t *testing.T) mcp.Notice {
	t.Helper()
	select {
	case n := <-h.notices:
		return n
	case <-h.ctx.Done():
		t.Fatal("no notice before the test's deadline")
		return mcp.Notice{}
	}
}

// started waits until every server is ready or failed.
func (h *harness) started(t *testing.T) {
	t.Helper()
	select {
	case <-h.m.Started():
	case <-h.ctx.Done():
		t.Fatal("servers still starting at the test's deadline")
	}
}

// call runs the tool named name through a set sourcing the manager, and
// reports how often the invocation was marked started. A nil approve
// approves every call that asks (as Codex, a tool without annotations
// asks).
func (h *harness) call(t *testing.T, name, input string, approve func(context.Context, tools.ApprovalRequest) tools.Decision) (tools.Result, int) {
	t.Helper()
	if approve == nil {
		approve = approveAll
	}
	set, err := tools.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	set.AddSource(h.m.Tools)
	started := 0
	inv := &tools.Invocation{
		Call:    tools.Call{ID: "call_1", Name: name, Input: input},
		Approve: approve,
		Started: func() error { started++; return nil },
	}
	return set.Run(h.ctx, inv), started
}

// approveAll approves every call that asks.
func approveAll(context.Context, tools.ApprovalRequest) tools.Decision {
	return tools.Decision{Kind: tools.ApproveOnce}
}

func toolNames(ts []tools.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	slices.Sort(out)
	return out
}

func TestStdioServer(t *testing.T) {
	bin := serverBinary(t)
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "test", Command: bin, Args: []string{"-stderr", "hello on stderr"}}}})
	if n := h.notice(t); n.State != mcp.Ready || n.Tools != 2 {
		t.Fatalf("notice = %v; want ready with 2 tools", n)
	}
	if diff := cmp.Diff([]string{"mcp__test__add", "mcp__test__echo"}, toolNames(h.m.Tools())); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	var spec struct {
		Type, Name string
		Parameters map[string]any
	}
	echo := h.m.Tools()[slices.IndexFunc(h.m.Tools(), func(t tools.Tool) bool { return t.Name() == "mcp__test__echo" })]
	if err := json.Unmarshal(echo.Spec(), &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Type != "function" || spec.Name != "mcp__test__echo" || spec.Parameters["required"] == nil {
		t.Errorf("spec = %s; want a function whose parameters are the input schema", echo.Spec())
	}
	res, started := h.call(t, "mcp__test__echo", `{"text":"hi"}`, nil)
	if res.Output != "hi" || res.Status != tools.StatusCompleted || started != 1 {
		t.Errorf("echo = %q, %s, started %d times; want hi, completed, once", res.Output, res.Status, started)
	}
	want := &tools.MCPCall{Server: "test", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`),
		Result: json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`)}
	if diff := cmp.Diff(want, res.MCP); diff != "" {
		t.Errorf("MCPCall (-want +got):\n%s", diff)
	}
	if !strings.Contains(h.log.String(), "hello on stderr") {
		t.Errorf("the server's stderr is not in the log:\n%s", h.log)
	}
}

func TestHTTPServerHeadersAndStructuredResult(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	env := map[string]string{"MCP_TOKEN": "tok-123", "TRACE": "trace-1"}
	h := start(t, mcp.Options{
		Getenv: func(k string) string { return env[k] },
		Servers: []mcp.ServerConfig{{
			Name: "web", URL: srv.URL, BearerTokenEnvVar: "MCP_TOKEN",
			HTTPHeaders: map[string]string{"X-Team": "infra"}, EnvHTTPHeaders: map[string]string{"X-Trace": "TRACE", "X-Unset": "NOPE"},
		}},
	})
	if n := h.notice(t); n.State != mcp.Ready {
		t.Fatalf("notice = %v; want ready", n)
	}
	res, _ := h.call(t, "mcp__web__add", `{"a":1,"b":2}`, nil)
	if res.Output != `{"sum":3}` || res.Status != tools.StatusCompleted {
		t.Errorf("add = %q, %s", res.Output, res.Status)
	}
	if got := string(res.MCP.Result); !strings.Contains(got, `"structured_content":{"sum":3}`) {
		t.Errorf("result = %s; want the structured content", got)
	}
	for i, hd := range srv.Headers() {
		if hd.Get("Authorization") != "Bearer tok-123" || hd.Get("X-Team") != "infra" || hd.Get("X-Trace") != "trace-1" || hd.Get("X-Unset") != "" {
			t.Errorf("request %d headers = %v", i, hd)
		}
	}
}

func TestToolFilters(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{Block: true}})
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{
		{Name: "only", URL: srv.URL, EnabledTools: []string{"echo", "add"}, DisabledTools: []string{"add"}},
		{Name: "all-but", URL: srv.URL, DisabledTools: []string{"block"}},
	}})
	h.started(t)
	want := []string{"mcp__all-but__add", "mcp__all-but__echo", "mcp__only__echo"}
	if diff := cmp.Diff(want, toolNames(h.m.Tools())); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

// TestToolsAppearOnceReady: a server that hangs at start-up delays
// nothing; its tools join the set once it answers.
func TestToolsAppearOnceReady(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Hold: true})
	set, err := tools.NewSet(tools.Plan{})
	if err != nil {
		t.Fatal(err)
	}
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "slow", URL: srv.URL}}})
	set.AddSource(h.m.Tools)
	select {
	case <-srv.Arrived():
	case <-h.ctx.Done():
		t.Fatal("the server was never contacted")
	}
	if n := len(set.Specs()); n != 1 {
		t.Errorf("%d specs while the server is starting; want only update_plan", n)
	}
	if st := h.m.Servers()[0].State; st != mcp.Starting {
		t.Errorf("state = %s; want starting", st)
	}
	srv.Release()
	if n := h.notice(t); n.State != mcp.Ready {
		t.Fatalf("notice = %v; want ready", n)
	}
	if n := len(set.Specs()); n != 3 {
		t.Errorf("%d specs once the server is ready; want 3", n)
	}
	if _, ok := set.Lookup("mcp__slow__echo"); !ok {
		t.Error("Lookup(mcp__slow__echo) failed once the server is ready")
	}
}

// TestToolListChanged: tools a server adds while it runs join the set.
func TestToolListChanged(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "web", URL: srv.URL}}})
	if n := h.notice(t); n.State != mcp.Ready || n.Tools != 2 {
		t.Fatalf("notice = %v; want ready with 2 tools", n)
	}
	srv.MCP.AddTool(&gomcp.Tool{Name: "late", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
			return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: "late answer"}}}, nil
		})
	if n := h.notice(t); n.State != mcp.Ready || n.Tools != 3 {
		t.Fatalf("notice = %v; want ready with 3 tools", n)
	}
	if res, _ := h.call(t, "mcp__web__late", `{}`, nil); res.Output != "late answer" {
		t.Errorf("late = %q, %s", res.Output, res.Status)
	}
}

func TestStartupFailures(t *testing.T) {
	bin := serverBinary(t)
	held := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Hold: true})
	tests := []struct {
		name string
		cfg  mcp.ServerConfig
		want string // in the notice's error
	}{
		{"exits at once", mcp.ServerConfig{Command: bin, Args: []string{"-fail", "bad config file"}}, `stderr: "bad config file"`},
		{"no such command", mcp.ServerConfig{Command: "agent-no-such-mcp-server"}, "executable file not found"},
		{"hangs past the startup timeout", mcp.ServerConfig{URL: held.URL, StartupTimeout: 50 * time.Millisecond}, "no answer within startup_timeout_sec (50ms)"},
		{"stdio hangs past the startup timeout", mcp.ServerConfig{Command: bin, Args: []string{"-hang"}, StartupTimeout: 50 * time.Millisecond}, "startup_timeout_sec"},
		{"bearer token unset", mcp.ServerConfig{URL: held.URL, BearerTokenEnvVar: "NOT_SET"}, "NOT_SET (bearer_token_env_var) is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Name = "bad"
			h := start(t, mcp.Options{Servers: []mcp.ServerConfig{tt.cfg}})
			n := h.notice(t)
			if n.State != mcp.Failed || n.Err == nil || !strings.Contains(n.Err.Error(), tt.want) {
				t.Fatalf("notice = %v; want failed with %q", n, tt.want)
			}
			if !strings.Contains(n.String(), "continuing without its tools") {
				t.Errorf("notice text %q does not say the session goes on", n)
			}
			h.started(t)
			if len(h.m.Tools()) != 0 {
				t.Errorf("a failed server offers tools")
			}
		})
	}
}

func TestCrashMidCall(t *testing.T) {
	bin := serverBinary(t)
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "test", Command: bin, Args: []string{"-crash"}}}})
	h.notice(t) // ready
	old := h.m.Tools()
	res, started := h.call(t, "mcp__test__crash", `{}`, nil)
	if res.Status != tools.StatusFailed || !strings.Contains(res.Output, `the MCP server "test" stopped during the call: exit status 3`) ||
		!strings.Contains(res.Output, mcptest.ErrCrash.Error()) || started != 1 {
		t.Errorf("crash = %q, %s, started %d; want a failure saying the server stopped, and why", res.Output, res.Status, started)
	}
	if res.MCP == nil || res.MCP.Error == "" || res.MCP.Result != nil {
		t.Errorf("MCPCall = %+v; want an error and no result", res.MCP)
	}
	var n mcp.Notice
	select {
	case n = <-h.notices:
	default:
		t.Fatal("the call returned before the server's stop was noticed")
	}
	if n.State != mcp.Stopped || !strings.Contains(n.Err.Error(), mcptest.ErrCrash.Error()) {
		t.Errorf("notice = %v; want stopped, with the server's last stderr line", n)
	}
	if len(h.m.Tools()) != 0 {
		t.Error("a stopped server still offers tools")
	}
	set, _ := tools.NewSet(old...)
	res = set.Run(h.ctx, &tools.Invocation{Call: tools.Call{ID: "c2", Name: "mcp__test__echo", Input: `{"text":"x"}`},
		Approve: approveAll, Started: func() error { t.Error("a call to a stopped server was started"); return nil }})
	if res.Status != tools.StatusFailed || !strings.Contains(res.Output, "is not running") {
		t.Errorf("call after the crash = %q, %s", res.Output, res.Status)
	}
}

// TestToolTimeoutAndInterrupt: a call that outlasts tool_timeout_sec
// fails as timed out, an interrupted one is aborted, and the server goes
// on serving. The timer is the test's: the first call's fires (the call
// blocks until then), later ones never do, so no real time is bounded.
func TestToolTimeoutAndInterrupt(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{Block: true}})
	var mu sync.Mutex
	var timers []time.Duration
	afterFunc := func(d time.Duration, f func()) func() bool {
		mu.Lock()
		defer mu.Unlock()
		timers = append(timers, d)
		if len(timers) == 1 {
			go f() // the first call (block) times out
		}
		return func() bool { return true }
	}
	h := start(t, mcp.Options{AfterFunc: afterFunc,
		Servers: []mcp.ServerConfig{{Name: "web", URL: srv.URL, ToolTimeout: 50 * time.Millisecond}}})
	h.started(t)
	res, started := h.call(t, "mcp__web__block", `{}`, nil)
	if res.Status != tools.StatusFailed || res.Output != `the MCP tool call timed out after 50ms (tool_timeout_sec of server "web")` || started != 1 {
		t.Errorf("block = %q, %s, started %d", res.Output, res.Status, started)
	}

	ctx, cancel := context.WithCancel(h.ctx)
	set, _ := tools.NewSet(h.m.Tools()...)
	res = set.Run(ctx, &tools.Invocation{Call: tools.Call{ID: "c2", Name: "mcp__web__block", Input: `{}`}, Approve: approveAll, Started: func() error { cancel(); return nil }})
	if res.Status != tools.StatusAborted || !strings.Contains(res.Output, "interrupted") {
		t.Errorf("interrupted block = %q, %s; want aborted", res.Output, res.Status)
	}
	// The server still works after both.
	if res, _ := h.call(t, "mcp__web__echo", `{"text":"still here"}`, nil); res.Output != "still here" {
		t.Errorf("echo after a timeout = %q, %s", res.Output, res.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(timers) != 3 || timers[0] != 50*time.Millisecond || timers[2] != 50*time.Millisecond {
		t.Errorf("timers = %v; want one of tool_timeout_sec (50ms) per call", timers)
	}
}

// TestApproval: untrusted asks for every call, even of a read-only tool,
// which on-request and never run without asking.
func TestApproval(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{Annotated: true}})
	for _, policy := range []string{tools.PolicyUntrusted, tools.PolicyOnRequest, tools.PolicyNever} {
		t.Run(policy, func(t *testing.T) {
			h := start(t, mcp.Options{Policy: policy, Servers: []mcp.ServerConfig{{Name: "web", URL: srv.URL}}})
			h.started(t)
			var asked []tools.ApprovalRequest
			deny := func(_ context.Context, req tools.ApprovalRequest) tools.Decision {
				asked = append(asked, req)
				return tools.Decision{Kind: tools.Deny, Note: "not now"}
			}
			res, started := h.call(t, "mcp__web__search", `{"text":"hi"}`, deny)
			if policy != tools.PolicyUntrusted {
				if len(asked) != 0 || res.Output != "hi" || started != 1 {
					t.Errorf("%s: asked %d times, output %q, started %d; want it to run without asking", policy, len(asked), res.Output, started)
				}
				return
			}
			if len(asked) != 1 || asked[0].Kind != "mcp" || asked[0].Command != `mcp__web__search {"text":"hi"}` {
				t.Fatalf("asked %+v; want one mcp request naming the tool and its arguments", asked)
			}
			if res.Status != tools.StatusDeclined || res.Output != "mcp tool call rejected by user: not now" || started != 0 {
				t.Errorf("denied call = %q, %s, started %d", res.Output, res.Status, started)
			}
		})
	}
}

func TestBadArguments(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "web", URL: srv.URL}}})
	h.started(t)
	for _, in := range []string{`[1]`, `{"text":`, `null`} {
		res, started := h.call(t, "mcp__web__echo", in, nil)
		if res.Status != tools.StatusFailed || !strings.HasPrefix(res.Output, "failed to parse function arguments") || started != 0 {
			t.Errorf("input %s: %q, %s, started %d", in, res.Output, res.Status, started)
		}
	}
	// A tool error (the SDK validates the input) reaches the model as a failed call.
	res, _ := h.call(t, "mcp__web__echo", `{"text":5}`, nil)
	if res.Status != tools.StatusFailed || res.Output == "" {
		t.Errorf("invalid input = %q, %s; want the server's error, failed", res.Output, res.Status)
	}
}

func TestParameters(t *testing.T) {
	tests := []struct {
		in   any
		want map[string]any
	}{
		{nil, map[string]any{"type": "object", "properties": map[string]any{}}},
		{map[string]any{"type": "object"}, map[string]any{"type": "object", "properties": map[string]any{}}},
		{map[string]any{"properties": map[string]any{"q": map[string]any{"type": "string"}}},
			map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}},
		{"not a schema", map[string]any{"type": "object", "properties": map[string]any{}}},
		{json.RawMessage(`{"type":"object","properties":{},"required":[]}`),
			map[string]any{"type": "object", "properties": map[string]any{}, "required": []any{}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, mcp.Parameters(tt.in)); diff != "" {
			t.Errorf("Parameters(%v) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestCloseWithoutStart(t *testing.T) {
	m := mcp.New(mcp.Options{Servers: []mcp.ServerConfig{{Name: "x", Command: "true"}}})
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m.Start(t.Context()) // after Close: nothing starts
	if len(m.Tools()) != 0 {
		t.Error("tools after Close")
	}
	if err := errors.Join(m.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestApprovalAsCodex: besides untrusted (which asks for every call), a
// call needs approval as Codex 0.169 decides it (measured with codex exec
// against internal/mcptest's server, docs/codex-compat.md section MCP):
// under the default approval_mode "auto" every tool not annotated
// readOnlyHint, unless it says both destructiveHint and openWorldHint
// false (an absent hint counts as true, as MCP defines it, and a tool
// without annotations asks); under "writes" every tool not read-only;
// under "prompt" any tool; under "approve" none. Under approval_policy
// never such a call is refused without running, with Codex's words,
// unless the sandbox is danger-full-access. Per-tool modes win over the
// server's default_tools_approval_mode.
func TestApprovalAsCodex(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{Destructive: true, Annotated: true}})
	never, onRequest, ro := tools.PolicyNever, tools.PolicyOnRequest, "read-only"
	mode := func(m string) mcp.ServerConfig { return mcp.ServerConfig{DefaultApproval: m} }
	for _, tc := range []struct {
		name, policy, sandbox string
		cfg                   mcp.ServerConfig
		tool                  string
		want                  string // "run", "ask" or "refuse"
	}{
		{"never refuses a destructive tool", never, ro, mcp.ServerConfig{}, "delete", "refuse"},
		{"never refuses a tool without annotations", never, ro, mcp.ServerConfig{}, "echo", "refuse"},
		{"never refuses an open-world tool", never, ro, mcp.ServerConfig{}, "post", "refuse"},
		{"an absent openWorldHint counts as true", never, ro, mcp.ServerConfig{}, "keep", "refuse"},
		{"never runs a read-only tool", never, ro, mcp.ServerConfig{}, "search", "run"},
		{"read-only wins over destructive", never, ro, mcp.ServerConfig{}, "wipe", "run"},
		{"never runs a local, non-destructive tool", never, ro, mcp.ServerConfig{}, "local", "run"},
		{"never with full access runs it", never, tools.SandboxFullAccess, mcp.ServerConfig{}, "delete", "run"},
		{"never with full access runs a prompt tool", never, tools.SandboxFullAccess, mode("prompt"), "local", "run"},
		{"on-request asks for a destructive tool", onRequest, ro, mcp.ServerConfig{}, "delete", "ask"},
		{"on-request runs a read-only tool", onRequest, ro, mcp.ServerConfig{}, "search", "run"},
		{"approve mode runs it", never, ro, mcp.ServerConfig{ToolApproval: map[string]string{"delete": "approve"}}, "delete", "run"},
		{"prompt mode asks for any tool", onRequest, ro, mcp.ServerConfig{ToolApproval: map[string]string{"search": "prompt"}}, "search", "ask"},
		{"the server's default applies", onRequest, ro, mode("prompt"), "local", "ask"},
		{"writes mode refuses a local tool", never, ro, mode("writes"), "local", "refuse"},
		{"writes mode runs a read-only tool", never, ro, mode("writes"), "wipe", "run"},
		{"a tool's mode wins over the default", never, ro, mcp.ServerConfig{DefaultApproval: "prompt", ToolApproval: map[string]string{"delete": "approve"}}, "delete", "run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Name, cfg.URL = "web", srv.URL
			h := start(t, mcp.Options{Policy: tc.policy, Sandbox: tc.sandbox, Servers: []mcp.ServerConfig{cfg}})
			h.started(t)
			asked := 0
			deny := func(context.Context, tools.ApprovalRequest) tools.Decision {
				asked++
				return tools.Decision{Kind: tools.Deny}
			}
			res, started := h.call(t, "mcp__web__"+tc.tool, `{"text":"hi"}`, deny)
			got := "run"
			switch {
			case asked == 1 && started == 0 && res.Status == tools.StatusDeclined:
				got = "ask"
			case asked == 0 && started == 0 && res.Status == tools.StatusDeclined && res.Output == "MCP tool call requires approval, but approval policy is never":
				got = "refuse"
			case asked != 0 || started != 1 || res.Output != "hi":
				got = fmt.Sprintf("asked %d, started %d, %s %q", asked, started, res.Status, res.Output)
			}
			if got != tc.want {
				t.Errorf("got %s; want %s", got, tc.want)
			}
		})
	}
}

// TestListChangedWithSameTools: a server that announces tools/list_changed
// at start, its tools unchanged, gives one "ready" notice; the next notice
// is for a real change.
func TestListChangedWithSameTools(t *testing.T) {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Options: mcptest.Options{AnnounceChange: true}})
	h := start(t, mcp.Options{Servers: []mcp.ServerConfig{{Name: "web", URL: srv.URL}}})
	if n := h.notice(t); n.State != mcp.Ready || n.Tools != 2 {
		t.Fatalf("notice = %v; want ready with 2 tools", n)
	}
	// Wait (bounded, polling) until the announcement was heard and the
	// tools listed again.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(h.log.String(), "tools/list_changed heard") {
		select {
		case <-tick.C:
		case <-h.ctx.Done():
			t.Fatalf("the announcement was never heard:\n%s", h.log)
		}
	}
	srv.MCP.AddTool(&gomcp.Tool{Name: "late", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
			return &gomcp.CallToolResult{Content: []gomcp.Content{&gomcp.TextContent{Text: "late"}}}, nil
		})
	if n := h.notice(t); n.State != mcp.Ready || n.Tools != 3 {
		t.Fatalf("notice = %v; want the next to be ready with 3 tools", n)
	}
}
