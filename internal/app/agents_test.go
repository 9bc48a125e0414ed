package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/subagent"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// taskServer answers each session from the script of its task (the last
// user message of a request): a parent and its children, at once.
type taskServer struct {
	URL     string
	mu      sync.Mutex
	scripts map[string]*rt.Server
}

func newTaskServer(t *testing.T, scripts map[string]rt.Script) *taskServer {
	t.Helper()
	ts := &taskServer{scripts: map[string]*rt.Server{}}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		task := lastUserText(body)
		ts.mu.Lock()
		srv, ok := ts.scripts[task]
		ts.mu.Unlock()
		if !ok {
			t.Errorf("request for an unknown task %q", task)
			http.Error(w, "unknown task", http.StatusInternalServerError)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	ts.URL = hs.URL + "/v1"
	for task, script := range scripts {
		srv := rt.New(script, rt.Options{OnUnexpected: func(msg string) { t.Errorf("task %q: %s", task, msg) }})
		t.Cleanup(srv.Close)
		ts.scripts[task] = srv
	}
	return ts
}

func (ts *taskServer) requests(task string) []rt.Request { return ts.scripts[task].Requests() }

// lastUserText is the text of the last user message of a request: its
// task, after the environment context.
func lastUserText(body []byte) string {
	msgs, _ := rt.InputMessages(body)
	for _, m := range slices.Backward(msgs) {
		if m.Role == "user" && len(m.Text) > 0 {
			return m.Text[0]
		}
	}
	return ""
}

// outputs are the function_call_output items of a request, by call id.
func outputs(r rt.Request) map[string]string {
	out := map[string]string{}
	items, _ := r.JSON["input"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		if m["type"] == "function_call_output" {
			s, _ := m["output"].(string)
			out[m["call_id"].(string)] = s
		}
	}
	return out
}

// toolNames are the names of the tools a request offers.
func toolNames(r rt.Request) []string {
	var names []string
	list, _ := r.JSON["tools"].([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				names = append(names, n)
			}
		}
	}
	return names
}

func call(resp, id, name, args string) rt.Attempt {
	return rt.Stream(rt.Created(resp), rt.FunctionCallDone("fc-"+id, id, name, args), rt.Completed(resp))
}

