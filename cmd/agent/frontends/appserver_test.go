package frontends

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// rpcClient is a test's app-server client over a WebSocket: it sends
// raw lines and reads the server's messages one at a time.
type rpcClient struct {
	t    *testing.T
	c    *websocket.Conn
	seen []map[string]any
}

func dialAppServer(t *testing.T, url string) *rpcClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(-1)
	t.Cleanup(func() { c.CloseNow() })
	return &rpcClient{t: t, c: c}
}

func (r *rpcClient) sendRaw(s string) {
	r.t.Helper()
	if err := r.c.Write(r.t.Context(), websocket.MessageText, []byte(s)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rpcClient) send(v any) {
	r.t.Helper()
	b, _ := json.Marshal(v)
	r.sendRaw(string(b))
}

// next reads the next message (30 s at most).
func (r *rpcClient) next() map[string]any {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.t.Context(), 30*time.Second)
	defer cancel()
	_, b, err := r.c.Read(ctx)
	if err != nil {
		r.t.Fatalf("read: %v; seen %v", err, r.seen)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		r.t.Fatalf("the server sent %s: %v", b, err)
	}
	r.seen = append(r.seen, m)
	return m
}

// until reads messages until one satisfies ok, and returns it.
func (r *rpcClient) until(ok func(m map[string]any) bool) map[string]any {
	r.t.Helper()
	for {
		if m := r.next(); ok(m) {
			return m
		}
	}
}

func isMethod(method string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["method"] == method }
}

func isID(id any) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["id"] == id && m["method"] == nil }
}

// call sends a request and returns its response (other messages before
// it are kept in seen).
func (r *rpcClient) call(id float64, method string, params any) map[string]any {
	r.t.Helper()
	r.send(map[string]any{"id": id, "method": method, "params": params})
	return r.until(isID(id))
}

func (r *rpcClient) initialize() {
	r.t.Helper()
	if res := r.call(0, "initialize", map[string]any{"clientInfo": map[string]any{"name": "test", "version": "1"}}); res["result"] == nil {
		r.t.Fatalf("initialize: %v", res)
	}
	r.send(map[string]any{"method": "initialized"})
}

// startThread starts a thread in cwd and returns its id.
func (r *rpcClient) startThread(id float64, params map[string]any) string {
	r.t.Helper()
	res := r.call(id, "thread/start", params)
	th, _ := res["result"].(map[string]any)["thread"].(map[string]any)
	if th == nil {
		r.t.Fatalf("thread/start: %v", res)
	}
	return th["id"].(string)
}

func errorOf(m map[string]any) (code float64, msg string) {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0, ""
	}
	c, _ := e["code"].(float64)
	s, _ := e["message"].(string)
	return c, s
}

// TestAppServerBadInput: a malformed line gets a parse error, a method
// agent does not implement an error naming it, and the connection goes
// on to run a turn.
func TestAppServerBadInput(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "still here")})
	url, _ := startAppServer(t, bin, appServerConfig(t, srv.URL, false))
	c := dialAppServer(t, url)
	c.sendRaw(`{"id":1,"method":"initialize",`)
	if code, msg := errorOf(c.next()); code != -32700 || !strings.Contains(msg, "parse error") {
		t.Errorf("a malformed line got %v; want -32700", c.seen[len(c.seen)-1])
	}
	res := c.call(2, "thread/start", map[string]any{})
	if code, msg := errorOf(res); code == 0 || !strings.Contains(msg, "initialize") {
		t.Errorf("thread/start before initialize got %v", res)
	}
	c.initialize()
	res = c.call(3, "review/start", map[string]any{"threadId": "x"})
	if code, msg := errorOf(res); code != -32601 || !strings.Contains(msg, "review/start") {
		t.Errorf("an unimplemented method got %v; want -32601 naming it", res)
	}
	res = c.call(4, "turn/start", map[string]any{"threadId": 7})
	if code, _ := errorOf(res); code != -32602 {
		t.Errorf("turn/start with a numeric threadId got %v; want -32602", res)
	}
	id := c.startThread(5, map[string]any{"cwd": t.TempDir()})
	c.call(6, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "hi"}}})
	done := c.until(isMethod("turn/completed"))
	turn := done["params"].(map[string]any)["turn"].(map[string]any)
	if turn["status"] != "completed" {
		t.Errorf("turn/completed %v", done)
	}
	items := turn["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["text"] != "still here" {
		t.Errorf("turn/completed items %v", items)
	}
}

