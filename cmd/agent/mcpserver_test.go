package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentcli/agent/headless/mcpserver"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
	"github.com/agentcli/agent/rollout"
)

// mcpServer is a running `agent mcp-server` with a Go SDK client on its
// standard input and output.
type mcpServer struct {
	cs      *mcp.ClientSession
	cmd     *exec.Cmd
	stdin   io.WriteCloser // closing it is the client going away
	stderr  *syncbuf.Buffer
	home    string
	waitErr chan error
}

// startMCPServer starts `agent mcp-server` on home and connects the Go
// SDK's client to it, with copts; the test's end closes both.
func startMCPServer(t *testing.T, bin, home string, copts *mcp.ClientOptions, args ...string) *mcpServer {
	t.Helper()
	cmd, _, stderr := agentCmd(t, bin, home, append([]string{"mcp-server"}, args...)...)
	cmd.Stdout = nil
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &mcpServer{cmd: cmd, stdin: stdin, stderr: stderr, home: home, waitErr: make(chan error, 1)}
	go func() { s.waitErr <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		if err := s.wait(t); err != nil {
			t.Errorf("agent mcp-server: %v\nstderr:\n%s", err, stderr)
		}
	})
	s.cs, err = mcp.NewClient(&mcp.Implementation{Name: "agent-test", Version: "1"}, copts).
		Connect(t.Context(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	return s
}

// wait waits for the server to exit (after its standard input closed).
func (s *mcpServer) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.waitErr:
		s.waitErr <- err
		return err
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		return errors.New("did not exit within a minute of its input closing")
	}
}

func (s *mcpServer) call(ctx context.Context, t *testing.T, tool string, args map[string]any, progress any) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	if progress != nil {
		p.SetProgressToken(progress)
	}
	res, err := s.cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("call %s: %v\nstderr:\n%s", tool, err, s.stderr)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func resultOutput(t *testing.T, res *mcp.CallToolResult) mcpserver.Output {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var o mcpserver.Output
	if err := json.Unmarshal(b, &o); err != nil || o.SessionID == "" {
		t.Fatalf("structured content %s: no session id (%v)", b, err)
	}
	return o
}

// lastTurn is how the recorded session id's last turn ended.
func lastTurn(t *testing.T, home, id string) rollout.TurnState {
	t.Helper()
	ent, err := rollout.Find(t.Context(), home, id)
	if err != nil {
		t.Fatalf("find session %s: %v", id, err)
	}
	ro, err := rollout.Load(ent.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ro.Warnings) > 0 {
		t.Errorf("the rollout has damaged lines: %v", ro.Warnings)
	}
	return ro.LastTurn
}