// TestSubagentLifecycle: the model spawns a child (Codex's spawn_agent,
// message), waits for it, closes it and resumes it. The child is a
// session of its own: its own id on every request, its own rollout naming
// its parent, no collaboration tools of its own at max_depth 1. The
// tools answer in Codex's shapes.
func TestSubagentLifecycle(t *testing.T) {
	ts := newTaskServer(t, map[string]rt.Script{
		"parent task": {
			call("p1", "c1", "spawn_agent", `{"message":"child task"}`),
			call("p2", "c2", "wait_agent", `{"targets":["Euclid"],"timeout_ms":600000}`),
			call("p3", "c3", "close_agent", `{"target":"Euclid"}`),
			call("p4", "c4", "resume_agent", `{"id":"Euclid"}`),
			call("p5", "c5", "send_input", `{"target":"Euclid","message":"more","items":[]}`),
			call("p6", "c6", "spawn_agent", `{"message":"x","agent_type":"nobody"}`),
			rt.Reply("p7", "m7", "parent done"),
		},
		"child task": {rt.Reply("k1", "km1", "child answer")},
	})
	a, home := testApp(t, fakeConfig(ts.URL, false), false)
	p, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var updates []subagent.Info
	var mu sync.Mutex
	stop := p.Agents.Watch(func(i subagent.Info) { mu.Lock(); updates = append(updates, i); mu.Unlock() })
	defer stop()
	var ends []session.ToolCallEnd
	if err := p.Turn(t.Context(), "parent task", func(ev session.Event) {
		if e, ok := ev.(session.ToolCallEnd); ok {
			ends = append(ends, e)
		}
	}); err != nil {
		t.Fatal(err)
	}

	reqs := ts.requests("parent task")
	if len(reqs) != 7 {
		t.Fatalf("%d parent requests; want 7", len(reqs))
	}
	for _, name := range []string{"spawn_agent", "send_input", "resume_agent", "wait_agent", "close_agent"} {
		if !slices.Contains(toolNames(reqs[0]), name) {
			t.Errorf("the parent is not offered %s: %v", name, toolNames(reqs[0]))
		}
	}
	kids := ts.requests("child task")
	if len(kids) != 1 {
		t.Fatalf("%d child requests; want 1", len(kids))
	}
	if slices.Contains(toolNames(kids[0]), "spawn_agent") {
		t.Errorf("the child (depth 1 = max_depth) is offered spawn_agent")
	}
	childID := kids[0].Header.Get("session-id")
	if childID == "" || childID == p.ID {
		t.Fatalf("child's session id %q; want its own (parent %s)", childID, p.ID)
	}
	checkIDs(t, "child", kids, childID)

	var spawned struct{ AgentID, Nickname string }
	out := outputs(reqs[1])["c1"]
	if err := json.Unmarshal([]byte(out), &struct {
		AgentID  *string `json:"agent_id"`
		Nickname *string `json:"nickname"`
	}{&spawned.AgentID, &spawned.Nickname}); err != nil || spawned.AgentID != childID || spawned.Nickname != "Euclid" {
		t.Errorf("spawn_agent answered %s; want {agent_id: %s, nickname: Euclid}", out, childID)
	}
	wantOut := map[int]map[string]string{
		2: {"c2": `{"status":{"` + childID + `":{"completed":"child answer"}},"timed_out":false}`},
		3: {"c3": `{"previous_status":{"completed":"child answer"}}`},
		4: {"c4": `{"status":"pending_init"}`},
		5: {"c5": "Provide either message or items, but not both"},
		6: {"c6": "unknown agent_type 'nobody'"},
	}
	for n, want := range wantOut {
		for id, w := range want {
			if got := outputs(reqs[n])[id]; got != w {
				t.Errorf("request %d: output of %s = %s; want %s", n+1, id, got, w)
			}
		}
	}

	checkChildRollout(t, p, home, childID)

	checkCollabView(t, p, ends, childID, updates, &mu)
}

