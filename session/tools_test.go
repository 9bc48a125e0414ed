package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// withTools gives the session exec_command and update_plan in dir.
func withTools(t *testing.T, dir, policy string, approve func(context.Context, tools.ApprovalRequest) tools.Decision) option {
	t.Helper()
	return func(_ *provider.Info, o *session.Options) {
		ex := tools.NewExec(tools.ExecOptions{Cwd: dir, Shell: "/bin/sh", Policy: policy, Sandbox: tools.SandboxFullAccess})
		set, err := tools.NewSet(ex, tools.NewWriteStdin(ex), tools.Plan{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { set.Close() })
		o.Tools, o.Approve = set, approve
	}
}

func execCall(itemID, callID, cmd string) rt.Step {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return rt.FunctionCallDone(itemID, callID, "exec_command", string(args))
}

// inputTypes lists the item types (and call ids) of each request's input.
func inputTypes(t *testing.T, srv *rt.Server) [][]string {
	t.Helper()
	var out [][]string
	for _, r := range srv.Requests() {
		var row []string
		for _, it := range r.JSON["input"].([]any) {
			m := it.(map[string]any)
			s := m["type"].(string)
			if id, ok := m["call_id"].(string); ok {
				s += ":" + id
			}
			row = append(row, s)
		}
		out = append(out, row)
	}
	return out
}

func outputOf(t *testing.T, r rt.Request, callID string) string {
	t.Helper()
	for _, it := range r.JSON["input"].([]any) {
		m := it.(map[string]any)
		if m["call_id"] == callID && strings.HasSuffix(m["type"].(string), "_output") {
			return m["output"].(string)
		}
	}
	t.Fatalf("request %d has no output for %s", r.Attempt, callID)
	return ""
}

func TestMultiStepTurn(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("fc1", "call_1", "echo one > a.txt; echo wrote"), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), execCall("fc2", "call_2", "cat a.txt; exit 3"), rt.Completed("r2")),
		rt.Reply("r3", "m3", "all done"),
	}, withTools(t, dir, tools.PolicyNever, nil))
	if err := h.turn(t, "make a file"); err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"message"},
		{"message", "function_call:call_1", "function_call_output:call_1"},
		{"message", "function_call:call_1", "function_call_output:call_1", "function_call:call_2", "function_call_output:call_2"},
	}
	if diff := cmp.Diff(want, inputTypes(t, h.srv)); diff != "" {
		t.Errorf("recorded prompts (-want +got):\n%s", diff)
	}
	reqs := h.srv.Requests()
	out1 := outputOf(t, reqs[1], "call_1")
	for _, w := range []string{"Wall time: ", "Process exited with code 0\n", "Output:\nwrote\n"} {
		if !strings.Contains(out1, w) {
			t.Errorf("output 1 lacks %q:\n%s", w, out1)
		}
	}
	if out2 := outputOf(t, reqs[2], "call_2"); !strings.Contains(out2, "Process exited with code 3") || !strings.Contains(out2, "one") {
		t.Errorf("output 2 = %q", out2)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\n" {
		t.Errorf("a.txt = %q", b)
	}
	if len(reqs[0].JSON["tools"].([]any)) != 3 {
		t.Errorf("tools sent = %v", reqs[0].JSON["tools"])
	}
	if diff := cmp.Diff([]string{"all done"}, h.messages()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	for _, e := range h.sess.Ledger().Entries() {
		if e.State != session.CallFinished {
			t.Errorf("ledger %s = %s; want finished", e.CallID, e.State)
		}
	}
}

// TestDropAfterFunctionCallRunsItOnce: the stream dies right after a
// function_call completed. The call runs once; the retry carries the call
// and its output; nothing runs twice.
func TestDropAfterFunctionCallRunsItOnce(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("fc1", "call_1", "echo ran >> count.txt"), rt.Drop()),
		rt.Reply("r2", "m2", "done"),
	}, withTools(t, dir, tools.PolicyNever, nil))
	if err := h.turn(t, "count"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "count.txt")); string(b) != "ran\n" {
		t.Errorf("count.txt = %q; want exactly one run", b)
	}
	want := [][]string{{"message"}, {"message", "function_call:call_1", "function_call_output:call_1"}}
	if diff := cmp.Diff(want, inputTypes(t, h.srv)); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"done"}, h.messages()); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

func TestApprovals(t *testing.T) {
	dir := t.TempDir()
	var asked []string
	answers := []tools.Decision{{Kind: tools.Deny, Note: "not that file"}, {Kind: tools.ApproveForSession}}
	approve := func(_ context.Context, req tools.ApprovalRequest) tools.Decision {
		asked = append(asked, req.Command)
		d := answers[0]
		answers = answers[1:]
		return d
	}
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("a", "c1", "touch denied"), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), execCall("b", "c2", "touch ok"), rt.Completed("r2")),
		rt.Stream(rt.Created("r3"), execCall("c", "c3", "touch ok"), rt.Completed("r3")),
		rt.Reply("r4", "m", "fine"),
	}, withTools(t, dir, tools.PolicyUntrusted, approve))
	if err := h.turn(t, "go"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"touch denied", "touch ok"}, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, "denied")); !os.IsNotExist(err) {
		t.Error("a denied command ran")
	}
	reqs := h.srv.Requests()
	if got := outputOf(t, reqs[1], "c1"); got != "exec command rejected by user: not that file" {
		t.Errorf("denial output = %q", got)
	}
	if st := h.sess.Ledger().State("c1"); st != session.CallDeclined {
		t.Errorf("ledger c1 = %s; want declined", st)
	}
}

