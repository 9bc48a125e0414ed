package frontends

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
)

// acpDir holds the node script and, once `npm ci` ran there (.ci/run
// does), the official ACP client library.
const acpDir = "../testdata/acp"

// acpNode returns node and the script, skipping the test when node or the
// library is absent (failing it under CI).
func acpNode(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(acpDir, "node_modules", "@agentclientprotocol", "sdk", "package.json"))
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run the ACP test: %v (.ci/run installs node and the library)", err)
		}
		t.Skipf("skipped: node or the ACP library is absent (%v); install it with: (cd cmd/agent/%s && npm ci)", err, acpDir)
	}
	script, err = filepath.Abs(filepath.Join(acpDir, "acp.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	return node, script
}

// TestACPClientLibrary drives agent acp with @agentclientprotocol/sdk, as
// an editor does: initialize, a new session, a prompt answered with
// streamed chunks, a command asked about with session/request_permission
// and approved, a prompt cancelled mid-answer, and the session loaded by a
// second connection (its history replayed) and continued. The script
// validates every update and request agent sends against the SDK's zod
// schemas of ACP; this test checks what it saw and what reached the model.
func TestACPClientLibrary(t *testing.T) {
	t.Parallel()
	node, script := acpNode(t)
	bin := buildAgent(t)
	work := t.TempDir()
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.ReasoningSummaryDelta("rs1", "thinking it over"),
			rt.TextDelta("m1", "hello "), rt.TextDelta("m1", "from agent"), rt.MessageDone("m1", "hello from agent"), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), rt.FunctionCallDone("fc2", "call_2", "exec_command", `{"cmd":"echo approved output > ran.txt; cat ran.txt","login":false}`), rt.Completed("r2")),
		rt.Reply("r3", "m3", "the command ran"),
		rt.Stream(rt.Created("r4"),
			rt.FunctionCallDone("fc4a", "call_plan", "update_plan", `{"plan":[{"step":"write hello","status":"in_progress"},{"step":"check it","status":"pending"}]}`),
			rt.FunctionCallDone("fc4b", "call_patch", "apply_patch", `{"input":"*** Begin Patch\n*** Add File: hello.txt\n+hi there\n*** Update File: old.txt\n@@\n-before\n+after\n*** End Patch"}`),
			rt.Completed("r4")),
		rt.Reply("r5", "m5", "patched"),
		rt.Stream(rt.Created("r6"), rt.FunctionCallDone("fc6", "call_no1", "exec_command", `{"cmd":"echo no","login":false}`), rt.Completed("r6")),
		rt.Stream(rt.Created("r7"), rt.FunctionCallDone("fc7", "call_no2", "exec_command", `{"cmd":"echo no","login":false}`), rt.Completed("r7")),
		rt.Reply("r8", "m8", "refused twice"),
		rt.Stream(rt.Created("r9"), rt.TextDelta("m9", "partial"), rt.Stall()),
		rt.Reply("r10", "m10", "loaded and answered"),
	})
	home := writeConfig(t, srv.URL, "")
	if err := os.WriteFile(filepath.Join(work, "old.txt"), []byte("before\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Env = []string{"AGENT_BIN=" + bin, "AGENT_HOME=" + home, "WORK=" + work, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=" + fakeKey, "HOME=" + t.TempDir()}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node acp.mjs: %v\n%s\n%s", err, out, stderr)
	}
	t.Logf("the script saw: %s", out)
	var got acpReport
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the script's report %q: %v", out, err)
	}
	checkACPReport(t, got, work)
	reqs := srv.Requests()
	if len(reqs) != 10 {
		t.Fatalf("%d model requests; want 10", len(reqs))
	}
	// The model chosen before the first prompt is the session's from it
	// on, with its reasoning effort; the second connection's session/load
	// opens the session with the config's model again.
	for i, r := range reqs[:9] {
		var body struct {
			Model     string
			Reasoning struct{ Effort string }
		}
		json.Unmarshal(r.Body, &body)
		if body.Model != "gpt-5.5" || body.Reasoning.Effort != "high" {
			t.Errorf("request %d: model %q, effort %q; want the chosen gpt-5.5, high", i+1, body.Model, body.Reasoning.Effort)
		}
	}
	// The loaded session's turn carries the history, the cancelled turn
	// included.
	for _, w := range []string{"say hello", "hello from agent", "run it", "take your time", "and after loading"} {
		if !strings.Contains(string(reqs[9].Body), w) {
			t.Errorf("the loaded session's request lacks %q", w)
		}
	}
}

// acpReport is what acp.mjs saw.
type acpReport struct {
	Chunks                      int
	Answer, Thought             string
	Permissions                 []string
	ToolStatus, ToolOutput      string
	Answer2, Cancelled          string
	FirstExit, SecondExit       int
	ReplayedUser, ReplayedAgent string
	ReplayedCalls               []string
	ReplayedPlans               int
	ReplayOrder                 string
	// Usage is the first turn's usage_update.
	Usage struct {
		Used, Size, Count int
		Cost              *struct {
			Amount   float64
			Currency string
		}
	}
	Plan, PatchAsked []string
	PatchStatus      string
	Diffs            []struct {
		Path             string
		OldText, NewText *string
	}
	RejectAsked    int
	RejectStatuses []string
	// The model's config option, its choice and a bad one.
	Models                                     []string
	CurrentModel, ModeOption, Chosen, BadModel string
	Efforts                                    []string
}

