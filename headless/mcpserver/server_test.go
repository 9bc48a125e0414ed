package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// fakeSession runs turns with a function of the test.
type fakeSession struct {
	turn func(ctx context.Context, input string, emit func(session.Event)) error
}

func (f *fakeSession) Turn(ctx context.Context, input string, emit func(session.Event)) error {
	return f.turn(ctx, input, emit)
}
func (f *fakeSession) SaveError() error { return nil }

// engine is the test's Start and Resume: every session runs turn; it
// records what was asked.
type engine struct {
	mu      sync.Mutex
	turn    func(ctx context.Context, o StartOptions, input string, emit func(session.Event)) error
	started []StartOptions
	resumed []string
	closed  int
}

func (e *engine) open(id string, o StartOptions) *Opened {
	return &Opened{ID: id, Session: &fakeSession{turn: func(ctx context.Context, input string, emit func(session.Event)) error {
		emit(session.TurnStarted{Input: input})
		return e.turn(ctx, o, input, emit)
	}}, Close: func() {
		e.mu.Lock()
		e.closed++
		e.mu.Unlock()
	}}
}

func (e *engine) options() Options {
	return Options{Version: "test",
		Start: func(ctx context.Context, o StartOptions) (*Opened, error) {
			if o.Cwd == "/nonexistent" {
				return nil, errors.New("working directory /nonexistent: not a directory")
			}
			e.mu.Lock()
			e.started = append(e.started, o)
			id := "s" + string(rune('0'+len(e.started)))
			e.mu.Unlock()
			return e.open(id, o), nil
		},
		Resume: func(ctx context.Context, id string, o StartOptions) (*Opened, error) {
			if !strings.HasPrefix(id, "s") {
				return nil, errors.New(`no session "` + id + `"`)
			}
			e.mu.Lock()
			e.resumed = append(e.resumed, id)
			e.mu.Unlock()
			return e.open(id, o), nil
		},
	}
}

// connect serves e's server in memory and returns a client session.
func connect(t *testing.T, e *engine, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectOptions(t, e.options(), copts)
}

// connectOptions serves a server of o in memory and returns a client
// session.
func connectOptions(t *testing.T, o Options, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	srv := New(o)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, copts).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

func answer(text string) func(context.Context, StartOptions, string, func(session.Event)) error {
	return func(_ context.Context, _ StartOptions, _ string, emit func(session.Event)) error {
		emit(session.MessageDone{ItemID: "m", Text: text})
		return nil
	}
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func structured(t *testing.T, res *mcp.CallToolResult) Output {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var o Output
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return o
}

func TestListTools(t *testing.T) {
	cs := connect(t, &engine{}, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	start, reply := byName[ToolStart], byName[ToolReply]
	if start == nil || reply == nil || len(res.Tools) != 2 {
		t.Fatalf("tools = %v; want %s and %s", res.Tools, ToolStart, ToolReply)
	}
	b, _ := json.Marshal(start.InputSchema)
	for _, w := range []string{`"prompt"`, `"cwd"`, `"model"`, `"profile"`, `"base-instructions"`, `"required":["prompt"]`,
		`"enum":["read-only","workspace-write","danger-full-access"]`, `"enum":["untrusted","on-failure","on-request","never"]`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("the start tool's schema lacks %s: %s", w, b)
		}
	}
	if b, _ := json.Marshal(start.OutputSchema); !strings.Contains(string(b), `"sessionId"`) {
		t.Errorf("the start tool's output schema lacks sessionId: %s", b)
	}
}

func TestStartAndReply(t *testing.T) {
	e := &engine{turn: answer("done")}
	cs := connect(t, e, nil)
	res := call(t, cs, ToolStart, map[string]any{"prompt": "hi", "cwd": "/w", "sandbox": "workspace-write", "model": "m"})
	if res.IsError || text(res) != "done" {
		t.Fatalf("start: error %v, text %q", res.IsError, text(res))
	}
	out := structured(t, res)
	if out.SessionID != "s1" || out.ThreadID != "s1" || out.Content != "done" {
		t.Errorf("structured = %+v", out)
	}
	if o := e.started[0]; o.Cwd != "/w" || o.Sandbox != "workspace-write" || o.Model != "m" || o.Approve == nil {
		t.Errorf("started with %+v", o)
	}
	res = call(t, cs, ToolReply, map[string]any{"prompt": "more", "sessionId": "s1"})
	if res.IsError || structured(t, res).SessionID != "s1" {
		t.Fatalf("reply: %q", text(res))
	}
	if len(e.resumed) != 1 || e.resumed[0] != "s1" {
		t.Errorf("resumed %v", e.resumed)
	}
	if e.closed != 2 {
		t.Errorf("%d sessions closed; want 2", e.closed)
	}
}

// TestReplyKeepsSettings: a reply to a session this server started runs
// with the settings it was started with.
func TestReplyKeepsSettings(t *testing.T) {
	var mu sync.Mutex
	var seen []StartOptions
	e := &engine{turn: func(_ context.Context, o StartOptions, _ string, _ func(session.Event)) error {
		mu.Lock()
		seen = append(seen, o)
		mu.Unlock()
		return nil
	}}
	cs := connect(t, e, nil)
	call(t, cs, ToolStart, map[string]any{"prompt": "hi", "cwd": "/w", "sandbox": "workspace-write", "approval-policy": "never"})
	call(t, cs, ToolReply, map[string]any{"prompt": "more", "threadId": "s1"})
	if len(seen) != 2 || seen[1].Cwd != "/w" || seen[1].Sandbox != "workspace-write" || seen[1].ApprovalPolicy != "never" {
		t.Errorf("turns ran with %+v", seen)
	}
}

func TestBadInput(t *testing.T) {
	e := &engine{turn: answer("x")}
	cs := connect(t, e, nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolStart, map[string]any{"prompt": "hi", "colour": "red"}, "colour"},
		{ToolStart, map[string]any{"cwd": "/w"}, "prompt"},
		{ToolStart, map[string]any{"prompt": "  "}, "prompt is empty"},
		{ToolStart, map[string]any{"prompt": "hi", "sandbox": "none"}, "sandbox"},
		{ToolStart, map[string]any{"prompt": "hi", "cwd": "/nonexistent"}, "working directory /nonexistent: not a directory"},
		{ToolReply, map[string]any{"prompt": "hi"}, "say which session"},
		{ToolReply, map[string]any{"prompt": "hi", "sessionId": "nope"}, `session "nope" was not started by this server`},
		{ToolReply, map[string]any{"prompt": "hi", "sessionId": "s1", "threadId": "s2"}, "differ"},
	} {
		res := call(t, cs, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v: error %v, %q; want an error saying %q", tc.tool, tc.args, res.IsError, text(res), tc.want)
		}
	}
	if len(e.started) != 0 || len(e.resumed) != 0 {
		t.Errorf("bad calls opened sessions: %v %v", e.started, e.resumed)
	}
	// The server is still there.
	if res := call(t, cs, ToolStart, map[string]any{"prompt": "hi"}); res.IsError {
		t.Errorf("after bad calls: %q", text(res))
	}
}

