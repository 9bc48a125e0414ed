package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/tools"
)

const addHello = "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n"

func runPatch(t *testing.T, tool *tools.ApplyPatch, text string, custom bool, approve func(tools.ApprovalRequest) tools.Decision) (tools.Result, bool) {
	t.Helper()
	input := text
	if !custom {
		b, _ := json.Marshal(map[string]string{"input": text})
		input = string(b)
	}
	started := false
	res := tool.Run(context.Background(), &tools.Invocation{
		Call:    tools.Call{ID: "p", Name: "apply_patch", Input: input, Custom: custom},
		Started: func() error { started = true; return nil },
		Approve: func(_ context.Context, req tools.ApprovalRequest) tools.Decision {
			if approve == nil {
				t.Fatalf("unexpected approval request %+v", req)
			}
			return approve(req)
		},
	})
	return res, started
}

func TestApplyPatchTool(t *testing.T) {
	t.Run("workspace-write applies", func(t *testing.T) {
		dir := t.TempDir()
		tool := tools.NewApplyPatch(tools.PatchOptions{Cwd: dir, Policy: tools.PolicyNever, Sandbox: tools.SandboxWorkspaceWrite})
		res, started := runPatch(t, tool, addHello, false, nil)
		if res.Status != tools.StatusCompleted || !started || res.Output != "Success. Updated the following files:\nA hello.txt\n" {
			t.Fatalf("result = %+v", res)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "hello.txt")); string(b) != "hi\n" {
			t.Errorf("hello.txt = %q", b)
		}
		if len(res.Files) != 1 || !strings.Contains(res.Diff, "+hi") {
			t.Errorf("files %v diff %q", res.Files, res.Diff)
		}
	})
	t.Run("freeform input", func(t *testing.T) {
		dir := t.TempDir()
		tool := tools.NewApplyPatch(tools.PatchOptions{Cwd: dir, Policy: tools.PolicyNever, Sandbox: tools.SandboxWorkspaceWrite, Freeform: true})
		if res, _ := runPatch(t, tool, addHello, true, nil); res.Status != tools.StatusCompleted {
			t.Fatalf("result = %+v", res)
		}
		var spec map[string]any
		json.Unmarshal(tool.Spec(), &spec)
		if spec["type"] != "custom" {
			t.Errorf("freeform spec type = %v", spec["type"])
		}
	})
	t.Run("read-only with never refuses and changes nothing", func(t *testing.T) {
		dir := t.TempDir()
		tool := tools.NewApplyPatch(tools.PatchOptions{Cwd: dir, Policy: tools.PolicyNever, Sandbox: tools.SandboxReadOnly})
		res, started := runPatch(t, tool, addHello, false, nil)
		if res.Status != tools.StatusDeclined || started || !strings.Contains(res.Output, "outside the writable roots") {
			t.Errorf("result = %+v started=%v", res, started)
		}
		if _, err := os.Stat(filepath.Join(dir, "hello.txt")); !os.IsNotExist(err) {
			t.Error("file written under read-only")
		}
	})
	t.Run(".git is read-only", func(t *testing.T) {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, ".git"), 0o755)
		tool := tools.NewApplyPatch(tools.PatchOptions{Cwd: dir, Policy: tools.PolicyNever, Sandbox: tools.SandboxWorkspaceWrite})
		res, _ := runPatch(t, tool, "*** Begin Patch\n*** Add File: .git/hooks/x\n+evil\n*** End Patch\n", false, nil)
		if res.Status != tools.StatusDeclined {
			t.Errorf("result = %+v", res)
		}
	})
	t.Run("on-request asks to write outside, approval applies", func(t *testing.T) {
		dir := t.TempDir()
		tool := tools.NewApplyPatch(tools.PatchOptions{Cwd: dir, Policy: tools.PolicyOnRequest, Sandbox: tools.SandboxReadOnly})
		asked := false
		res, _ := runPatch(t, tool, addHello, false, func(req tools.ApprovalRequest) tools.Decision {
			asked = true
			if req.Kind != "patch" || len(req.Files) != 1 || req.Files[0] != "hello.txt" {
				t.Errorf("request = %+v", req)
			}
			if want := "--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+hi\n"; req.Diff != want {
				t.Errorf("the request's diff = %q, want %q", req.Diff, want)
			}
			return tools.Decision{Kind: tools.ApproveOnce}
		})
		if !asked || res.Status != tools.StatusCompleted {
			t.Errorf("asked=%v result=%+v", asked, res)
		}
	})
	t.Run("a failing hunk tells the model why and changes nothing", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
		tool := tools.NewApplyPatch(tools.PatchOptions{Cwd: dir, Policy: tools.PolicyNever, Sandbox: tools.SandboxWorkspaceWrite})
		res, started := runPatch(t, tool, "*** Begin Patch\n*** Update File: a.txt\n@@\n-three\n+four\n*** End Patch\n", false, nil)
		if res.Status != tools.StatusFailed || started || !strings.Contains(res.Output, "a.txt") {
			t.Errorf("result = %+v", res)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\ntwo\n" {
			t.Errorf("a.txt changed: %q", b)
		}
	})
	t.Run("parse error", func(t *testing.T) {
		tool := tools.NewApplyPatch(tools.PatchOptions{Cwd: t.TempDir(), Policy: tools.PolicyNever, Sandbox: tools.SandboxWorkspaceWrite})
		res, _ := runPatch(t, tool, "not a patch", false, nil)
		if res.Status != tools.StatusFailed || !strings.Contains(res.Output, "patch line 1") {
			t.Errorf("result = %+v", res)
		}
	})
}