// checkACPReport checks what the ACP client library saw.
func checkACPReport(t *testing.T, got acpReport, work string) {
	t.Helper()
	if got.CurrentModel != "test-model" || len(got.Models) < 2 || got.Models[0] != "test-model" || !slices.Contains(got.Models, "gpt-5.5") {
		t.Errorf("the model option: current %q of %q; want the config's test-model (the provider's /models) and the catalogue", got.CurrentModel, got.Models)
	}
	if got.ModeOption != "config" {
		t.Errorf("the mode option = %q; want config", got.ModeOption)
	}
	if len(got.Efforts) < 2 || got.Efforts[0] != "default" || !slices.Contains(got.Efforts, "high") || got.Chosen != "gpt-5.5/high" {
		t.Errorf("efforts %q, chosen %q; want default first, the model's efforts (high among them) and gpt-5.5/high", got.Efforts, got.Chosen)
	}
	if !strings.Contains(got.BadModel, "-32602") || !strings.Contains(got.BadModel, "no-such-model") {
		t.Errorf("an unknown model: %s; want -32602 naming it", got.BadModel)
	}
	if got.Answer != "hello from agent" || got.Chunks != 2 {
		t.Errorf("the first answer = %q in %d chunks; want \"hello from agent\" in 2 (streamed, once)", got.Answer, got.Chunks)
	}
	// gpt-5.5's window is the catalogue's; it has no price there, so no
	// cost is guessed.
	if u := got.Usage; u.Count != 0 || u.Used <= 0 || u.Size != 272000 || u.Cost != nil {
		t.Errorf("the first turn's usage_update = %+v; want one, its tokens used of gpt-5.5's 272000 and no cost", u)
	}
	if got.Thought != "thinking it over" {
		t.Errorf("thought chunks = %q; want the reasoning summary", got.Thought)
	}
	if len(got.Permissions) != 1 || !strings.Contains(got.Permissions[0], "echo approved output") {
		t.Errorf("permission requests = %q; want one, about the command", got.Permissions)
	}
	if got.ToolStatus != "completed" || !strings.Contains(got.ToolOutput, "approved output") {
		t.Errorf("the command's update: status %q, output %q", got.ToolStatus, got.ToolOutput)
	}
	if b, err := os.ReadFile(filepath.Join(work, "ran.txt")); err != nil || string(b) != "approved output\n" {
		t.Errorf("the approved command's file: %q, %v", b, err)
	}
	if got.Answer2 != "the command ran" {
		t.Errorf("the second answer = %q", got.Answer2)
	}
	if want := []string{"write hello:in_progress", "check it:pending"}; !slices.Equal(got.Plan, want) {
		t.Errorf("the plan = %q; want %q", got.Plan, want)
	}
	if !slices.Equal(got.PatchAsked, []string{"edit"}) || got.PatchStatus != "completed" {
		t.Errorf("the patch: asked %q, status %q; want asked once as an edit, completed", got.PatchAsked, got.PatchStatus)
	}
	str := func(p *string) string {
		if p == nil {
			return "<none>"
		}
		return *p
	}
	if len(got.Diffs) != 2 || got.Diffs[0].Path != filepath.Join(work, "hello.txt") || got.Diffs[0].OldText != nil || str(got.Diffs[0].NewText) != "hi there\n" ||
		got.Diffs[1].Path != filepath.Join(work, "old.txt") || str(got.Diffs[1].OldText) != "before\n" || str(got.Diffs[1].NewText) != "after\n" {
		t.Errorf("the patch's diffs = %+v; want hello.txt added and old.txt before -> after", got.Diffs)
	}
	if got.RejectAsked != 1 || !slices.Equal(got.RejectStatuses, []string{"failed", "failed"}) {
		t.Errorf("a command rejected always: asked %d times, statuses %q; want asked once, both failed", got.RejectAsked, got.RejectStatuses)
	}
	if got.Cancelled != "cancelled" {
		t.Errorf("the cancelled prompt's stop reason = %q; want cancelled", got.Cancelled)
	}
	if got.FirstExit != 0 || got.SecondExit != 0 {
		t.Errorf("agent acp exited %d and %d when its input ended; want 0", got.FirstExit, got.SecondExit)
	}
	for _, w := range []string{"say hello", "run it", "take your time"} {
		if !strings.Contains(got.ReplayedUser, w) {
			t.Errorf("session/load replayed user messages %q; want %q among them", got.ReplayedUser, w)
		}
	}
	if !strings.Contains(got.ReplayedAgent, "hello from agent") || !strings.Contains(got.ReplayedAgent, "the command ran") {
		t.Errorf("session/load replayed agent messages %q", got.ReplayedAgent)
	}
	checkACPReplayedCalls(t, got)
}