// TestMCPServer: the tools are listed; two calls at once both answer (the
// second while the first's stream is held); a reply continues the first
// session, its request carrying the first prompt and answer; and `agent
// exec resume` continues the session the server started.
func TestMCPServer(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.Barrier("first"), rt.Stall(), rt.MessageDone("m1", "first answer"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "second answer"),
		rt.Reply("r3", "m3", "reply answer"),
		rt.Reply("r4", "m4", "resumed by exec"),
	})
	home := writeConfig(t, srv.URL, "")
	s := startMCPServer(t, bin, home, nil)
	tl, err := s.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Tools) != 2 || tl.Tools[0].Name != mcpserver.ToolStart || tl.Tools[1].Name != mcpserver.ToolReply {
		t.Fatalf("tools %v", tl.Tools)
	}
	work := t.TempDir()
	first := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: mcpserver.ToolStart,
			Arguments: map[string]any{"prompt": "the first task", "cwd": work}})
		if err != nil {
			t.Error(err)
		}
		first <- res
	}()
	<-srv.Reached("first")
	second := s.call(t.Context(), t, mcpserver.ToolStart, map[string]any{"prompt": "the second task",
		"model": "other-model", "sandbox": "workspace-write", "base-instructions": "be brief"}, nil)
	if resultText(second) != "second answer" {
		t.Errorf("second call: %q", resultText(second))
	}
	srv.Release()
	res := <-first
	if res == nil || res.IsError || resultText(res) != "first answer" {
		t.Fatalf("first call: %+v", res)
	}
	a, b := resultOutput(t, res), resultOutput(t, second)
	if a.SessionID == b.SessionID || a.Content != "first answer" {
		t.Errorf("sessions %s and %s; first content %q", a.SessionID, b.SessionID, a.Content)
	}
	reply := s.call(t.Context(), t, mcpserver.ToolReply, map[string]any{"prompt": "and now?", "sessionId": a.SessionID}, nil)
	if reply.IsError || resultText(reply) != "reply answer" || resultOutput(t, reply).SessionID != a.SessionID {
		t.Errorf("reply: %q", resultText(reply))
	}
	body := string(srv.Requests()[2].Body)
	for _, w := range []string{"the first task", "first answer", "and now?"} {
		if !strings.Contains(body, w) {
			t.Errorf("the reply's request lacks %q", w)
		}
	}
	if strings.Contains(body, "the second task") {
		t.Errorf("the reply's request carries the other session's prompt")
	}
	if !strings.Contains(string(srv.Requests()[0].Body), `sandbox_mode\u003eread-only\u003c`) {
		t.Errorf("the first request does not tell the model its sandbox is read-only")
	}
	r1 := srv.Requests()[1]
	if r1.JSON["model"] != "other-model" || r1.JSON["instructions"] != "be brief" || !strings.Contains(string(r1.Body), `sandbox_mode\u003eworkspace-write\u003c`) {
		t.Errorf("the second call's settings are not in its request: model %v, instructions %v", r1.JSON["model"], r1.JSON["instructions"])
	}
	cmd, stdout, stderr := agentCmd(t, bin, home, "exec", "resume", a.SessionID, "one more")
	if err := cmd.Run(); err != nil || stdout.String() != "resumed by exec\n" {
		t.Errorf("agent exec resume: %v, %q\n%s", err, stdout, stderr)
	}
}

// TestMCPServerBadInput: unknown arguments, an unknown session id and a
// cwd that does not exist are tool errors, and the server goes on.
func TestMCPServerBadInput(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "still here")})
	s := startMCPServer(t, bin, writeConfig(t, srv.URL, ""), nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcpserver.ToolStart, map[string]any{"prompt": "hi", "colour": "red"}, "colour"},
		{mcpserver.ToolReply, map[string]any{"prompt": "hi", "sessionId": "0000-no-such"}, `session "0000-no-such" was not started by this server`},
		{mcpserver.ToolStart, map[string]any{"prompt": "hi", "cwd": "/no/such/dir"}, "/no/such/dir: not a directory"},
		{mcpserver.ToolStart, map[string]any{"prompt": "hi", "profile": "nope"}, "nope"},
	} {
		res := s.call(t.Context(), t, tc.tool, tc.args, nil)
		if !res.IsError || !strings.Contains(resultText(res), tc.want) {
			t.Errorf("%s %v: error %v, %q; want an error saying %q", tc.tool, tc.args, res.IsError, resultText(res), tc.want)
		}
	}
	if res := s.call(t.Context(), t, mcpserver.ToolStart, map[string]any{"prompt": "hi"}, nil); resultText(res) != "still here" {
		t.Errorf("after bad calls: %q", resultText(res))
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model requests; want 1", n)
	}
}

// TestMCPServerProgress: a call with a progress token hears of its
// session, and of a retry with its wait, while the request is retried.
func TestMCPServerProgress(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Status(500), rt.Reply("r1", "m1", "after a retry")})
	msgs := make(chan string, 10)
	s := startMCPServer(t, bin, writeConfig(t, srv.URL, ""), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			msgs <- r.Params.Message
		}})
	res := s.call(t.Context(), t, mcpserver.ToolStart, map[string]any{"prompt": "hi"}, "tok-1")
	if resultText(res) != "after a retry" {
		t.Fatalf("result %q", resultText(res))
	}
	id := resultOutput(t, res).SessionID
	if got := <-msgs; got != "session "+id+": working" {
		t.Errorf("first progress %q", got)
	}
	if got := <-msgs; !strings.HasPrefix(got, "Retrying request... 1/") || !strings.Contains(got, " in ") {
		t.Errorf("second progress %q; want the retry with its wait", got)
	}
}

