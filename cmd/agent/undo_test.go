package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/tools/sandbox"
)

// tree is what a user sees of a directory: each path's type, mode and
// contents or link target.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		st, _ := os.Lstat(p)
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "-> " + l
		case st.IsDir():
			out[rel] = "dir"
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("%v %q", st.Mode().Perm(), b)
		}
		return nil
	})
	return out
}

// TestE2EUndo: a turn of `agent exec` changes files by a sandboxed command
// (edit, delete, create in a new directory, chmod, symlink) and by a patch,
// in a directory that is no git repository; `agent undo --last` puts every
// one back as it was, and the sandboxed command could neither see nor
// write the checkpoints. A second undo has nothing left; a file the user
// changed after a later turn is never overwritten.
func TestE2EUndo(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	if _, err := sandbox.Available(); err != nil {
		t.Skipf("the kernel cannot sandbox here: %v", err)
	}
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "keep.txt"), []byte("v1\n"), 0o644)
	os.WriteFile(filepath.Join(work, "gone.txt"), []byte("bye\n"), 0o644)
	os.WriteFile(filepath.Join(work, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(work, "blob.bin"), []byte{0, 1, 2, 255}, 0o644)
	want := tree(t, work)

	srv := rt.NewServer(t, rt.Script{})
	home := writeConfig(t, srv.URL, "")
	cps := filepath.Join(home, "checkpoints")
	shell := "printf 'v2\\n' > keep.txt; rm gone.txt; mkdir -p d; printf new > d/new.txt; chmod 600 run.sh; " +
		"ln -s keep.txt link; printf '\\377\\000' > blob.bin; " +
		"echo seen: $(ls -A " + cps + " 2>/dev/null | wc -l); touch " + cps + "/x && echo WROTE-CHECKPOINTS"
	srv.Append(rt.Script{
		rt.Stream(rt.Created("r1"), agenttest.ExecCallStep(shell), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), agenttest.PatchStep("call_2", "*** Begin Patch\n*** Add File: patched.txt\n+from a patch\n*** Update File: keep.txt\n@@\n-v2\n+v3\n*** End Patch\n"), rt.Completed("r2")),
		rt.Reply("r3", "m3", "done"),
	}...)
	run := func(args ...string) (string, string, error) {
		cmd, stdout, stderr := agentCmd(t, bin, home, args...)
		cmd.Dir = work
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	if _, stderr, err := run("exec", "-s", "workspace-write", "-C", work, "change things"); err != nil {
		t.Fatalf("agent exec: %v\n%s", err, stderr)
	}
	reqs := srv.Requests()
	var out string
	for _, it := range reqs[1].JSON["input"].([]any) {
		if m := it.(map[string]any); m["type"] == "function_call_output" {
			out, _ = m["output"].(string)
		}
	}
	if !strings.Contains(out, "seen: 0") || strings.Contains(out, "WROTE-CHECKPOINTS") {
		t.Errorf("the sandboxed command reached the checkpoints:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "keep.txt")); string(b) != "v3\n" {
		t.Fatalf("the turn did not run as scripted: keep.txt = %q", b)
	}
	if _, err := os.Stat(filepath.Join(work, ".git")); err == nil {
		t.Fatal("a .git appeared in the workspace")
	}

	stdout, stderr, err := run("undo", "--last")
	if err != nil {
		t.Fatalf("agent undo: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "turn 1 undone") || !strings.Contains(stdout, "gone.txt") || !strings.Contains(stdout, "patched.txt") {
		t.Errorf("undo said %q", stdout)
	}
	got := tree(t, work)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q after undo, want %q", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s (%s) is left after undo", k, v)
		}
	}
	if _, stderr, err := run("undo", "--last"); err == nil || !strings.Contains(stderr, "nothing to undo") {
		t.Errorf("a second undo: %v %q, want nothing to undo", err, stderr)
	}

	// A later turn edits keep.txt, then the user does: the undo refuses.
	srv.Append(rt.Script{
		rt.Stream(rt.Created("r4"), agenttest.ExecCallStep("printf 'by the model\\n' > keep.txt"), rt.Completed("r4")),
		rt.Reply("r5", "m5", "done"),
	}...)
	if _, stderr, err := run("exec", "-s", "workspace-write", "-C", work, "again"); err != nil {
		t.Fatalf("agent exec: %v\n%s", err, stderr)
	}
	os.WriteFile(filepath.Join(work, "keep.txt"), []byte("by the user\n"), 0o644)
	_, stderr, err = run("undo", "--last")
	if err == nil || !strings.Contains(stderr, "keep.txt changed since") {
		t.Errorf("undo over the user's change: %v %q, want a refusal naming keep.txt", err, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "keep.txt")); string(b) != "by the user\n" {
		t.Errorf("keep.txt = %q: the user's change was overwritten", b)
	}
}
