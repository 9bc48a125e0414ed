package frontends

import (
	"encoding/json"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// steerScript: a command held at the barrier "steer", then the answer.
func steerScript() rt.Script {
	return rt.Script{
		rt.Stream(rt.Created("r1"), rt.Barrier("steer"), rt.Stall(), rt.FunctionCallDone("fc1", "call_1", "exec_command", `{"cmd":"echo from-the-command"}`), rt.Completed("r1")),
		rt.Reply("r2", "m2", "steered answer"),
	}
}

// steerThread runs a turn on url's server and steers it while its first
// request is held: the steer's response, the error of one with another
// turn id, the error of one after the turn ended, and the notifications
// seen.
func steerThread(t *testing.T, url string, srv *rt.Server, cwd string) (ok, wrong, late map[string]any, seen []map[string]any) {
	t.Helper()
	c := dialAppServer(t, url)
	c.initialize()
	id := c.startThread(1, map[string]any{"cwd": cwd, "approvalPolicy": "never"})
	res := c.call(2, "turn/start", map[string]any{"threadId": id, "input": []any{map[string]any{"type": "text", "text": "first ask"}}})
	turnID := res["result"].(map[string]any)["turn"].(map[string]any)["id"].(string)
	<-srv.Reached("steer")
	input := []any{map[string]any{"type": "text", "text": "also say bye"}}
	wrong = c.call(3, "turn/steer", map[string]any{"threadId": id, "expectedTurnId": "not-" + turnID, "input": input})
	ok = c.call(4, "turn/steer", map[string]any{"threadId": id, "expectedTurnId": turnID, "input": input})
	srv.Release()
	c.until(func(m map[string]any) bool { return m["method"] == "turn/completed" })
	late = c.call(5, "turn/steer", map[string]any{"threadId": id, "expectedTurnId": turnID, "input": input})
	return ok, wrong, late, c.seen
}

// checkSteer checks a steered turn on url's server as Codex 0.171's
// app-server answers it: the steer's turn id, Codex's errors for another
// turn id and for a turn that ended, the input shown as a userMessage item
// of the turn and sent as the user's last message of the next request.
// callRan says whether the held response ends and its command runs
// before the input is sent (agent), or is dropped for a new request
// (Codex).
func checkSteer(t *testing.T, url string, srv *rt.Server, work string, callRan bool) {
	ok, wrong, late, seen := steerThread(t, url, srv, work)
	if r, _ := ok["result"].(map[string]any); r == nil || r["turnId"] == "" {
		t.Errorf("turn/steer: %v", ok)
	}
	if code, msg := errorOf(wrong); code != -32600 || !strings.HasPrefix(msg, "expected active turn id `not-") {
		t.Errorf("turn/steer with another turn id: %v", wrong)
	}
	if code, msg := errorOf(late); code != -32600 || msg != "no active turn to steer" {
		t.Errorf("turn/steer after the turn: %v", late)
	}
	var shown bool
	for _, m := range seen {
		b, _ := json.Marshal(m)
		if m["method"] == "item/completed" && strings.Contains(string(b), `"type":"userMessage"`) && strings.Contains(string(b), "also say bye") {
			shown = true
		}
	}
	if !shown {
		t.Errorf("no userMessage item shows the steered input")
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests; want 2", len(reqs))
	}
	if strings.Contains(string(reqs[0].Body), "also say bye") {
		t.Errorf("the held request carried the steer")
	}
	if ran := strings.Contains(string(reqs[1].Body), "function_call_output"); ran != callRan {
		t.Errorf("the next request carries the held response's call output: %v; want %v", ran, callRan)
	}
	msgs, _ := rt.InputMessages(reqs[1].Body)
	if got := strings.Join(msgs[len(msgs)-1].Text, ""); got != "also say bye" {
		t.Errorf("the next request's last message is %q; want the steered input", got)
	}
}

// TestAppServerSteer: turn/steer adds input to a running turn of agent
// app-server, sent with the turn's next request, with Codex's errors.
func TestAppServerSteer(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, steerScript())
	url, stderr := startAppServer(t, bin, appServerConfig(t, srv.URL, false), "-s", "danger-full-access")
	checkSteer(t, validating(t, url), srv, t.TempDir(), true)
	if t.Failed() {
		t.Logf("agent:\n%s", stderr)
	}
}

// TestAppServerSteerOnCodex: the same checks hold for Codex 0.171's own
// app-server (which, steered while a response is under way, drops that
// response and asks again with the input; agent lets the response end and
// sends the input with the next request).
func TestAppServerSteerOnCodex(t *testing.T) {
	t.Parallel()
	cli := codexCLI(t)
	srv := rt.NewServer(t, steerScript())
	work := t.TempDir()
	addr, _ := startCodexAppServer(t, cli, srv.URL, "approval_policy = \"never\"\n[projects.\""+work+"\"]\ntrust_level = \"trusted\"\n")
	checkSteer(t, "ws://"+addr, srv, work, false)
}