// TestMCPServerCancel: a cancelled call stops its long stream; the turn
// is recorded interrupted and the server goes on serving.
func TestMCPServerCancel(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "a long"), rt.Barrier("long"), rt.Stall()),
	})
	msgs := make(chan string, 10)
	home := writeConfig(t, srv.URL, "")
	s := startMCPServer(t, bin, home, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			msgs <- r.Params.Message
		}})
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: mcpserver.ToolStart, Arguments: map[string]any{"prompt": "write a novel"}}
		p.SetProgressToken("tok")
		_, err := s.cs.CallTool(ctx, p)
		errc <- err
	}()
	id := strings.TrimSuffix(strings.TrimPrefix(<-msgs, "session "), ": working")
	<-srv.Reached("long")
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call: %v", err)
	}
	if _, err := s.cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("after the cancel: %v", err)
	}
	s.stdin.Close()
	if err := s.wait(t); err != nil {
		t.Fatalf("exit: %v\n%s", err, s.stderr)
	}
	if got := lastTurn(t, home, id); got != rollout.TurnInterrupted {
		t.Errorf("the cancelled turn is recorded %q; want interrupted", got)
	}
}

// TestMCPServerDisconnect: a client that goes away mid-turn (its end of
// the pipe closed), or a SIGTERM, leaves the turn stopped and recorded,
// the rollout valid, and the server exits cleanly.
func TestMCPServerDisconnect(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	for name, stop := range map[string]func(s *mcpServer){
		"disconnect": func(s *mcpServer) { s.stdin.Close() },
		"sigterm":    func(s *mcpServer) { s.cmd.Process.Signal(syscall.SIGTERM) },
	} {
		t.Run(name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{
				rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "half"), rt.Barrier("long"), rt.Stall()),
			})
			msgs := make(chan string, 10)
			home := writeConfig(t, srv.URL, "")
			s := startMCPServer(t, bin, home, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					msgs <- r.Params.Message
				}})
			go func() {
				p := &mcp.CallToolParams{Name: mcpserver.ToolStart, Arguments: map[string]any{"prompt": "a long task"}}
				p.SetProgressToken(7)
				_, _ = s.cs.CallTool(t.Context(), p)
			}()
			id := strings.TrimSuffix(strings.TrimPrefix(<-msgs, "session "), ": working")
			<-srv.Reached("long")
			stop(s)
			if err := s.wait(t); err != nil {
				t.Fatalf("exit: %v\n%s", err, s.stderr)
			}
			if got := lastTurn(t, home, id); got != rollout.TurnInterrupted {
				t.Errorf("the turn is recorded %q; want interrupted", got)
			}
		})
	}
}

// TestMCPServerApproval: under approval-policy untrusted a command is
// asked of a client that supports elicitation (and runs once approved);
// a client that does not gets it refused, and the model is told why.
func TestMCPServerApproval(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	cmdCall := func(id string) rt.Attempt {
		return rt.Stream(rt.Created("r"+id), rt.FunctionCallDone("fc"+id, "call_"+id, "exec_command", `{"cmd":"echo approved-run","login":false}`), rt.Completed("r"+id))
	}
	srv := rt.NewServer(t, rt.Script{
		cmdCall("1"), rt.Reply("r2", "m2", "ran it"),
		cmdCall("3"), rt.Reply("r4", "m4", "could not run it"),
	})
	home := writeConfig(t, srv.URL, "")
	asked := make(chan string, 1)
	s := startMCPServer(t, bin, home, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- r.Params.Message
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve"}}, nil
	}})
	args := map[string]any{"prompt": "run echo", "approval-policy": "untrusted"}
	if res := s.call(t.Context(), t, mcpserver.ToolStart, args, nil); resultText(res) != "ran it" {
		t.Errorf("with elicitation: %q", resultText(res))
	}
	if msg := <-asked; !strings.Contains(msg, "echo approved-run") {
		t.Errorf("the elicitation says %q", msg)
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, `approved-run\n`) || strings.Contains(body, "rejected") {
		t.Errorf("the approved command's output is not in the next request: %s", body)
	}
	plain := startMCPServer(t, bin, home, nil)
	if res := plain.call(t.Context(), t, mcpserver.ToolStart, args, nil); resultText(res) != "could not run it" {
		t.Errorf("without elicitation: %q", resultText(res))
	}
	if body := string(srv.Requests()[3].Body); !strings.Contains(body, "does not support elicitation") {
		t.Errorf("the model is not told why the command was refused: %s", body)
	}
}