// TestAppServerHTTP: /readyz and /healthz answer; a request with an Origin
// header is refused (403), as Codex refuses it; with --ws-token-env, a
// connection without the bearer token is refused (401) and one with it
// accepted; a ws:// address off loopback is refused without --allow-remote.
func TestAppServerHTTP(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{})
	home := appServerConfig(t, srv.URL, false)
	url, _ := startAppServerEnv(t, bin, home, []string{"APP_TOKEN=s3cret-token"}, "--ws-token-env", "APP_TOKEN")
	httpURL := "http" + strings.TrimPrefix(url, "ws")
	for _, path := range []string{"/readyz", "/healthz"} {
		resp, err := http.Get(httpURL + path)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("GET %s: %v %v", path, resp, err)
		}
		if resp != nil {
			resp.Body.Close()
		}
	}
	req, _ := http.NewRequest("GET", httpURL+"/readyz", nil)
	req.Header.Set("Origin", "http://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a request with Origin: %v %v; want 403", resp, err)
	} else {
		resp.Body.Close()
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, resp, err := websocket.Dial(ctx, url, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a connection without the token: %v; want 401", err)
	}
	h := http.Header{"Authorization": {"Bearer wrong"}}
	if _, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h}); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a connection with the wrong token: %v; want 401", err)
	}
	h = http.Header{"Authorization": {"Bearer s3cret-token"}}
	c, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("a connection with the token: %v", err)
	}
	c.CloseNow()
	out, err := exec.Command(bin, "app-server", "--listen", "ws://0.0.0.0:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not a loopback address") {
		t.Errorf("--listen ws://0.0.0.0:0 without --allow-remote: %v\n%s", err, out)
	}
}

// approvalScript asks for a command outside the sandbox, then answers.
func approvalScript(marker string) rt.Script {
	args, _ := json.Marshal(map[string]any{"cmd": "touch " + marker, "sandbox_permissions": "require_escalated", "justification": "make the file"})
	return rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc1", "call_1", "exec_command", string(args)), rt.Completed("r1")),
		rt.Reply("r2", "m2", "done"),
	}
}

// TestAppServerApproval: a command the policy asks about is a
// item/commandExecution/requestApproval to the client; "decline" keeps it
// from running, "accept" runs it.
func TestAppServerApproval(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	for _, tt := range []struct {
		decision string
		ran      bool
		status   string
	}{{"decline", false, "declined"}, {"accept", true, "completed"}} {
		t.Run(tt.decision, func(t *testing.T) {
			work := t.TempDir()
			marker := filepath.Join(work, "made-by-model")
			srv := rt.NewServer(t, approvalScript(marker))
			url, _ := startAppServer(t, bin, appServerConfig(t, srv.URL, false))
			c := dialAppServer(t, url)
			c.initialize()
			id := c.startThread(1, map[string]any{"cwd": work, "approvalPolicy": "on-request"})
			c.call(2, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "make it"}}})
			req := c.until(isMethod("item/commandExecution/requestApproval"))
			p := req["params"].(map[string]any)
			if p["itemId"] != "call_1" || !strings.Contains(p["command"].(string), "touch") || p["reason"] != "make the file" {
				t.Errorf("approval request %v", req)
			}
			c.send(map[string]any{"id": req["id"], "result": map[string]any{"decision": tt.decision}})
			item := c.until(func(m map[string]any) bool {
				if m["method"] != "item/completed" {
					return false
				}
				it := m["params"].(map[string]any)["item"].(map[string]any)
				return it["type"] == "commandExecution"
			})["params"].(map[string]any)["item"].(map[string]any)
			if item["status"] != tt.status {
				t.Errorf("command item %v; want status %s", item, tt.status)
			}
			c.until(isMethod("turn/completed"))
			if _, err := os.Stat(marker); (err == nil) != tt.ran {
				t.Errorf("after %s the command ran: %v", tt.decision, err == nil)
			}
		})
	}
}