// checkACPReplayedCalls checks the tool calls session/load replayed: each
// ended, in its turn, with its output; refused ones failed.
func checkACPReplayedCalls(t *testing.T, got acpReport) {
	t.Helper()
	if len(got.ReplayedCalls) != 4 {
		t.Fatalf("session/load replayed %d tool calls %q; want 4 (the command, the patch, two refused)", len(got.ReplayedCalls), got.ReplayedCalls)
	}
	for i, w := range []string{"execute echo approved output > ran.txt; cat ran.txt: completed", "edit Edit hello.txt, old.txt: completed", "execute echo no: failed", "execute echo no: failed"} {
		if !strings.HasPrefix(got.ReplayedCalls[i], w) {
			t.Errorf("replayed call %d = %q; want it to start %q", i+1, got.ReplayedCalls[i], w)
		}
	}
	if !strings.Contains(got.ReplayedCalls[0], "approved output") {
		t.Errorf("the replayed command %q lacks its output", got.ReplayedCalls[0])
	}
	if got.ReplayedPlans != 1 {
		t.Errorf("session/load replayed %d plans; want 1", got.ReplayedPlans)
	}
	// The command sits between its prompt and the answer that followed it.
	if !strings.Contains(got.ReplayOrder, "user_message_chunk,tool_call,agent_message_chunk") {
		t.Errorf("the replay's order %s; want a tool call between a prompt and its answer", got.ReplayOrder)
	}
}

// acpPeer is agent acp on pipes, read line by line.
type acpPeer struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan map[string]any
	// stderr is agent's.
	stderr *syncbuf.Buffer
}

func startACP(t *testing.T, bin, home, work string, args ...string) *acpPeer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"acp"}, args...)...)
	cmd.Dir = work
	cmd.Env = []string{"AGENT_HOME=" + home, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=" + fakeKey, "HOME=" + t.TempDir()}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &acpPeer{cmd: cmd, in: in, lines: make(chan map[string]any, 100), stderr: &syncbuf.Buffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"notJSON": sc.Text()}
			}
			p.lines <- m
		}
	}()
	return p
}

func (p *acpPeer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// next returns the next line agent wrote for which keep is true.
func (p *acpPeer) next(t *testing.T, what string, keep func(map[string]any) bool) map[string]any {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				t.Fatalf("agent acp's output ended waiting for %s; stderr:\n%s", what, p.stderr)
			}
			if keep(m) {
				return m
			}
		case <-timeout:
			t.Fatalf("no %s in 30s; stderr:\n%s", what, p.stderr)
		}
	}
}

// response returns the response to request id.
func (p *acpPeer) response(t *testing.T, id float64) map[string]any {
	return p.next(t, fmt.Sprintf("the response to %v", id), func(m map[string]any) bool { return m["id"] == id && m["method"] == nil })
}

// errorCode is a response's error code, 0 when it has none.
func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// TestACPBadInput sends agent acp what a broken client might: a line that
// is not JSON gets a parse error (-32700), one that is JSON but not an
// object an invalid-request error (-32600), an unknown method one naming
// it (-32601), a prompt for a session never opened invalid params; after
// each the connection goes on and runs a turn.
func TestACPBadInput(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "still here")})
	home := writeConfig(t, srv.URL, "")
	work := t.TempDir()
	p := startACP(t, bin, home, work)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if r := p.response(t, 1); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`)
	if r := p.next(t, "a parse error", func(m map[string]any) bool { return m["error"] != nil }); errorCode(r) != -32700 || r["id"] != nil {
		t.Errorf("a truncated line got %v; want a -32700 error with a null id", r)
	}
	p.send(t, `[1,2,3]`)
	if r := p.next(t, "an invalid-request error", func(m map[string]any) bool { return m["error"] != nil }); errorCode(r) != -32600 {
		t.Errorf("a JSON array got %v; want -32600", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/teleport","params":{}}`)
	if r := p.response(t, 3); errorCode(r) != -32601 || !strings.Contains(fmt.Sprint(r["error"]), "session/teleport") {
		t.Errorf("an unknown method got %v; want -32601 naming it", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`)
	if r := p.response(t, 4); errorCode(r) != -32602 || !strings.Contains(fmt.Sprint(r["error"]), "no open session nope") {
		t.Errorf("a prompt for no session got %v; want -32602 naming it", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`)
	if r := p.response(t, 5); errorCode(r) != -32602 || !strings.Contains(fmt.Sprint(r["error"]), "not an absolute path") {
		t.Errorf("a relative cwd got %v; want -32602 saying so", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":`+strconv.Quote(work)+`,"mcpServers":[]}}`)
	r := p.response(t, 6)
	sid, _ := r["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new after the bad lines: %v", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"are you there"}]}}`)
	if r := p.response(t, 7); r["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Errorf("the prompt after the bad lines: %v", r)
	}
	p.in.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("agent acp after its input ended: %v; stderr:\n%s", err, p.stderr)
	}
}

// TestACPClientGone: a client that disappears mid-turn (its pipes closed
// while a command runs) interrupts the turn, which is recorded as
// interrupted; agent acp exits and the command it ran is gone too.
func TestACPClientGone(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	work := t.TempDir()
	pidFile := filepath.Join(work, "pid")
	// A sleep of this test and run alone (its pid in the argument): another
	// run of the suite on the machine has its own, which must not be
	// counted, and so has TestE2EChatBackgroundAndInit (317.PID): at a
	// load of 20 its sleep was taken for this command's before this one
	// had started.
	arg := fmt.Sprintf("319.%d", os.Getpid())
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc1", "call_1", "exec_command",
			`{"cmd":"echo started > pid; exec sleep `+arg+`","login":false,"yield_time_ms":30000}`), rt.Completed("r1")),
	})
	home := writeConfig(t, srv.URL, "")
	p := startACP(t, bin, home, work, "-a", "never", "-s", "workspace-write")
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	p.response(t, 1)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+strconv.Quote(work)+`,"mcpServers":[]}}`)
	sid, _ := p.response(t, 2)["result"].(map[string]any)["sessionId"].(string)
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"run something long"}]}}`)
	p.next(t, "the command's tool_call", func(m map[string]any) bool {
		u, _ := m["params"].(map[string]any)["update"].(map[string]any)
		return u["sessionUpdate"] == "tool_call"
	})
	for deadline := time.Now().Add(20 * time.Second); len(sleepers(arg)) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command never started; stderr:\n%s", p.stderr)
		}
	}
	if _, err := os.Stat(pidFile); err != nil {
		t.Fatalf("the command's mark: %v", err)
	}
	// The client goes: its end of both pipes closes.
	p.in.Close()
	gone := time.Now()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("agent acp when its client went: %v; stderr:\n%s", err, p.stderr)
		}
		t.Logf("agent acp exited %v after its client went", time.Since(gone).Round(time.Millisecond))
	case <-time.After(20 * time.Second):
		t.Fatalf("agent acp still runs 20s after its client went; stderr:\n%s", p.stderr)
	}
	if left := sleepers(arg); len(left) > 0 {
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("the command agent ran (pids %v) outlived agent acp", left)
	}
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("recordings %v; want the session's", files)
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), `"turn_interrupted"`) || !strings.Contains(string(b), "run something long") {
		t.Errorf("the recording lacks the interrupted turn:\n%s", b)
	}
}

