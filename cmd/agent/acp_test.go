package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// acpDir holds the node script and, once `npm ci` ran there (.ci/run
// does), the official ACP client library.
const acpDir = "testdata/acp"

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
	node, script := acpNode(t)
	bin := buildAgent(t)
	work := t.TempDir()
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.ReasoningSummaryDelta("rs1", "thinking it over"),
			rt.TextDelta("m1", "hello "), rt.TextDelta("m1", "from agent"), rt.MessageDone("m1", "hello from agent"), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), rt.FunctionCallDone("fc2", "call_2", "exec_command", `{"cmd":"echo approved output > ran.txt; cat ran.txt","login":false}`), rt.Completed("r2")),
		rt.Reply("r3", "m3", "the command ran"),
		rt.Stream(rt.Created("r4"), rt.TextDelta("m4", "partial"), rt.Stall()),
		rt.Reply("r5", "m5", "loaded and answered"),
	})
	home := writeConfig(t, srv.URL, "")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Env = []string{"AGENT_BIN=" + bin, "AGENT_HOME=" + home, "WORK=" + work, "PATH=" + os.Getenv("PATH"), "FAKE_KEY=" + fakeKey}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node acp.mjs: %v\n%s\n%s", err, out, stderr)
	}
	t.Logf("the script saw: %s", out)
	var got struct {
		Chunks                      int
		Answer, Thought             string
		Permissions                 []string
		ToolStatus, ToolOutput      string
		Answer2, Cancelled          string
		FirstExit, SecondExit       int
		ReplayedUser, ReplayedAgent string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the script's report %q: %v", out, err)
	}
	if got.Answer != "hello from agent" || got.Chunks != 2 {
		t.Errorf("the first answer = %q in %d chunks; want \"hello from agent\" in 2 (streamed, once)", got.Answer, got.Chunks)
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
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests; want 5", len(reqs))
	}
	// The loaded session's turn carries the history, the cancelled turn
	// included.
	for _, w := range []string{"say hello", "hello from agent", "run it", "take your time", "and after loading"} {
		if !strings.Contains(string(reqs[4].Body), w) {
			t.Errorf("the loaded session's request lacks %q", w)
		}
	}
}