// TestAppServerClientGoneAndResume: a client that disappears mid-turn
// interrupts it (recorded as interrupted, the thread closed so its
// rollout is free); another client resumes the thread, whose next turn
// carries the history, and agent resume finds it too.
func TestAppServerClientGoneAndResume(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Stream(rt.Created("r1"), rt.TextDelta("m1", "part"), rt.Stall()), rt.Reply("r2", "m2", "second answer")})
	home := appServerConfig(t, srv.URL, false)
	url, stderr := startAppServer(t, bin, home)
	c := dialAppServer(t, url)
	c.initialize()
	work := t.TempDir()
	id := c.startThread(1, map[string]any{"cwd": work})
	c.call(2, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "first question"}}})
	c.until(isMethod("item/agentMessage/delta"))
	c.c.CloseNow()

	c2 := dialAppServer(t, url)
	c2.initialize()
	var res map[string]any
	deadline := time.Now().Add(20 * time.Second)
	for {
		loaded := c2.call(3, "thread/loaded/list", map[string]any{})
		r, ok := loaded["result"].(map[string]any)
		if !ok {
			t.Fatalf("thread/loaded/list: %v\n%s", loaded, stderr)
		}
		if ids := r["data"].([]any); len(ids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the thread is still loaded 20 s after its only client left\n%s", stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	res = c2.call(4, "thread/resume", map[string]any{"threadId": id})
	th, _ := res["result"].(map[string]any)["thread"].(map[string]any)
	if th == nil {
		t.Fatalf("thread/resume: %v", res)
	}
	turns := th["turns"].([]any)
	if len(turns) != 1 || turns[0].(map[string]any)["status"] != "interrupted" {
		t.Errorf("the resumed thread's turns %v; want the first, interrupted", turns)
	}
	c2.call(5, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "second question"}}})
	done := c2.until(isMethod("turn/completed"))
	if st := done["params"].(map[string]any)["turn"].(map[string]any)["status"]; st != "completed" {
		t.Errorf("the resumed thread's turn: %v", done)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "first question") {
		t.Errorf("%d requests; the second must carry the first turn", len(reqs))
	}
	list := c2.call(6, "thread/list", map[string]any{})
	data := list["result"].(map[string]any)["data"].([]any)
	if len(data) != 1 || data[0].(map[string]any)["id"] != id {
		t.Errorf("thread/list %v", list)
	}
}

// TestAppServerStdio: the same protocol on standard input and output (a
// line each way); past --max-threads a thread/start gets an error saying
// so; at the end of its input the server exits.
func TestAppServerStdio(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "over stdio")})
	home := appServerConfig(t, srv.URL, false)
	cmd := exec.Command(bin, "app-server", "--max-threads", "1")
	cmd.Env = []string{"AGENT_HOME=" + home, "FAKE_KEY=" + fakeKey, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	cmd.Dir = t.TempDir()
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(out)
	read := func() map[string]any {
		t.Helper()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("stdout: %v", err)
		}
		return m
	}
	readID := func(id float64) map[string]any {
		t.Helper()
		for {
			if m := read(); m["id"] == id && m["method"] == nil {
				return m
			}
		}
	}
	io := func(s string) {
		if _, err := in.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	io(`not json`)
	if code, _ := errorOf(read()); code != -32700 {
		t.Errorf("a malformed line on stdin did not get -32700")
	}
	io(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}`)
	readID(1)
	io(`{"id":2,"method":"thread/start","params":{"cwd":"` + t.TempDir() + `"}}`)
	th := readID(2)["result"].(map[string]any)["thread"].(map[string]any)["id"].(string)
	io(`{"id":3,"method":"thread/start","params":{}}`)
	if code, msg := errorOf(readID(3)); code == 0 || !strings.Contains(msg, "at most 1 threads") {
		t.Errorf("a second thread past --max-threads 1: %v %q", code, msg)
	}
	io(`{"id":4,"method":"turn/start","params":{"threadId":"` + th + `","input":[{"type":"text","text":"hi"}]}}`)
	for {
		m := read()
		if m["method"] == "item/completed" {
			if it := m["params"].(map[string]any)["item"].(map[string]any); it["type"] == "agentMessage" {
				if it["text"] != "over stdio" {
					t.Errorf("answer %v", it)
				}
				break
			}
		}
	}
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("agent app-server at EOF: %v", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("agent app-server did not exit at the end of its input")
	}

}

// TestAppServerUnix: the protocol as a WebSocket over a UNIX socket, the
// socket readable by its owner only.
func TestAppServerUnix(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{})
	home := appServerConfig(t, srv.URL, false)
	sock := filepath.Join(t.TempDir(), "app.sock")
	ucmd := exec.Command(bin, "app-server", "--listen", "unix://"+sock)
	ucmd.Env = []string{"AGENT_HOME=" + home, "FAKE_KEY=" + fakeKey, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	if err := ucmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ucmd.Process.Kill(); ucmd.Wait() })
	var c *websocket.Conn
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
		var err error
		c, _, err = websocket.Dial(t.Context(), "ws://agent/", &websocket.DialOptions{HTTPClient: hc})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("dial %s: %v", sock, err)
		}
	}
	defer c.CloseNow()
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the socket's mode: %v %v; want 0600", st.Mode(), err)
	}
	rc := &rpcClient{t: t, c: c}
	rc.initialize()
	if res := rc.call(1, "thread/loaded/list", map[string]any{}); res["result"] == nil {
		t.Errorf("thread/loaded/list over the socket: %v", res)
	}
}