// TestConcurrentCalls: two calls run at once, each on its own session,
// and a reply to a session that is running a turn is refused.
func TestConcurrentCalls(t *testing.T) {
	arrived := make(chan string, 2)
	release := make(chan struct{})
	e := &engine{turn: func(_ context.Context, _ StartOptions, input string, emit func(session.Event)) error {
		arrived <- input
		<-release
		emit(session.MessageDone{Text: "answer to " + input})
		return nil
	}}
	cs := connect(t, e, nil)
	results := make(chan *mcp.CallToolResult, 2)
	for _, p := range []string{"a", "b"} {
		go func() {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: ToolStart, Arguments: map[string]any{"prompt": p}})
			if err != nil {
				t.Error(err)
			}
			results <- res
		}()
	}
	<-arrived
	<-arrived // both turns run at once
	res := call(t, cs, ToolReply, map[string]any{"prompt": "c", "sessionId": "s1"})
	if !res.IsError || !strings.Contains(text(res), "running a turn") {
		t.Errorf("a reply to a busy session: %q", text(res))
	}
	close(release)
	got := map[string]string{}
	for range 2 {
		r := <-results
		got[text(r)] = structured(t, r).SessionID
	}
	if len(got) != 2 || got["answer to a"] == got["answer to b"] {
		t.Errorf("answers %v; want each on its own session", got)
	}
}

func TestProgress(t *testing.T) {
	e := &engine{turn: func(_ context.Context, _ StartOptions, _ string, emit func(session.Event)) error {
		emit(session.Retry{Retry: modelclient.Retry{Layer: modelclient.LayerHTTP, Attempt: 1, Max: 4, Delay: 1500e6}})
		emit(session.ToolCallBegin{Call: tools.Call{Name: "exec_command", Input: `{"cmd":"ls  -l"}`}})
		emit(session.MessageDone{Text: "ok"})
		return nil
	}}
	msgs := make(chan string, 10)
	cs := connect(t, e, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		msgs <- r.Params.Message
	}})
	p := &mcp.CallToolParams{Name: ToolStart, Arguments: map[string]any{"prompt": "hi"}}
	p.SetProgressToken("tok")
	if _, err := cs.CallTool(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	// The notifications may be handled after the response arrives.
	for i, want := range []string{"session s1: working", "Retrying request... 1/4 in 1.5s", "tool call: exec_command: ls -l"} {
		if got := <-msgs; !strings.HasPrefix(got, want) {
			t.Errorf("progress %d = %q; want %q", i, got, want)
		}
	}
}

