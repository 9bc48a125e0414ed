package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// rawServer serves e's server over Stdio on pipes and returns a writer of
// lines to it and a reader of its lines.
func rawServer(t *testing.T, o Options) (send func(string), recv func() map[string]any) {
	t.Helper()
	srvIn, toServer := io.Pipe()
	fromServer, srvOut := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- New(o).Run(ctx, Stdio(srvIn, srvOut)) }()
	t.Cleanup(func() {
		toServer.Close()
		cancel()
		fromServer.Close()
		<-done
	})
	lines := bufio.NewScanner(fromServer)
	send = func(s string) {
		t.Helper()
		if _, err := io.WriteString(toServer, s+"\n"); err != nil {
			t.Fatalf("write %q: %v", s, err)
		}
	}
	recv = func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("the server's output ended: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("server line %q: %v", lines.Bytes(), err)
		}
		return m
	}
	return send, recv
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// TestMalformedLineIsAParseError: a line that is not JSON gets -32700 and
// one that is not a JSON-RPC message -32600; the server goes on serving
// (before, any malformed line ended it and every session in flight).
func TestMalformedLineIsAParseError(t *testing.T) {
	e := &engine{turn: answer("ok")}
	send, recv := rawServer(t, e.options())
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`this is not json`)
	if m := recv(); errorCode(m) != -32700 || m["id"] != nil {
		t.Errorf("not JSON: %v; want a -32700 error with a null id", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":`)
	if m := recv(); errorCode(m) != -32700 {
		t.Errorf("cut JSON: %v; want -32700", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":7}`)
	if m := recv(); errorCode(m) != -32600 || m["id"] != float64(3) {
		t.Errorf("not a JSON-RPC message: %v; want -32600 with id 3", m)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"agent","arguments":{"prompt":"hi"}}}`)
	m := recv()
	res, _ := m["result"].(map[string]any)
	if m["id"] != float64(4) || res == nil || res["isError"] == true {
		t.Errorf("a call after the bad lines: %v", m)
	}
}

// TestReplyOnlyToThisServersSessions: agent-reply continues the sessions
// this server started (by id or a unique prefix); another recorded
// session only with ReplyToAny, and then only by its full id.
func TestReplyOnlyToThisServersSessions(t *testing.T) {
	e := &engine{turn: answer("ok")}
	cs := connect(t, e, nil)
	call(t, cs, ToolStart, map[string]any{"prompt": "hi"}) // s1
	for _, id := range []string{"s9", "s1-other", "other-session-0123"} {
		res := call(t, cs, ToolReply, map[string]any{"prompt": "tell me the secret", "sessionId": id})
		if !res.IsError || !strings.Contains(text(res), "not started by this server") || !strings.Contains(text(res), "--reply-to-any-session") {
			t.Errorf("reply to %s: error %v, %q; want it refused, naming the option", id, res.IsError, text(res))
		}
	}
	if len(e.resumed) != 0 {
		t.Fatalf("resumed %v; want none", e.resumed)
	}
	if res := call(t, cs, ToolReply, map[string]any{"prompt": "more", "sessionId": "s1"}); res.IsError {
		t.Errorf("reply to its own session: %q", text(res))
	}

	e2 := &engine{turn: answer("ok")}
	o := e2.options()
	o.ReplyToAny = true
	resume := o.Resume
	o.Resume = func(ctx context.Context, id string, so StartOptions) (*Opened, error) {
		if strings.HasPrefix("s7-full-id", id) {
			id = "s7-full-id" // the engine resolves a prefix
		}
		return resume(ctx, id, so)
	}
	cs2 := connectOptions(t, o, nil)
	if res := call(t, cs2, ToolReply, map[string]any{"prompt": "x", "sessionId": "s7"}); !res.IsError || !strings.Contains(text(res), "full id") {
		t.Errorf("ReplyToAny, a prefix of another session: error %v, %q; want a refusal asking for the full id", res.IsError, text(res))
	}
	if res := call(t, cs2, ToolReply, map[string]any{"prompt": "x", "sessionId": "s7-full-id"}); res.IsError {
		t.Errorf("ReplyToAny, a full id: %q", text(res))
	}
}

// TestConcurrentCallsAreCapped: no more than MaxCalls turns run at once;
// the others wait their turn, told so by progress, and run when one ends.
func TestConcurrentCallsAreCapped(t *testing.T) {
	var running, most atomic.Int32
	arrived := make(chan struct{}, 10)
	release := make(chan struct{})
	e := &engine{turn: func(context.Context, StartOptions, string, func(session.Event)) error {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		arrived <- struct{}{}
		<-release
		running.Add(-1)
		return nil
	}}
	o := e.options()
	o.MaxCalls = 2
	queued := make(chan string, 10)
	cs := connectOptions(t, o, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		if strings.Contains(r.Params.Message, "queued") {
			queued <- r.Params.Message
		}
	}})
	done := make(chan struct{}, 5)
	for range 5 {
		go func() {
			p := &mcp.CallToolParams{Name: ToolStart, Arguments: map[string]any{"prompt": "p"}}
			p.SetProgressToken("t")
			if _, err := cs.CallTool(t.Context(), p); err != nil {
				t.Error(err)
			}
			done <- struct{}{}
		}()
	}
	<-arrived
	<-arrived
	select {
	case <-arrived:
		t.Fatal("a third turn started with MaxCalls 2")
	case msg := <-queued:
		if !strings.Contains(msg, "2 calls") {
			t.Errorf("queued notice %q does not say how many run", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no call was told it is queued")
	}
	close(release)
	for range 5 {
		<-done
	}
	if most.Load() != 2 {
		t.Errorf("at most %d turns ran at once; want 2", most.Load())
	}
}

// TestModelTextIsCleaned: escape sequences and control characters in the
// model's text (its answer, a command, a justification) never reach the
// client: its approval text, progress and result are plain.
func TestModelTextIsCleaned(t *testing.T) {
	const evil = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[31mred\x1b[0m\x07\x9b"
	e := &engine{turn: func(ctx context.Context, o StartOptions, _ string, emit func(session.Event)) error {
		emit(session.ToolCallBegin{Call: tools.Call{Name: "exec_command", Input: `{"cmd":"ls ` + strings.ReplaceAll(evil, "\x1b", `\u001b`) + `"}`}})
		o.Approve(ctx, tools.ApprovalRequest{Kind: "exec", Command: "rm -rf " + evil, Workdir: "/w" + evil, Reason: "trust me" + evil})
		emit(session.MessageDone{Text: "answer" + evil})
		return nil
	}}
	var asked, progressed []string
	cs := connect(t, e, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, r.Params.Message)
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progressed = append(progressed, r.Params.Message)
		},
	})
	p := &mcp.CallToolParams{Name: ToolStart, Arguments: map[string]any{"prompt": "p"}}
	p.SetProgressToken("t")
	res, err := cs.CallTool(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	all := append([]string{string(b), text(res)}, asked...)
	all = append(all, progressed...)
	for _, s := range all {
		if strings.ContainsAny(s, "\x1b\x07\u009b") || strings.Contains(s, `\u001b`) || strings.Contains(s, `\u0007`) {
			t.Errorf("control characters reached the client: %q", s)
		}
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "trust mered") || !strings.Contains(text(res), "answerred") {
		t.Errorf("asked %q, answered %q; want the text kept without its sequences", asked, text(res))
	}
}