// checkChildRollout: the child's rollout names its parent, as Codex's
// session_meta.source.
func checkChildRollout(t *testing.T, p *Thread, home, childID string) {
	t.Helper()
	ro, err := rollout.Load(p.Agents.List()[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	sp := ro.Meta.Spawn
	if ro.Meta.ID != childID || sp == nil || sp.ParentThreadID != p.ID || sp.Depth != 1 || sp.AgentNickname != "Euclid" {
		t.Errorf("child's rollout meta %+v; want its id and a source naming parent %s at depth 1", ro.Meta, p.ID)
	}
	data, err := os.ReadFile(ro.Path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if want := `"source":{"subagent":{"thread_spawn":{"parent_thread_id":"` + p.ID + `","depth":1`; !strings.Contains(first, want) {
		t.Errorf("session_meta line %s; want Codex's %s", first, want)
	}
	if !strings.HasPrefix(ro.Path, filepath.Join(home, "sessions")) {
		t.Errorf("child's rollout %s is not under the home's sessions", ro.Path)
	}

}

// checkCollabView: the collaboration items front ends get, and the
// watchers' view of the child.
func checkCollabView(t *testing.T, p *Thread, ends []session.ToolCallEnd, childID string, updates []subagent.Info, mu *sync.Mutex) {
	t.Helper()
	var seen []string
	for _, e := range ends {
		if c := e.Result.Collab; c != nil {
			seen = append(seen, c.Tool)
			if c.Sender != p.ID {
				t.Errorf("%s: sender %s; want the parent", c.Tool, c.Sender)
			}
		}
	}
	if want := []string{"spawn_agent", "wait_agent", "close_agent", "resume_agent", "send_input", "spawn_agent"}; !slices.Equal(seen, want) {
		t.Errorf("collab calls %v; want %v", seen, want)
	}
	list := p.Agents.List()
	if len(list) != 1 || list[0].ID != childID || list[0].Parent != p.ID || list[0].Status != subagent.PendingInit {
		t.Errorf("agents %+v; want the child, resumed (pending_init)", list)
	}
	mu.Lock()
	var statuses []subagent.Status
	for _, u := range updates {
		statuses = append(statuses, u.Status)
	}
	mu.Unlock()
	if want := []subagent.Status{subagent.PendingInit, subagent.Running, subagent.Completed, subagent.Shutdown, subagent.PendingInit}; !slices.Equal(statuses, want) {
		t.Errorf("updates %v; want %v", statuses, want)
	}
}

// TestSubagentLimits: max_threads counts open children (Codex's
// "agent thread limit reached"), max_depth 0 offers no collaboration
// tools, and a role's sandbox never widens its parent's.
func TestSubagentLimits(t *testing.T) {
	ts := newTaskServer(t, map[string]rt.Script{
		"parent task": {
			call("p1", "c1", "spawn_agent", `{"message":"one"}`),
			call("p2", "c2", "spawn_agent", `{"message":"two","agent_type":"wide"}`),
			rt.Reply("p3", "m3", "done"),
		},
		"one": {rt.Stream(rt.Created("k1"), rt.Barrier("one"), rt.Stall(), rt.MessageDone("km1", "1"), rt.Completed("k1"))},
	})
	cfg := "sandbox_mode = \"read-only\"\n" + fakeConfig(ts.URL, false) + "[agents]\nmax_threads = 1\n"
	a, home := testApp(t, cfg, true)
	if err := os.MkdirAll(filepath.Join(home, "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "agents", "wide.toml"), []byte(
		"name = \"wide\"\ndescription = \"asks for more\"\ndeveloper_instructions = \"go\"\nsandbox_mode = \"danger-full-access\"\nnickname_candidates = [\"Wide\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	turn(t, p, "parent task")
	reqs := ts.requests("parent task")
	if got := outputs(reqs[2])["c2"]; got != "collab spawn failed: agent thread limit reached (max 1)" {
		t.Errorf("second spawn answered %q; want the thread limit", got)
	}
	if d, _ := json.Marshal(reqs[0].JSON["tools"]); !strings.Contains(string(d), "wide: {\\nasks for more") {
		t.Errorf("agent_type does not describe the role found in agents/: %s", d)
	}
	ws := roleWorkspace(t, p, "wide")
	if ws != "read-only" {
		t.Errorf("a role asking danger-full-access under a read-only parent got %s", ws)
	}
	ts.scripts["one"].Release()

	a0, _ := testApp(t, fakeConfig(ts.URL, false)+"[agents]\nmax_depth = 0\n", true)
	q, err := a0.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for _, tool := range []string{"spawn_agent", "wait_agent"} {
		if _, ok := q.Tools().Lookup(tool); ok {
			t.Errorf("max_depth 0 still offers %s", tool)
		}
	}
}

// roleWorkspace is the sandbox mode a child of role would get.
func roleWorkspace(t *testing.T, p *Thread, role string) string {
	t.Helper()
	roles, problems := subagent.Roles(p.a.cfg, p.a.home, p.Workspace().Cwd)
	if len(problems) > 0 {
		t.Fatalf("role problems: %v", problems)
	}
	r, ok := roles[role]
	if !ok {
		t.Fatalf("role %s not found", role)
	}
	return subagent.Narrower(string(p.Workspace().Sandbox.Mode), r.Sandbox)
}

// TestSubagentApprovalsReachTheParent: a child's command that needs
// approval is asked through its parent's approver, naming the child; an
// interrupted parent turn interrupts the child's.
func TestSubagentApprovalsReachTheParent(t *testing.T) {
	ts := newTaskServer(t, map[string]rt.Script{
		"parent task": {
			call("p1", "c1", "spawn_agent", `{"message":"child task"}`),
			call("p2", "c2", "wait_agent", `{"targets":["Euclid"],"timeout_ms":600000}`),
			rt.Reply("p3", "m3", "done"),
		},
		"child task": {
			call("k1", "x1", "exec_command", `{"cmd":"echo hi > asked.txt"}`),
			rt.Reply("k2", "km2", "child done"),
		},
	})
	a, _ := testApp(t, "approval_policy = \"untrusted\"\nsandbox_mode = \"read-only\"\n"+fakeConfig(ts.URL, false), true)
	var asked []tools.ApprovalRequest
	var mu sync.Mutex
	p, err := a.Open(t.Context(), Spec{Approve: func(_ context.Context, req tools.ApprovalRequest) tools.Decision {
		mu.Lock()
		asked = append(asked, req)
		mu.Unlock()
		return tools.Decision{Kind: tools.Deny}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	turn(t, p, "parent task")
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0].Agent != "Euclid" || !strings.Contains(asked[0].Command, "asked.txt") {
		t.Errorf("approvals asked: %+v; want the child's command, named Euclid", asked)
	}
	if _, err := os.Stat(filepath.Join(p.Workspace().Cwd, "asked.txt")); err == nil {
		t.Errorf("the denied command ran")
	}
}

// TestSubagentStopsWithItsParent: Esc (the parent turn's ctx cancelled)
// while the parent waits for a child whose command runs: the child's turn
// is interrupted and its command's process is gone; closing the parent
// leaves nothing of the child running.
func TestSubagentStopsWithItsParent(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no fifo:", err)
	}
	ts := newTaskServer(t, map[string]rt.Script{
		"parent task": {
			call("p1", "c1", "spawn_agent", `{"message":"child task"}`),
			call("p2", "c2", "wait_agent", `{"targets":["Euclid"],"timeout_ms":600000}`),
		},
		// The command's background process is a grandchild of agent, under
		// danger-full-access in no PID namespace: the guard ends it.
		"child task": {call("k1", "x1", "exec_command", `{"cmd":"sleep 300 & echo $! > `+fifo+`; wait","yield_time_ms":300000}`)},
	})
	a, _ := testApp(t, "approval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n"+fakeConfig(ts.URL, false), true)
	p, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	interrupted := make(chan struct{})
	var once sync.Once
	stop := p.Agents.Watch(func(i subagent.Info) {
		if i.Status == subagent.Interrupted {
			once.Do(func() { close(interrupted) })
		}
	})
	defer stop()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	var failed atomic.Value
	go func() {
		done <- p.Turn(ctx, "parent task", func(ev session.Event) {
			if f, ok := ev.(session.TurnFailed); ok {
				failed.Store(fmt.Sprintf("%+v", f.Err.Failure))
			}
		})
	}()
	f, err := os.Open(fifo) // blocks until the child's command writes
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	_, err = fmt.Fscan(f, &pid)
	f.Close()
	if err != nil || pid <= 0 {
		t.Fatalf("pid %d: %v", pid, err)
	}
	cancel() // Esc
	if err := <-done; err == nil {
		t.Fatal("the parent's turn completed; want it interrupted")
	}
	select {
	case <-interrupted:
	case <-time.After(30 * time.Second):
		t.Fatalf("the child was never interrupted (the parent's turn failed: %v): %+v", failed.Load(), p.Agents.List())
	}
	// Killed, it may be a zombie for a moment, until init reaps it.
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(b), ") Z ") {
		t.Errorf("the child's command's background process (pid %d) still runs after its parent was interrupted", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if got := p.Agents.List()[0].Status; got != subagent.Interrupted {
		t.Errorf("child status %s; want interrupted", got)
	}
}
