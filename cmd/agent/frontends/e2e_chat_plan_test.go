package frontends

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatPlanMode: /plan puts the chat in plan mode, which the status
// line shows; in it the model's command cannot write the workspace and its
// patch is not applied; its proposed plan is shown as the plan, and the
// chat asks "Implement this plan?"; yes leaves plan mode (the status line
// says so no more) and sends "Implement the plan.", whose command writes.
func TestE2EChatPlanMode(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	write, _ := json.Marshal(map[string]string{"cmd": "echo planned > written.txt"})
	patch, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n*** Add File: patched.txt\n+x\n*** End Patch\n"})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("e1", "c1", "exec_command", string(write)),
			rt.FunctionCallDone("p1", "c2", "apply_patch", string(patch)), rt.Completed("r1")),
		rt.Reply("r2", "m2", "Ready.\n<proposed_plan>\n# Write the file\nCreate written.txt.\n</proposed_plan>"),
		rt.Stream(rt.Created("r3"), rt.FunctionCallDone("e2", "c3", "exec_command", string(write)), rt.Completed("r3")),
		rt.Reply("r4", "m4", "implemented"),
	})
	home := writeConfig(t, srv.URL, "approval_policy = \"on-request\"\nsandbox_mode = \"workspace-write\"\n")
	dir := t.TempDir()
	c := startChat(t, bin, home, dir)

	c.send("/plan")
	c.waitFor("Plan mode on", "plan mode (/plan to leave)")
	c.send("plan the file")
	s := c.waitFor("Proposed plan", "Implement this plan?", "Yes, implement this plan")
	if strings.Contains(s, "<proposed_plan>") {
		t.Errorf("the plan's tags are on screen:\n%s", s)
	}
	for _, f := range []string{"written.txt", "patched.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("plan mode wrote %s (stat: %v)", f, err)
		}
	}
	c.keys("Enter")
	c.waitFor("implemented")
	c.waitIdle()
	if s := c.screen(); strings.Contains(s, "plan mode (/plan to leave)") {
		t.Errorf("the status line still shows plan mode:\n%s", s)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "written.txt")); err != nil || string(b) != "planned\n" {
		t.Errorf("after plan mode the command did not write: %q, %v", b, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests; want 4", len(reqs))
	}
	if b := string(reqs[2].Body); !strings.Contains(b, "Implement the plan.") || !strings.Contains(b, "Collaboration mode: Default") {
		t.Errorf("the request after yes lacks the prompt or the default mode: %s", b)
	}
	if b := string(reqs[1].Body); !strings.Contains(b, "Read-only file system") || !strings.Contains(b, "refused in Plan mode") {
		t.Errorf("the plan turn's outputs do not show the refusals: %s", b)
	}
	c.keys("C-d")
}

// TestE2EChatPlanModeAsks: in plan mode the model is offered
// request_user_input; its question reaches the person in the chat, whose
// choice goes back to the model as the call's output, still in plan mode.
func TestE2EChatPlanModeAsks(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	args := `{"questions":[{"id":"db","header":"Database","question":"Which database should the plan use?",` +
		`"options":[{"label":"Postgres (Recommended)","description":"What prod runs."},{"label":"SQLite","description":"One file."}]}]}`
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc1", "call_1", "request_user_input", args), rt.Completed("r1")),
		rt.Reply("r2", "m2", "<proposed_plan>\n# Use SQLite\n</proposed_plan>"),
	})
	home := writeConfig(t, srv.URL, "approval_policy = \"on-request\"\nsandbox_mode = \"workspace-write\"\n")
	c := startChat(t, bin, home, t.TempDir())
	c.send("/plan")
	c.waitFor("Plan mode on", "plan mode (/plan to leave)")
	c.send("plan the service")
	c.waitFor("Which database should the plan use?", "( ) 2. SQLite  One file.")
	c.keys("Down", "Down")
	c.waitFor("(•) 2. SQLite")
	c.keys("Enter")
	c.waitFor("Proposed plan", "Implement this plan?")
	if want, got := `{"answers":{"db":{"answers":["SQLite"]}}}`, agenttest.CallOutput(t, srv); got != want {
		t.Errorf("the model was told %s, want %s", got, want)
	}
	req := srv.Requests()[0]
	offered := false
	for _, tl := range req.JSON["tools"].([]any) {
		offered = offered || tl.(map[string]any)["name"] == "request_user_input"
	}
	if !offered || !strings.Contains(string(req.Body), "Collaboration mode: Plan") {
		t.Errorf("the plan turn's request does not offer request_user_input in plan mode (offered: %v): %s", offered, req.Body)
	}
	c.keys("C-d")
}