// sleepers are the processes running TestACPClientGone's command: sleep
// with the argument arg.
func sleepers(arg string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, _ := os.ReadFile(d)
		if strings.Contains(string(b), "sleep\x00"+arg+"\x00") {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			out = append(out, pid)
		}
	}
	return out
}

// TestACPSetModelAndMode: the unstable session/set_model older clients
// send ("NAME/EFFORT" as codex-acp spells it) and session/set_mode change
// the session from its next turn, each followed by a config_option_update
// with the new values; a model the catalogue lacks is refused.
func TestACPSetModelAndMode(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "on the new model")})
	home := writeConfig(t, srv.URL, "")
	work := t.TempDir()
	p := startACP(t, bin, home, work, "-a", "never", "-s", "workspace-write")
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	p.response(t, 1)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+strconv.Quote(work)+`,"mcpServers":[]}}`)
	res, _ := p.response(t, 2)["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	models, _ := res["models"].(map[string]any)
	if models["currentModelId"] != "test-model" || !strings.Contains(fmt.Sprint(models["availableModels"]), "gpt-5.5") {
		t.Fatalf("session/new's models = %v; want test-model current and the presets", models)
	}
	// The update comes before the response.
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"session/set_model","params":{"sessionId":"`+sid+`","modelId":"gpt-5.5/low"}}`)
	upd := p.next(t, "a config_option_update", func(m map[string]any) bool {
		u, _ := m["params"].(map[string]any)["update"].(map[string]any)
		return u["sessionUpdate"] == "config_option_update"
	})
	if r := p.response(t, 3); r["error"] != nil {
		t.Fatalf("session/set_model: %v", r)
	}
	opts := fmt.Sprint(upd["params"].(map[string]any)["update"].(map[string]any)["configOptions"])
	if !strings.Contains(opts, "currentValue:gpt-5.5") || !strings.Contains(opts, "currentValue:low") {
		t.Errorf("the config options after set_model: %s", opts)
	}
	p.send(t, `{"jsonrpc":"2.0","id":4,"method":"session/set_model","params":{"sessionId":"`+sid+`","modelId":"gpt-0"}}`)
	if r := p.response(t, 4); errorCode(r) != -32602 || !strings.Contains(fmt.Sprint(r["error"]), "gpt-0") {
		t.Errorf("an unknown model got %v; want -32602 naming it", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":5,"method":"session/set_mode","params":{"sessionId":"`+sid+`","modeId":"read-only"}}`)
	upd = p.next(t, "a config_option_update", func(m map[string]any) bool {
		u, _ := m["params"].(map[string]any)["update"].(map[string]any)
		return u["sessionUpdate"] == "config_option_update"
	})
	if r := p.response(t, 5); r["error"] != nil {
		t.Fatalf("session/set_mode: %v", r)
	}
	if opts := fmt.Sprint(upd["params"].(map[string]any)["update"].(map[string]any)["configOptions"]); !strings.Contains(opts, "currentValue:read-only") {
		t.Errorf("the config options after set_mode: %s", opts)
	}
	p.send(t, `{"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"hi"}]}}`)
	if r := p.response(t, 6); r["error"] != nil {
		t.Fatalf("the prompt: %v", r)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests; want 1", len(reqs))
	}
	var body struct {
		Model     string
		Reasoning struct{ Effort string }
	}
	json.Unmarshal(reqs[0].Body, &body)
	if body.Model != "gpt-5.5" || body.Reasoning.Effort != "low" {
		t.Errorf("the turn ran on %q with effort %q; want gpt-5.5, low", body.Model, body.Reasoning.Effort)
	}
}