// TestCancel: a cancelled call stops its turn, and its session is closed.
func TestCancel(t *testing.T) {
	running := make(chan struct{})
	stopped := make(chan error, 1)
	e := &engine{turn: func(ctx context.Context, _ StartOptions, _ string, _ func(session.Event)) error {
		close(running)
		<-ctx.Done()
		stopped <- ctx.Err()
		return ctx.Err()
	}}
	cs := connect(t, e, nil)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolStart, Arguments: map[string]any{"prompt": "long"}})
		errc <- err
	}()
	<-running
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call returned %v", err)
	}
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("the turn stopped with %v", err)
	}
	// The server goes on serving.
	e.turn = answer("after")
	if res := call(t, cs, ToolStart, map[string]any{"prompt": "hi"}); text(res) != "after" {
		t.Errorf("after a cancel: %q", text(res))
	}
}

// TestDisconnect: a client that goes away mid-turn stops the turn; Run
// returns once it has ended and its session is closed.
func TestDisconnect(t *testing.T) {
	running := make(chan struct{})
	var cause error
	e := &engine{turn: func(ctx context.Context, _ StartOptions, _ string, _ func(session.Event)) error {
		close(running)
		<-ctx.Done()
		cause = context.Cause(ctx)
		return ctx.Err()
	}}
	// The client writes into toServer and reads fromServer; closing
	// toServer is the client going away (the server's stdin ends).
	srvIn, toServer := io.Pipe()
	fromServer, srvOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- New(e.options()).Run(t.Context(), &mcp.IOTransport{Reader: srvIn, Writer: srvOut}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(t.Context(), &mcp.IOTransport{Reader: fromServer, Writer: toServer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: ToolStart, Arguments: map[string]any{"prompt": "long"}})
	}()
	<-running
	toServer.Close()
	fromServer.Close()
	<-done
	if e.closed != 1 {
		t.Errorf("%d sessions closed after the disconnect; want 1", e.closed)
	}
	// The engine takes the turn for interrupted, not for a network failure.
	if cause != context.Canceled {
		t.Errorf("the turn ended with cause %v; want context.Canceled", cause)
	}
}

// TestApproval: with elicitation the client decides; without it the call
// is refused and the model told why.
func TestApproval(t *testing.T) {
	req := tools.ApprovalRequest{Kind: "command", Command: "rm -rf build", Workdir: "/w", Escalated: true, Reason: "clean"}
	var got []tools.Decision
	e := &engine{turn: func(ctx context.Context, o StartOptions, _ string, _ func(session.Event)) error {
		got = append(got, o.Approve(ctx, req))
		return nil
	}}
	call(t, connect(t, e, nil), ToolStart, map[string]any{"prompt": "hi"})
	if len(got) != 1 || got[0].Kind != tools.Deny || got[0].Note != NoElicitation {
		t.Errorf("without elicitation: %+v", got)
	}
	var asked []string
	answers := []*mcp.ElicitResult{
		{Action: "accept", Content: map[string]any{"decision": "approve"}},
		{Action: "accept", Content: map[string]any{"decision": "approve-for-session"}},
		{Action: "accept", Content: map[string]any{"decision": "deny", "note": "use make clean"}},
		{Action: "decline"},
		{Action: "cancel"},
	}
	cs := connect(t, e, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, r.Params.Message)
		a := answers[0]
		answers = answers[1:]
		return a, nil
	}})
	got = nil
	for range 5 {
		call(t, cs, ToolStart, map[string]any{"prompt": "hi"})
	}
	want := []tools.Decision{{Kind: tools.ApproveOnce}, {Kind: tools.ApproveForSession}, {Kind: tools.Deny, Note: "use make clean"},
		{Kind: tools.Deny}, {Kind: tools.AbortTurn}}
	if len(got) != len(want) {
		t.Fatalf("decisions %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("answer %d: %+v; want %+v", i, got[i], want[i])
		}
	}
	for _, w := range []string{"rm -rf build", "/w", "outside the sandbox", "Reason: clean"} {
		if len(asked) == 0 || !strings.Contains(asked[0], w) {
			t.Errorf("the elicitation %q lacks %q", asked, w)
		}
	}
}

// TestStop: when the server is asked to stop (its context ends: SIGTERM)
// mid-turn, the turn stops and Run returns once its session is closed.
func TestStop(t *testing.T) {
	running := make(chan struct{})
	e := &engine{turn: func(ctx context.Context, _ StartOptions, _ string, _ func(session.Event)) error {
		close(running)
		<-ctx.Done()
		return ctx.Err()
	}}
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- New(e.options()).Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: ToolStart, Arguments: map[string]any{"prompt": "long"}})
	}()
	<-running
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after a stop: %v", err)
	}
	if e.closed != 1 {
		t.Errorf("%d sessions closed after the stop; want 1", e.closed)
	}
	cs.Close()
}