func TestApplyPatchKeepsAgentHomeReadOnly(t *testing.T) {
	ws := t.TempDir()
	home := filepath.Join(ws, ".agent")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "config.toml")
	if err := os.WriteFile(cfg, []byte("model = \"m\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	edit := func(path string) string {
		return "*** Begin Patch\n*** Update File: " + path + "\n@@\n model = \"m\"\n+[mcp_servers.x]\n+command = \"sh\"\n*** End Patch\n"
	}
	approveAll := func(tools.ApprovalRequest) tools.Decision { return tools.Decision{Kind: tools.ApproveOnce} }
	for _, policy := range []string{tools.PolicyNever, tools.PolicyOnRequest, tools.PolicyUntrusted} {
		for _, path := range []string{".agent/config.toml", "link/config.toml"} {
			tool := tools.NewApplyPatch(tools.PatchOptions{Cwd: ws, Policy: policy, Sandbox: tools.SandboxWorkspaceWrite, ReadOnlyPaths: []string{home}})
			res, started := runPatch(t, tool, edit(path), false, approveAll)
			if res.Status != tools.StatusDeclined || started || !strings.Contains(res.Output, "agent's home") {
				t.Errorf("%s, %s: result = %+v; want refused", policy, path, res)
			}
		}
	}
	if b, _ := os.ReadFile(cfg); string(b) != "model = \"m\"\n" {
		t.Errorf("config.toml = %q", b)
	}
	// A workspace write still works.
	tool := tools.NewApplyPatch(tools.PatchOptions{Cwd: ws, Policy: tools.PolicyNever, Sandbox: tools.SandboxWorkspaceWrite, ReadOnlyPaths: []string{home}})
	if res, _ := runPatch(t, tool, addHello, false, nil); res.Status != tools.StatusCompleted {
		t.Errorf("workspace patch = %+v", res)
	}
	// danger-full-access has no sandbox, for patches as for commands.
	tool = tools.NewApplyPatch(tools.PatchOptions{Cwd: ws, Policy: tools.PolicyNever, Sandbox: tools.SandboxFullAccess, ReadOnlyPaths: []string{home}})
	if res, _ := runPatch(t, tool, edit(".agent/config.toml"), false, nil); res.Status != tools.StatusCompleted {
		t.Errorf("full-access patch = %+v", res)
	}
}

// TestApplyPatchOutsideWorkspace: a patch naming an absolute path outside
// the workspace applies under danger-full-access (with a relative path in
// the same patch still relative to the workspace), and is refused under
// workspace-write with approval policy never.
func TestApplyPatchOutsideWorkspace(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "far.txt")
	text := "*** Begin Patch\n*** Add File: " + target + "\n+far\n*** Add File: near.txt\n+near\n*** End Patch\n"

	tool := tools.NewApplyPatch(tools.PatchOptions{Cwd: dir, Policy: tools.PolicyNever, Sandbox: tools.SandboxWorkspaceWrite})
	if res, _ := runPatch(t, tool, text, false, nil); res.Status != tools.StatusDeclined {
		t.Fatalf("workspace-write: result = %+v; want declined", res)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("workspace-write wrote outside the workspace")
	}

	tool = tools.NewApplyPatch(tools.PatchOptions{Cwd: dir, Policy: tools.PolicyNever, Sandbox: tools.SandboxFullAccess})
	res, _ := runPatch(t, tool, text, false, nil)
	if res.Status != tools.StatusCompleted {
		t.Fatalf("danger-full-access: result = %+v", res)
	}
	for path, want := range map[string]string{target: "far\n", filepath.Join(dir, "near.txt"): "near\n"} {
		if b, err := os.ReadFile(path); string(b) != want {
			t.Errorf("%s = %q, %v; want %q", path, b, err, want)
		}
	}
	want := []string{"A " + target, "A " + filepath.Join(dir, "near.txt")}
	if strings.Join(res.Files, "|") != strings.Join(want, "|") {
		t.Errorf("files = %q; want %q", res.Files, want)
	}
}