// TestACPSessionCap: past --max-sessions a session/new or session/load
// gets an error saying so (-32001) and opens nothing; session/close frees
// a place; the sessions open go on.
func TestACPSessionCap(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "still here")})
	home := writeConfig(t, srv.URL, "")
	work := t.TempDir()
	p := startACP(t, bin, home, work, "--max-sessions", "2")
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if caps := fmt.Sprint(p.response(t, 1)["result"]); !strings.Contains(caps, "close:map[]") {
		t.Errorf("initialize does not offer session/close: %s", caps)
	}
	newSession := func(id int) map[string]any {
		p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":%s,"mcpServers":[]}}`, id, strconv.Quote(work)))
		return p.response(t, float64(id))
	}
	var ids []string
	for i := 2; i <= 3; i++ {
		r := newSession(i)
		sid, _ := r["result"].(map[string]any)["sessionId"].(string)
		if sid == "" {
			t.Fatalf("session %d: %v", i-1, r)
		}
		ids = append(ids, sid)
	}
	if r := newSession(4); errorCode(r) != -32001 || !strings.Contains(fmt.Sprint(r["error"]), "too many sessions") || !strings.Contains(fmt.Sprint(r["error"]), "--max-sessions") {
		t.Errorf("a third session got %v; want -32001 saying too many sessions and naming --max-sessions", r)
	}
	// The prompt goes on on an open session; the first session is then
	// closed and recorded, and loading it takes the freed place.
	p.send(t, `{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"`+ids[0]+`","prompt":[{"type":"text","text":"are you there"}]}}`)
	if r := p.response(t, 5); r["result"] == nil {
		t.Fatalf("a prompt past the refusal: %v", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":6,"method":"session/close","params":{"sessionId":"`+ids[0]+`"}}`)
	if r := p.response(t, 6); r["error"] != nil {
		t.Fatalf("session/close: %v", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"`+ids[0]+`","prompt":[{"type":"text","text":"hi"}]}}`)
	if r := p.response(t, 7); errorCode(r) != -32602 {
		t.Errorf("a prompt on a closed session got %v; want -32602", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":8,"method":"session/load","params":{"sessionId":"`+ids[0]+`","cwd":`+strconv.Quote(work)+`,"mcpServers":[]}}`)
	if r := p.response(t, 8); r["error"] != nil {
		t.Fatalf("session/load in the freed place: %v", r)
	}
	p.send(t, `{"jsonrpc":"2.0","id":9,"method":"session/load","params":{"sessionId":"`+ids[0]+`","cwd":`+strconv.Quote(work)+`,"mcpServers":[]}}`)
	if r := p.response(t, 9); errorCode(r) != -32001 && errorCode(r) != -32602 {
		t.Errorf("a load past the cap got %v; want refused", r)
	}
	if r := newSession(10); errorCode(r) != -32001 {
		t.Errorf("a session past the cap after the load got %v; want -32001", r)
	}
	p.in.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("agent acp after its input ended: %v; stderr:\n%s", err, p.stderr)
	}
}

// TestACPEditorFilesAndTerminals: an editor offering fs/* and terminals
// (the official client library, editor.mjs). A patch applies to the
// editor's unsaved buffer, not the disk, and its result goes to the editor
// (the disk untouched: the client saves nothing); a command runs in
// agent's sandbox — never through terminal/create — and is drawn as the
// client's terminal from the tool call's _meta; a patch outside the
// writable roots is asked about and, rejected, never reaches the editor.
func TestACPEditorFilesAndTerminals(t *testing.T) {
	t.Parallel()
	node, script := acpNode(t)
	script = filepath.Join(filepath.Dir(script), "editor.mjs")
	bin, work, outside, home := buildAgent(t), t.TempDir(), filepath.Join(t.TempDir(), "outside.txt"), t.TempDir()
	for f, text := range map[string]string{filepath.Join(work, "buf.txt"): "on disk\n", outside: "outside\n"} {
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := rt.NewServer(t, editorScript(outside, home))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("model = \"test-model\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \""+srv.URL+"\"\nenv_key = \"FAKE_KEY\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Env = []string{"AGENT_BIN=" + bin, "AGENT_HOME=" + home, "WORK=" + work, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=" + fakeKey, "HOME=" + t.TempDir()}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node editor.mjs: %v\n%s\n%s", err, out, stderr)
	}
	t.Logf("the script saw: %s", out)
	var got struct {
		Reads           []string
		Writes          map[string]string
		Permissions     []string
		PatchStatus     string
		Diffs           []struct{ Path, OldText, NewText string }
		TerminalContent []struct {
			Type, TerminalID string
		}
		TerminalInfo     map[string]any
		TerminalOutput   string
		TerminalExit     map[string]any
		CommandStatus    string
		TerminalRequests int
		ReadCalls        []string
		ReadStatuses     []string
		Exit             int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the script's report %q: %v", out, err)
	}
	buf := filepath.Join(work, "buf.txt")
	if got.PatchStatus != "completed" || len(got.Writes) != 1 || got.Writes[buf] != "patched buffer\n" {
		t.Errorf("the patch: status %q, the editor got %q; want buf.txt's buffer patched", got.PatchStatus, got.Writes)
	}
	if !slices.Contains(got.Reads, buf) {
		t.Errorf("the editor was asked for %q; want buf.txt", got.Reads)
	}
	if len(got.Diffs) != 1 || got.Diffs[0].OldText != "unsaved buffer\n" || got.Diffs[0].NewText != "patched buffer\n" {
		t.Errorf("the patch's diff = %+v; want the buffer before and after", got.Diffs)
	}
	if b, _ := os.ReadFile(buf); string(b) != "on disk\n" {
		t.Errorf("buf.txt on disk = %q; the patch went to the disk, not the editor", b)
	}
	if got.TerminalRequests != 0 {
		t.Errorf("agent asked the editor for a terminal %d times; its commands run in its sandbox", got.TerminalRequests)
	}
	if len(got.TerminalContent) != 1 || got.TerminalContent[0].Type != "terminal" || got.TerminalContent[0].TerminalID != "call_c" ||
		got.TerminalInfo["terminal_id"] != "call_c" || got.TerminalInfo["cwd"] != work {
		t.Errorf("the command's tool_call: content %+v, terminal_info %v; want a terminal call_c in %s", got.TerminalContent, got.TerminalInfo, work)
	}
	// The command ran in agent's sandbox with its environment policy: the
	// key is not in it; it read the disk, not the buffer.
	if !strings.Contains(got.TerminalOutput, "from the sandbox") || strings.Contains(got.TerminalOutput, fakeKey) || !strings.Contains(got.TerminalOutput, "on disk") {
		t.Errorf("the terminal's output = %q", got.TerminalOutput)
	}
	if got.TerminalExit["exit_code"] != float64(0) || got.CommandStatus != "completed" {
		t.Errorf("terminal_exit %v, status %q", got.TerminalExit, got.CommandStatus)
	}
	if len(got.Permissions) != 1 || !strings.Contains(got.Permissions[0], "outside.txt") {
		t.Errorf("permission requests %q; want one, for the patch outside the workspace", got.Permissions)
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside\n" {
		t.Errorf("outside.txt = %q after a rejected patch", b)
	}
	checkEditorReads(t, got.ReadCalls, got.ReadStatuses, srv.Requests(), work)
	if got.Exit != 0 {
		t.Errorf("agent acp exited %d", got.Exit)
	}
}

