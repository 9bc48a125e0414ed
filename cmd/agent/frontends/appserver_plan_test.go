package frontends

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestAppServerCollaborationMode: collaborationMode/list names Codex's two
// presets; a turn started with collaborationMode plan runs read-only (the
// command cannot write, the patch is refused) and its proposed plan
// arrives as a plan item; the next turn, in default mode, writes.
func TestAppServerCollaborationMode(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	work := t.TempDir()
	write, _ := json.Marshal(map[string]string{"cmd": "echo planned > written.txt"})
	patch, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n*** Add File: patched.txt\n+x\n*** End Patch\n"})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("e1", "c1", "exec_command", string(write)),
			rt.FunctionCallDone("p1", "c2", "apply_patch", string(patch)), rt.Completed("r1")),
		rt.Reply("r2", "m2", "<proposed_plan>\n# Write the file\n</proposed_plan>"),
		rt.Stream(rt.Created("r3"), rt.FunctionCallDone("e2", "c3", "exec_command", string(write)), rt.Completed("r3")),
		rt.Reply("r4", "m4", "implemented"),
	})
	url, _ := startAppServer(t, bin, writeConfig(t, srv.URL, "sandbox_mode = \"workspace-write\"\n"))
	c := dialAppServer(t, url)
	c.initialize()
	list := c.call(1, "collaborationMode/list", map[string]any{})
	b, _ := json.Marshal(list["result"])
	if !strings.Contains(string(b), `"mode":"plan"`) || !strings.Contains(string(b), `"mode":"default"`) {
		t.Errorf("collaborationMode/list = %s", b)
	}
	id := c.startThread(2, map[string]any{"cwd": work, "approvalPolicy": "never", "sandbox": "workspace-write"})
	mode := func(m string) map[string]any {
		return map[string]any{"mode": m, "settings": map[string]any{"model": "test-model", "reasoning_effort": nil, "developer_instructions": nil}}
	}
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	res := c.call(3, "turn/start", map[string]any{"threadId": id, "input": text("plan it"), "collaborationMode": mode("plan")})
	if res["result"] == nil {
		t.Fatalf("turn/start: %v", res)
	}
	plan := c.until(func(m map[string]any) bool {
		if m["method"] != "item/completed" {
			return false
		}
		return m["params"].(map[string]any)["item"].(map[string]any)["type"] == "plan"
	})["params"].(map[string]any)["item"].(map[string]any)
	if plan["text"] != "# Write the file" {
		t.Errorf("plan item %v", plan)
	}
	c.until(isMethod("turn/completed"))
	for _, f := range []string{"written.txt", "patched.txt"} {
		if _, err := os.Stat(filepath.Join(work, f)); !os.IsNotExist(err) {
			t.Errorf("plan mode wrote %s (stat: %v)", f, err)
		}
	}
	c.call(4, "turn/start", map[string]any{"threadId": id, "input": text("Implement the plan."), "collaborationMode": mode("default")})
	c.until(isMethod("turn/completed"))
	if b, err := os.ReadFile(filepath.Join(work, "written.txt")); err != nil || string(b) != "planned\n" {
		t.Errorf("in default mode the command did not write: %q, %v", b, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || !strings.Contains(string(reqs[1].Body), "Read-only file system") || !strings.Contains(string(reqs[1].Body), "refused in Plan mode") {
		t.Errorf("%d requests; the plan turn's outputs: %s", len(reqs), reqs[1].Body)
	}
	if bad := c.call(5, "turn/start", map[string]any{"threadId": id, "input": text("x"), "collaborationMode": mode("pair")}); bad["error"] == nil {
		t.Errorf("an unknown mode was accepted: %v", bad)
	}
}