func TestAbortTurnFromApproval(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("a", "c1", "touch x"), rt.Completed("r1")),
	}, withTools(t, dir, tools.PolicyUntrusted, func(context.Context, tools.ApprovalRequest) tools.Decision {
		return tools.Decision{Kind: tools.AbortTurn}
	}))
	err := h.turn(t, "go")
	if kindOf(t, err) != modelclient.KindCanceled {
		t.Errorf("kind = %v; want canceled", kindOf(t, err))
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Error("an aborted command ran")
	}
}

func TestParallelCallsKeepOrder(t *testing.T) {
	plan := func(item, call, step string) rt.Step {
		args, _ := json.Marshal(map[string]any{"plan": []map[string]string{{"step": step, "status": "in_progress"}}})
		return rt.FunctionCallDone(item, call, "update_plan", string(args))
	}
	bad := rt.FunctionCallDone("p3", "c3", "update_plan", `{"plan":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}`)
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), plan("p1", "c1", "one"), plan("p2", "c2", "two"), bad, rt.Completed("r1")),
		rt.Reply("r2", "m", "ok"),
	}, withTools(t, t.TempDir(), tools.PolicyNever, nil))
	if err := h.turn(t, "plan"); err != nil {
		t.Fatal(err)
	}
	want := []string{"message", "function_call:c1", "function_call:c2", "function_call:c3",
		"function_call_output:c1", "function_call_output:c2", "function_call_output:c3"}
	if diff := cmp.Diff(want, inputTypes(t, h.srv)[1]); diff != "" {
		t.Errorf("follow-up input (-want +got):\n%s", diff)
	}
	if got := outputOf(t, h.srv.Requests()[1], "c3"); !strings.Contains(got, "at most one step can be in_progress") {
		t.Errorf("invalid plan output = %q", got)
	}
}

func TestUnknownToolAndBadArguments(t *testing.T) {
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("a", "c1", "teleport", `{}`),
			rt.FunctionCallDone("b", "c2", "exec_command", `{not json`), rt.Completed("r1")),
		rt.Reply("r2", "m", "ok"),
	}, withTools(t, t.TempDir(), tools.PolicyNever, nil))
	if err := h.turn(t, "go"); err != nil {
		t.Fatal(err)
	}
	r := h.srv.Requests()[1]
	if got := outputOf(t, r, "c1"); got != `unknown tool "teleport"` {
		t.Errorf("unknown tool output = %q", got)
	}
	if got := outputOf(t, r, "c2"); !strings.Contains(got, "failed to parse function arguments") {
		t.Errorf("bad args output = %q", got)
	}
}

// TestInterruptedCallIsAbortedNotRun: the turn is cancelled while the
// model's call is pending; the call never runs and the next prompt
// answers it "aborted".
func TestInterruptedCallIsAbortedNotRun(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), execCall("a", "c1", "touch never"), rt.TextDelta("m", "then"), rt.Stall()),
		rt.Reply("r2", "m", "ok"),
	}, withTools(t, dir, tools.PolicyNever, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The delta follows the call on the wire: once it is here, the call is
	// recorded. Interrupt then.
	err := h.sess.Turn(ctx, "go", func(ev session.Event) {
		if _, ok := ev.(session.TextDelta); ok {
			cancel()
		}
	})
	if kindOf(t, err) != modelclient.KindCanceled {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "never")); !os.IsNotExist(err) {
		t.Error("the call ran after the interrupt")
	}
	if err := h.turn(t, "again"); err != nil {
		t.Fatal(err)
	}
	if got := outputOf(t, h.srv.Requests()[1], "c1"); got != "aborted" {
		t.Errorf("pending call output = %q; want aborted", got)
	}
}

// TestInterruptAbortsPendingCallsInOneStep: one response with 20,000 tool
// calls, interrupted while the first runs: the others are not begun,
// asked about or announced one by one (100,000 took minutes to stop):
// they are recorded aborted together and the turn ends.
func TestInterruptAbortsPendingCallsInOneStep(t *testing.T) {
	const n = 20000
	steps := []rt.Step{rt.Created("r1")}
	for i := range n {
		steps = append(steps, execCall(fmt.Sprintf("i%d", i), fmt.Sprintf("c%d", i), "true"))
	}
	steps = append(steps, rt.Completed("r1"))
	dir := t.TempDir()
	h := newHarness(t, rt.Script{rt.Stream(steps...), rt.Reply("r2", "m", "ok")}, withTools(t, dir, tools.PolicyNever, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	begun := 0
	err := h.sess.Turn(ctx, "go", func(ev session.Event) {
		if _, ok := ev.(session.ToolCallBegin); ok {
			begun++
			cancel()
		}
	})
	if kindOf(t, err) != modelclient.KindCanceled {
		t.Fatalf("err = %v", err)
	}
	if begun != 1 {
		t.Errorf("%d calls begun after the interrupt; want only the one running", begun)
	}
	if err := h.turn(t, "again"); err != nil {
		t.Fatal(err)
	}
	req := h.srv.Requests()[1]
	for _, id := range []string{"c1", "c9999", fmt.Sprintf("c%d", n-1)} {
		if got := outputOf(t, req, id); got != "aborted" {
			t.Errorf("output of %s = %q; want aborted", id, got)
		}
	}
}