// editorScript is the model of TestACPEditorFilesAndTerminals: a patch
// of the buffer, a command, a patch outside the workspace, and two reads
// (the buffer, the agent home's config).
func editorScript(outside, home string) rt.Script {
	return rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc1", "call_p", "apply_patch", `{"input":"*** Begin Patch\n*** Update File: buf.txt\n@@\n-unsaved buffer\n+patched buffer\n*** End Patch"}`), rt.Completed("r1")),
		rt.Reply("r2", "m2", "patched"),
		rt.Stream(rt.Created("r3"), rt.FunctionCallDone("fc3", "call_c", "exec_command", `{"cmd":"echo from the sandbox; echo $FAKE_KEY; cat buf.txt","login":false}`), rt.Completed("r3")),
		rt.Reply("r4", "m4", "ran"),
		rt.Stream(rt.Created("r5"), rt.FunctionCallDone("fc5", "call_o", "apply_patch", `{"input":"*** Begin Patch\n*** Update File: `+outside+`\n@@\n-outside\n+escaped\n*** End Patch"}`), rt.Completed("r5")),
		rt.Reply("r6", "m6", "refused"),
		rt.Stream(rt.Created("r7"),
			rt.FunctionCallDone("fc7a", "call_r", "read_file", `{"file_path":"buf.txt"}`),
			rt.FunctionCallDone("fc7b", "call_h", "read_file", `{"file_path":`+strconv.Quote(filepath.Join(home, "config.toml"))+`}`),
			rt.Completed("r7")),
		rt.Reply("r8", "m8", "read"),
	}
}

// checkEditorReads checks the model's read_file calls of the editor test:
// the buffer read through the editor (its unsaved, patched text, not the
// disk's), the agent home refused, each shown as a read of its file.
func checkEditorReads(t *testing.T, calls, statuses []string, reqs []rt.Request, work string) {
	t.Helper()
	// The two calls run in parallel: their order is not fixed.
	calls, statuses = slices.Sorted(slices.Values(calls)), slices.Sorted(slices.Values(statuses))
	if len(calls) != 2 || calls[1] != "read Read buf.txt "+filepath.Join(work, "buf.txt") || !strings.HasSuffix(calls[0], "config.toml") {
		t.Errorf("the read_file tool calls = %q; want a read of buf.txt and one of the home's config.toml", calls)
	}
	if !slices.Equal(statuses, []string{"completed", "failed"}) {
		t.Errorf("the reads ended %q; want one completed, one failed (the agent home)", statuses)
	}
	if len(reqs) != 8 {
		t.Fatalf("%d model requests; want 8", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), `"name":"read_file"`) {
		t.Errorf("the model is not offered read_file where the editor holds the files")
	}
	last := string(reqs[7].Body)
	if !strings.Contains(last, "L1: patched buffer") || strings.Contains(last, "L1: on disk") {
		t.Errorf("the model did not read the editor's buffer: %s", last)
	}
	if !strings.Contains(last, "which the model cannot read") || strings.Contains(last, "model_providers") {
		t.Errorf("the agent home was not refused: %s", last)
	}
}

