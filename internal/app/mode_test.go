package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/tools/sandbox"
)

func execStep(itemID, callID, cmd string) rt.Step {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return rt.FunctionCallDone(itemID, callID, "exec_command", string(args))
}

// TestPlanModeCannotWrite: in plan mode the model's command runs under a
// read-only sandbox and cannot write the workspace, and its patch is
// refused; leaving plan mode restores the workspace-write sandbox, and the
// same command writes.
func TestPlanModeCannotWrite(t *testing.T) {
	patch, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n*** Add File: patched.txt\n+x\n*** End Patch\n"})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), execStep("e1", "c1", "echo planned > written.txt"), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), rt.FunctionCallDone("p1", "c2", "apply_patch", string(patch)), rt.Completed("r2")),
		rt.Reply("r3", "m3", "<proposed_plan>\nwrite written.txt\n</proposed_plan>"),
		rt.Stream(rt.Created("r4"), execStep("e2", "c3", "echo done > written.txt"), rt.Completed("r4")),
		rt.Reply("r5", "m5", "done"),
	})
	a, _ := testApp(t, "sandbox_mode = \"workspace-write\"\napproval_policy = \"never\"\n"+fakeConfig(srv.URL, false), false)
	th, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer th.End()
	dir := th.Workspace().Cwd
	line, err := th.SetMode("plan")
	if err != nil || !strings.Contains(line, "Plan mode on") {
		t.Fatalf("SetMode(plan) = %q, %v", line, err)
	}
	if th.Workspace().Sandbox.Mode != sandbox.ReadOnly {
		t.Fatalf("plan mode's sandbox is %s", th.Workspace().Sandbox.Mode)
	}
	turn(t, th, "plan it")
	for _, f := range []string{"written.txt", "patched.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("plan mode wrote %s (stat: %v)", f, err)
		}
	}
	if line, err = th.SetMode("default"); err != nil || !strings.Contains(line, "workspace-write") {
		t.Fatalf("SetMode(default) = %q, %v", line, err)
	}
	turn(t, th, "Implement the plan.")
	if b, err := os.ReadFile(filepath.Join(dir, "written.txt")); err != nil || string(b) != "done\n" {
		t.Fatalf("after plan mode the command did not write: %q, %v", b, err)
	}
	reqs := srv.Requests()
	if out := callOutput(reqs[1], "c1"); !strings.Contains(out, "Process exited with code") || strings.Contains(out, "failed to start") {
		t.Errorf("the plan-mode command did not run in the sandbox: %q", out)
	} else {
		t.Logf("plan-mode command: %q", out)
	}
	var env []string
	for _, it := range reqs[0].JSON["input"].([]any) {
		if b, _ := json.Marshal(it); strings.Contains(string(b), "sandbox_mode") {
			env = append(env, string(b))
		}
	}
	if len(env) == 0 || !strings.Contains(env[len(env)-1], "read-only") {
		t.Errorf("the plan turn's environment context does not say read-only: %q", env)
	}
}

// callOutput is the output request r carries for call id.
func callOutput(r rt.Request, id string) string {
	for _, it := range r.JSON["input"].([]any) {
		m := it.(map[string]any)
		if m["call_id"] == id && m["type"] == "function_call_output" {
			out, _ := m["output"].(string)
			return out
		}
	}
	return ""
}
