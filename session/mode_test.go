package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/provider"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// withPlanTools gives the session exec_command, apply_patch and
// update_plan in dir under the on-request policy, and counts the approvals
// asked.
func withPlanTools(t *testing.T, dir string, asked *int) option {
	t.Helper()
	return func(_ *provider.Info, o *session.Options) {
		ex := tools.NewExec(tools.ExecOptions{Cwd: dir, Shell: "/bin/sh", Policy: tools.PolicyOnRequest, Sandbox: tools.SandboxWorkspaceWrite})
		set, err := tools.NewSet(ex, tools.NewApplyPatch(tools.PatchOptions{Cwd: dir, Policy: tools.PolicyOnRequest, Sandbox: tools.SandboxWorkspaceWrite}), tools.Plan{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { set.Close() })
		o.Tools = set
		o.Approve = func(context.Context, tools.ApprovalRequest) tools.Decision {
			*asked++
			return tools.Decision{Kind: tools.ApproveOnce}
		}
	}
}

func patchCall(itemID, callID, file string) rt.Step {
	args, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n*** Add File: " + file + "\n+planned\n*** End Patch\n"})
	return rt.FunctionCallDone(itemID, callID, "apply_patch", string(args))
}

// developerTexts are the developer messages of request r's input.
func developerTexts(r rt.Request) []string {
	var out []string
	for _, it := range r.JSON["input"].([]any) {
		m := it.(map[string]any)
		if m["role"] != "developer" {
			continue
		}
		for _, c := range m["content"].([]any) {
			out = append(out, c.(map[string]any)["text"].(string))
		}
	}
	return out
}

// TestPlanModeRefusesChanges: in plan mode the model is told so, a patch
// is refused (the file never appears), update_plan is refused with
// Codex's words, a command asking to leave the sandbox is denied without
// asking the user, and the proposed plan is announced; back in the
// default mode the model is told, and the same patch applies.
func TestPlanModeRefusesChanges(t *testing.T) {
	dir := t.TempDir()
	escalate, _ := json.Marshal(map[string]string{"cmd": "touch escaped", "sandbox_permissions": "require_escalated", "justification": "write"})
	asked := 0
	h := newHarness(t, rt.Script{
		rt.Stream(rt.Created("r1"), patchCall("p1", "call_patch", "plan.txt"),
			rt.FunctionCallDone("u1", "call_plan", "update_plan", `{"plan":[{"step":"a","status":"pending"}]}`), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), rt.FunctionCallDone("e1", "call_esc", "exec_command", string(escalate)), rt.Completed("r2")),
		rt.Reply("r3", "m3", "Here it is.\n<proposed_plan>\n# Add plan.txt\nWrite it.\n</proposed_plan>"),
		rt.Stream(rt.Created("r4"), patchCall("p2", "call_patch2", "plan.txt"), rt.Completed("r4")),
		rt.Reply("r5", "m5", "done"),
	}, withPlanTools(t, dir, &asked))
	if h.sess.Mode() != session.ModeDefault {
		t.Fatalf("a new session is in %q mode", h.sess.Mode())
	}
	h.sess.Configure(func(st *session.Settings) { st.Mode = session.ModePlan })
	if h.sess.Mode() != session.ModePlan {
		t.Fatalf("Mode() = %q after the change", h.sess.Mode())
	}
	if err := h.turn(t, "plan the file"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "plan.txt")); !os.IsNotExist(err) {
		t.Fatalf("plan mode applied the patch (stat: %v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "escaped")); !os.IsNotExist(err) {
		t.Fatalf("plan mode ran an escalated command (stat: %v)", err)
	}
	if asked != 0 {
		t.Errorf("plan mode asked the user %d times; escalations are denied without asking", asked)
	}
	reqs := h.srv.Requests()
	if dev := developerTexts(reqs[0]); len(dev) != 1 || !strings.Contains(dev[0], "<collaboration_mode># Collaboration mode: Plan") {
		t.Errorf("plan turn's developer messages %q", dev)
	}
	if out := outputOf(t, reqs[1], "call_patch"); !strings.Contains(out, "refused in Plan mode") {
		t.Errorf("patch output %q", out)
	}
	if out := outputOf(t, reqs[1], "call_plan"); out != "update_plan is a TODO/checklist tool and is not allowed in Plan mode" {
		t.Errorf("update_plan output %q", out)
	}
	if out := outputOf(t, reqs[2], "call_esc"); !strings.Contains(out, "Plan mode is read-only") {
		t.Errorf("escalated command output %q", out)
	}
	var plans []string
	changed := 0
	for _, ev := range h.events {
		switch ev := ev.(type) {
		case session.PlanProposed:
			plans = append(plans, ev.Plan)
		case session.ModeChanged:
			changed++
		}
	}
	if len(plans) != 1 || plans[0] != "# Add plan.txt\nWrite it." || changed != 1 {
		t.Fatalf("proposed plans %q, %d mode changes", plans, changed)
	}

	h.sess.Configure(func(st *session.Settings) { st.Mode = session.ModeDefault })
	if err := h.turn(t, "Implement the plan."); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "plan.txt")); err != nil || string(b) != "planned\n" {
		t.Fatalf("after plan mode the patch did not apply: %q, %v", b, err)
	}
	if dev := developerTexts(h.srv.Requests()[3]); len(dev) != 2 || !strings.Contains(dev[1], "# Collaboration mode: Default") {
		t.Errorf("default turn's developer messages %q", dev)
	}
}

// TestResumedPlanModeGoesOn: a session resumed from a history left in
// plan mode is in plan mode.
func TestResumedPlanModeGoesOn(t *testing.T) {
	h := newHarness(t, rt.Script{rt.Reply("r1", "m1", "ok")}, func(_ *provider.Info, o *session.Options) {})
	h.sess.Configure(func(st *session.Settings) { st.Mode = session.ModePlan })
	if err := h.turn(t, "plan"); err != nil {
		t.Fatal(err)
	}
	history := h.sess.History()
	resumed := newHarness(t, rt.Script{}, func(_ *provider.Info, o *session.Options) { o.Resumed = history }).sess
	if resumed.Mode() != session.ModePlan {
		t.Fatalf("resumed mode %q", resumed.Mode())
	}
}