// codexACP returns the command of Codex's ACP adapter
// (@zed-industries/codex-acp, installed beside the ACP library), skipping
// the test when it is absent (failing it under CI).
func codexACP(t *testing.T) []string {
	t.Helper()
	launcher, err := filepath.Abs(filepath.Join(acpDir, "node_modules", "@zed-industries", "codex-acp", "bin", "codex-acp.js"))
	if err == nil {
		_, err = os.Stat(launcher)
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run the side-by-side test: %v (.ci/run installs codex-acp with npm ci)", err)
		}
		t.Skipf("skipped: @zed-industries/codex-acp is absent (%v); install it with: (cd cmd/agent/%s && npm ci)", err, acpDir)
	}
	return []string{"node", launcher}
}

// sideReport is what sidebyside.mjs recorded of one agent.
type sideReport struct {
	Invalid []string
	Steps   struct {
		Initialize json.RawMessage
		New        json.RawMessage
		Hello      sideTurn
		Command    struct {
			sideTurn
			File *string
		}
		Patch struct {
			sideTurn
			Files []*string
		}
		Cancel    sideTurn
		Load      json.RawMessage
		AfterLoad sideTurn
	}
	FirstExit, SecondExit any
}

// sideTurn is one prompt as sidebyside.mjs saw it.
type sideTurn struct {
	StopReason, Answer, Thought string
	Chunks                      int
	Tools                       []struct {
		Kind, Status, Output string
		Content              []string
	}
	Plan        []string
	Permissions []struct {
		Title, Kind string
		Options     []string
	}
	Others []string
}

// TestACPSideBySide runs one script of the official ACP client library
// (sidebyside.mjs: initialize, a new session, an answer, a command asked
// about and allowed, a plan and a patch, a prompt cancelled, the session
// loaded by a second connection and continued) against agent acp and
// against Codex's own adapter, @zed-industries/codex-acp, each on the
// same fake model server with the same config (one home is both
// AGENT_HOME and CODEX_HOME). It logs what each did, side by side
// (docs/editors.md records it); agent must do every step and send nothing
// the SDK's schemas reject.
func TestACPSideBySide(t *testing.T) {
	t.Parallel()
	node, _ := acpNode(t)
	codex := codexACP(t)
	bin := buildAgent(t)
	script, err := filepath.Abs(filepath.Join(acpDir, "sidebyside.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// Both at once: codex-acp takes minutes where it waits out a prompt.
	var codexRep sideReport
	var codexErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		codexRep, _, codexErr = runSideBySide(t, node, script, "codex-acp", codex)
	}()
	agent, reqs, err := runSideBySide(t, node, script, "agent acp", []string{bin, "acp"})
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if codexErr != nil {
		// What codex-acp does is recorded, not required of it.
		t.Logf("codex-acp could not be driven through the script: %v", codexErr)
	}
	t.Logf("side by side (agent | codex-acp):\n%s", sideBySide(agent, codexRep))

	if len(agent.Invalid) > 0 {
		t.Errorf("agent sent messages the SDK's schemas reject: %q", agent.Invalid)
	}
	s := agent.Steps
	if s.Hello.Answer != "hello from the model" || s.Hello.Thought != "thinking it over" {
		t.Errorf("agent's answer %q, thought %q", s.Hello.Answer, s.Hello.Thought)
	}
	if len(s.Command.Permissions) != 1 || s.Command.File == nil || *s.Command.File != "approved output\n" || len(s.Command.Tools) != 1 || s.Command.Tools[0].Status != "completed" {
		t.Errorf("agent's command: %+v", s.Command)
	}
	if len(s.Patch.Files) != 2 || s.Patch.Files[0] == nil || *s.Patch.Files[0] != "hi there\n" || s.Patch.Files[1] == nil || *s.Patch.Files[1] != "after\n" ||
		!slices.Equal(s.Patch.Plan, []string{"write hello:in_progress", "check it:pending"}) {
		t.Errorf("agent's plan and patch: %+v", s.Patch)
	}
	if s.Cancel.StopReason != "cancelled" || s.AfterLoad.Answer != "loaded and answered" {
		t.Errorf("agent's cancel %q, answer after load %q", s.Cancel.StopReason, s.AfterLoad.Answer)
	}
	// A cancelled answer is not "cut off and retried": nothing retries it.
	if s.Cancel.Thought != "" {
		t.Errorf("agent's cancelled turn said %q", s.Cancel.Thought)
	}
	if agent.FirstExit != float64(0) || agent.SecondExit != float64(0) {
		t.Errorf("agent acp exited %v and %v when its input ended; want 0", agent.FirstExit, agent.SecondExit)
	}
	if len(reqs) != 7 {
		t.Errorf("agent made %d model requests; want 7", len(reqs))
	}
}

// runSideBySide runs sidebyside.mjs with node against the ACP agent
// command, on a fake server of its own: what it saw, the model requests.
func runSideBySide(t *testing.T, node, script, name string, command []string) (rep sideReport, reqs []rt.Request, err error) {
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "old.txt"), []byte("before\n"), 0o600); err != nil {
		return rep, nil, err
	}
	srv := rt.NewServer(t, sideScript())
	home := t.TempDir()
	cfg := "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\napproval_policy = \"untrusted\"\nsandbox_mode = \"workspace-write\"\n" +
		"[model_providers.fake]\nname = \"fake\"\nbase_url = \"" + srv.URL + "\"\nenv_key = \"FAKE_KEY\"\nwire_api = \"responses\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		return rep, nil, err
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cmdline, _ := json.Marshal(command)
	cmd := exec.CommandContext(ctx, node, script)
	report := filepath.Join(t.TempDir(), "report.json")
	cmd.Env = []string{"ACP_CMD=" + string(cmdline), "REPORT=" + report, "AGENT_HOME=" + home, "CODEX_HOME=" + home, "HOME=" + home,
		"WORK=" + work, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=" + fakeKey, "RUST_LOG=error"}
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		// What it saw up to where it stopped.
		b, _ := os.ReadFile(report)
		json.Unmarshal(b, &rep)
		return rep, srv.Requests(), fmt.Errorf("%s: node sidebyside.mjs: %v\n%s\n%s", name, err, b, &stderr)
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return rep, srv.Requests(), fmt.Errorf("%s: the report %q: %v\n%s", name, out, err, &stderr)
	}
	t.Logf("%s did (%d model requests): %s\nits stderr:\n%s", name, len(srv.Requests()), out, &stderr)
	return rep, srv.Requests(), nil
}