// TestMCPServerRepliesOnlyToItsOwnSessions: a session an earlier `agent
// exec` recorded (its answer holding a secret) cannot be continued through
// agent-reply by an id prefix, nor by its full id without
// --reply-to-any-session; with it, by the full id only.
func TestMCPServerRepliesOnlyToItsOwnSessions(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "the secret is hunter2"), rt.Reply("r2", "m2", "continued")})
	home := writeConfig(t, srv.URL, "")
	cmd, _, stderr := agentCmd(t, bin, home, "exec", "remember this")
	if err := cmd.Run(); err != nil {
		t.Fatalf("exec: %v\n%s", err, stderr)
	}
	ents, err := rollout.List(t.Context(), home, "", true, 0)
	if err != nil || len(ents) != 1 {
		t.Fatalf("sessions: %v, %v", ents, err)
	}
	id := ents[0].ID
	s := startMCPServer(t, bin, home, nil)
	for _, sid := range []string{id[:4], id} {
		res := s.call(t.Context(), t, mcpserver.ToolReply, map[string]any{"prompt": "what was the secret?", "sessionId": sid}, nil)
		if !res.IsError || !strings.Contains(resultText(res), "not started by this server") {
			t.Errorf("reply to %s: error %v, %q; want a refusal", sid, res.IsError, resultText(res))
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d model requests; want 1 (exec's)", n)
	}
	other := startMCPServer(t, bin, home, nil, "--reply-to-any-session")
	if res := other.call(t.Context(), t, mcpserver.ToolReply, map[string]any{"prompt": "x", "sessionId": id[:4]}, nil); !res.IsError || !strings.Contains(resultText(res), "full id") {
		t.Errorf("--reply-to-any-session, a prefix: error %v, %q; want the full id asked for", res.IsError, resultText(res))
	}
	if res := other.call(t.Context(), t, mcpserver.ToolReply, map[string]any{"prompt": "x", "sessionId": id}, nil); res.IsError || resultText(res) != "continued" {
		t.Errorf("--reply-to-any-session, the full id: error %v, %q", res.IsError, resultText(res))
	}
}

// TestMCPServerSurvivesAMalformedLine: a line that is not JSON gets a
// -32700 error and the server answers the next request (before, it
// exited, ending every session in flight). Raw lines: the Go SDK's own
// client drops its connection at an error response with a null id.
func TestMCPServerSurvivesAMalformedLine(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "fine")})
	cmd, _, stderr := agentCmd(t, bin, writeConfig(t, srv.URL, ""), "mcp-server")
	cmd.Stdout = nil
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("agent mcp-server: %v\n%s", err, stderr)
		}
	}()
	_, _ = io.WriteString(stdin, strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"agent","arguments":{"prompt":`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		"",
	}, "\n"))
	var answers []map[string]any
	lines := bufio.NewScanner(stdout)
	for len(answers) < 3 && lines.Scan() {
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", lines.Bytes(), err)
		}
		answers = append(answers, m)
	}
	if len(answers) != 3 {
		t.Fatalf("%d answers; want 3 (initialize, the parse error, tools/list): %v\n%s", len(answers), answers, stderr)
	}
	var parseErrors, listed int
	for _, a := range answers { // the parse error may come first: it is answered as it is read
		if e, _ := a["error"].(map[string]any); e != nil && e["code"] == float64(-32700) {
			parseErrors++
		}
		if a["id"] == float64(3) && a["result"] != nil {
			listed++
		}
	}
	if parseErrors != 1 || listed != 1 {
		t.Errorf("answers %v; want one -32700 error and tools/list answered after it", answers)
	}
}