// sideScript is the model's side of sidebyside.mjs's prompts.
func sideScript() rt.Script {
	// Items are announced (output_item.added) before their deltas, as
	// the Responses API does and codex requires; apply_patch is the
	// freeform (custom) tool call gpt-5.5 makes.
	msg := func(id string) rt.Step {
		return rt.OutputItemAdded(map[string]any{"type": "message", "id": id, "role": "assistant", "content": []any{}})
	}
	return rt.Script{
		rt.Stream(rt.Created("r1"), rt.OutputItemAdded(map[string]any{"type": "reasoning", "id": "rs1", "summary": []any{}}),
			rt.ReasoningSummaryDelta("rs1", "thinking it over"), msg("m1"),
			rt.TextDelta("m1", "hello "), rt.TextDelta("m1", "from the model"), rt.MessageDone("m1", "hello from the model"), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), rt.FunctionCallDone("fc2", "call_2", "exec_command", `{"cmd":"echo approved output > ran.txt; cat ran.txt"}`), rt.Completed("r2")),
		rt.Reply("r3", "m3", "the command ran"),
		rt.Stream(rt.Created("r4"),
			rt.FunctionCallDone("fc4a", "call_plan", "update_plan", `{"plan":[{"step":"write hello","status":"in_progress"},{"step":"check it","status":"pending"}]}`),
			rt.OutputItemDone(map[string]any{"type": "custom_tool_call", "id": "fc4b", "call_id": "call_patch", "name": "apply_patch", "status": "completed",
				"input": "*** Begin Patch\n*** Add File: hello.txt\n+hi there\n*** Update File: old.txt\n@@\n-before\n+after\n*** End Patch"}),
			rt.Completed("r4")),
		rt.Reply("r5", "m5", "patched"),
		rt.Stream(rt.Created("r6"), msg("m6"), rt.TextDelta("m6", "partial"), rt.Stall()),
		rt.Reply("r7", "m7", "loaded and answered"),
	}
}

// sideBySide lays the two reports out step by step.
func sideBySide(a, b sideReport) string {
	var sb strings.Builder
	row := func(what string, x, y any) { fmt.Fprintf(&sb, "%-28s | %v | %v\n", what, x, y) }
	turn := func(name string, x, y sideTurn) {
		row(name+" stop", x.StopReason, y.StopReason)
		row(name+" answer", fmt.Sprintf("%q in %d chunks", x.Answer, x.Chunks), fmt.Sprintf("%q in %d chunks", y.Answer, y.Chunks))
		row(name+" thought", fmt.Sprintf("%q", x.Thought), fmt.Sprintf("%q", y.Thought))
		row(name+" tools", fmt.Sprintf("%+v", x.Tools), fmt.Sprintf("%+v", y.Tools))
		row(name+" permissions", fmt.Sprintf("%+v", x.Permissions), fmt.Sprintf("%+v", y.Permissions))
		row(name+" plan", x.Plan, y.Plan)
		row(name+" other updates", x.Others, y.Others)
	}
	row("initialize", string(a.Steps.Initialize), string(b.Steps.Initialize))
	row("session/new", string(a.Steps.New), string(b.Steps.New))
	turn("hello", a.Steps.Hello, b.Steps.Hello)
	turn("command", a.Steps.Command.sideTurn, b.Steps.Command.sideTurn)
	str := func(p *string) string {
		if p == nil {
			return "<none>"
		}
		return fmt.Sprintf("%q", *p)
	}
	row("command's file", str(a.Steps.Command.File), str(b.Steps.Command.File))
	turn("patch", a.Steps.Patch.sideTurn, b.Steps.Patch.sideTurn)
	var fa, fb []string
	for _, f := range a.Steps.Patch.Files {
		fa = append(fa, str(f))
	}
	for _, f := range b.Steps.Patch.Files {
		fb = append(fb, str(f))
	}
	row("patched files", fa, fb)
	turn("cancel", a.Steps.Cancel, b.Steps.Cancel)
	row("session/load", string(a.Steps.Load), string(b.Steps.Load))
	turn("after load", a.Steps.AfterLoad, b.Steps.AfterLoad)
	row("exits", fmt.Sprint(a.FirstExit, " ", a.SecondExit), fmt.Sprint(b.FirstExit, " ", b.SecondExit))
	row("invalid messages", a.Invalid, b.Invalid)
	return sb.String()
}
