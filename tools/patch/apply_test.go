package patch_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/tools/patch"
)

func mustParse(t *testing.T, text string) *patch.Patch {
	t.Helper()
	p, err := patch.Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func wrap(body string) string { return "*** Begin Patch\n" + body + "*** End Patch\n" }

func TestApplyAbsolutePathInsideRoot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"dir/a.txt": "a\n"})
	p := mustParse(t, wrap("*** Update File: "+filepath.Join(root, "dir", "a.txt")+"\n@@\n-a\n+b\n"))
	res, err := patch.Apply(t.Context(), root, p, patch.Options{})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if got, want := res.String(), "Success. Updated the following files:\nM dir/a.txt\n"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
	if got := readTree(t, root)["dir/a.txt"]; got != "b\n" {
		t.Errorf("a.txt = %q; want %q", got, "b\n")
	}
}

func TestApplyRefusesPathsOutsideRoot(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "secret\n"})
	tests := []struct {
		name, body string
	}{
		{"dotdot", "*** Add File: ../x.txt\n+x\n"},
		{"dotdot inside", "*** Add File: a/../../x.txt\n+x\n"},
		{"absolute elsewhere", "*** Update File: " + filepath.Join(outside, "secret.txt") + "\n@@\n-secret\n+owned\n"},
		{"dir link out", "*** Add File: out/new.txt\n+x\n"},
		{"file link out", "*** Update File: secret-link\n@@\n-secret\n+owned\n"},
		{"move out", "*** Update File: ok.txt\n*** Move to: ../moved.txt\n"},
		{"move through link", "*** Update File: ok.txt\n*** Move to: out/moved.txt\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeTree(t, root, map[string]string{"ok.txt": "ok\n"})
			if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "secret-link")); err != nil {
				t.Fatal(err)
			}
			_, err := patch.Apply(t.Context(), root, mustParse(t, wrap(tt.body)), patch.Options{})
			if !errors.Is(err, patch.ErrOutsideRoot) {
				t.Fatalf("Apply error = %v; want ErrOutsideRoot", err)
			}
			if d := cmp.Diff(map[string]string{"secret.txt": "secret\n"}, readTree(t, outside)); d != "" {
				t.Errorf("outside tree changed (-want +got):\n%s", d)
			}
			if got := readTree(t, root)["ok.txt"]; got != "ok\n" {
				t.Errorf("ok.txt = %q; want it untouched", got)
			}
		})
	}
}

func TestApplyFollowsSymlinkInsideRoot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"real/file.txt": "one\n"})
	if err := os.Symlink(filepath.Join("real", "file.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := patch.Apply(t.Context(), root, mustParse(t, wrap("*** Update File: link.txt\n@@\n-one\n+two\n")), patch.Options{}); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if info, err := os.Lstat(filepath.Join(root, "link.txt")); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a symbolic link: %v, %v", info, err)
	}
	if got := readFile(t, filepath.Join(root, "real", "file.txt")); got != "two\n" {
		t.Errorf("link target = %q; want %q", got, "two\n")
	}

	// Deleting or moving the link itself is refused: the model would
	// expect a regular file.
	for _, body := range []string{"*** Delete File: link.txt\n", "*** Update File: link.txt\n*** Move to: b.txt\n"} {
		if _, err := patch.Apply(t.Context(), root, mustParse(t, wrap(body)), patch.Options{}); !errors.Is(err, patch.ErrSymlink) {
			t.Errorf("Apply(%q) error = %v; want ErrSymlink", body, err)
		}
	}
}

func TestApplyKeepsMode(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	path := filepath.Join(root, "run.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho hi\n"), 0o751); err != nil {
		t.Fatal(err)
	}
	p := mustParse(t, wrap("*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo hi\n+echo hello\n"))
	if _, err := patch.Apply(t.Context(), root, p, patch.Options{}); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	info, err := os.Stat(filepath.Join(root, "bin", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o751 {
		t.Errorf("mode = %v; want %v", got, fs.FileMode(0o751))
	}
}

func TestApplyWritablePolicy(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"src/a.txt": "a\n", "ro/b.txt": "b\n"})
	var asked []string
	opts := patch.Options{Writable: func(abs string) bool {
		asked = append(asked, abs)
		return !strings.HasPrefix(abs, filepath.Join(root, "ro")+string(filepath.Separator))
	}}
	p := mustParse(t, wrap("*** Update File: src/a.txt\n@@\n-a\n+A\n*** Delete File: ro/b.txt\n"))
	_, err := patch.Apply(t.Context(), root, p, opts)
	if !errors.Is(err, patch.ErrNotWritable) {
		t.Fatalf("Apply error = %v; want ErrNotWritable", err)
	}
	want := []string{filepath.Join(root, "src", "a.txt"), filepath.Join(root, "ro", "b.txt")}
	if d := cmp.Diff(want, asked); d != "" {
		t.Errorf("Writable calls (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"src/a.txt": "a\n", "ro/b.txt": "b\n"}, readTree(t, root)); d != "" {
		t.Errorf("tree changed (-want +got):\n%s", d)
	}
}

// TestApplyRollsBack injects a write failure after other files were
// written and checks that they are restored.
func TestApplyRollsBack(t *testing.T) {
	t.Parallel()
	before := map[string]string{"a.txt": "a\n", "c.txt": "c\n", "d.txt": "d\n"}
	tests := []struct {
		name, failOn string
	}{
		{"write fails", "c.txt"},
		{"remove fails", "d.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeTree(t, root, before)
			p := mustParse(t, wrap("*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: new/dir/b.txt\n+b\n"+
				"*** Update File: c.txt\n@@\n-c\n+C\n*** Delete File: d.txt\n"))
			disk := errors.New("disk full")
			_, err := patch.Apply(t.Context(), root, p, patch.FailOn(patch.Options{}, tt.failOn, disk))
			var we *patch.WriteError
			if !errors.As(err, &we) || !errors.Is(err, disk) {
				t.Fatalf("Apply error = %v; want a *WriteError wrapping %v", err, disk)
			}
			if we.Path != tt.failOn || we.Rollback != nil {
				t.Errorf("WriteError = %+v; want Path %q and no rollback failure", we, tt.failOn)
			}
			if d := cmp.Diff(before, readTree(t, root)); d != "" {
				t.Errorf("tree not restored (-want +got):\n%s", d)
			}
			if _, err := os.Stat(filepath.Join(root, "new")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("created directory not removed: %v", err)
			}
		})
	}
}

func TestApplyCanceled(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "a\n"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := patch.Apply(ctx, root, mustParse(t, wrap("*** Update File: a.txt\n@@\n-a\n+b\n")), patch.Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Apply error = %v; want context.Canceled", err)
	}
	if got := readTree(t, root)["a.txt"]; got != "a\n" {
		t.Errorf("a.txt = %q; want it untouched", got)
	}
}

func TestPreviewWritesNothing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	before := map[string]string{"a.txt": "a\n"}
	writeTree(t, root, before)
	p := mustParse(t, wrap("*** Update File: a.txt\n@@\n-a\n+b\n*** Add File: n.txt\n+n\n"))
	res, err := patch.Preview(t.Context(), root, p, patch.Options{})
	if err != nil {
		t.Fatalf("Preview: %v", err)
	}
	if d := cmp.Diff([]string{"A n.txt", "M a.txt"}, res.Files()); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
	if !strings.Contains(res.Diff(), "-a\n+b\n") {
		t.Errorf("Diff() = %q; want the a.txt change", res.Diff())
	}
	if d := cmp.Diff(before, readTree(t, root)); d != "" {
		t.Errorf("Preview changed the tree (-want +got):\n%s", d)
	}
}

func TestApplyErrorCauses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       error
		chunk      int
	}{
		{"no match", "*** Update File: a.txt\n@@\n-a\n+A\n@@\n-zzz\n+y\n", patch.ErrNoMatch, 2},
		{"context header missing", "*** Update File: a.txt\n@@ nowhere\n-a\n", patch.ErrNoMatch, 1},
		{"eof anchor misses", "*** Update File: a.txt\n@@\n-a\n*** End of File\n", patch.ErrNoMatch, 1},
		{"delete missing", "*** Delete File: nope\n", fs.ErrNotExist, 0},
		{"update missing", "*** Update File: nope\n@@\n+x\n", fs.ErrNotExist, 0},
		{"delete twice", "*** Delete File: a.txt\n*** Delete File: a.txt\n", fs.ErrNotExist, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			before := map[string]string{"a.txt": "a\nb\n", "b.txt": "b\n"}
			writeTree(t, root, before)
			_, err := patch.Apply(t.Context(), root, mustParse(t, wrap(tt.body)), patch.Options{})
			var ae *patch.ApplyError
			if !errors.As(err, &ae) || !errors.Is(err, tt.want) {
				t.Fatalf("Apply error = %v; want an *ApplyError wrapping %v", err, tt.want)
			}
			if ae.Chunk != tt.chunk {
				t.Errorf("Chunk = %d; want %d", ae.Chunk, tt.chunk)
			}
			if d := cmp.Diff(before, readTree(t, root)); d != "" {
				t.Errorf("tree changed (-want +got):\n%s", d)
			}
		})
	}
	if _, err := patch.Apply(t.Context(), t.TempDir(), &patch.Patch{}, patch.Options{}); !errors.Is(err, patch.ErrEmpty) {
		t.Errorf("Apply(empty) error = %v; want ErrEmpty", err)
	}
}

// TestApplySequence checks that later sections see earlier ones: delete
// then re-add, and an update after a move.
func TestApplySequence(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "1\n2\n"})
	p := mustParse(t, wrap("*** Update File: a.txt\n*** Move to: b.txt\n@@\n-1\n+one\n"+
		"*** Add File: a.txt\n+fresh\n*** Update File: b.txt\n@@\n-2\n+two\n"))
	res, err := patch.Apply(t.Context(), root, p, patch.Options{})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if d := cmp.Diff(map[string]string{"a.txt": "fresh\n", "b.txt": "one\ntwo\n"}, readTree(t, root)); d != "" {
		t.Errorf("tree (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"A a.txt", "M b.txt", "M b.txt"}, res.Files()); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
}

// TestApplyReadOnlyFileIsAnError: updating, replacing or moving onto a
// file without write permission bits fails, naming it, and changes
// nothing, even for root (which the operating system would let write).
func TestApplyReadOnlyFileIsAnError(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"update":      "*** Update File: ro.txt\n@@\n-locked\n+changed\n",
		"add over":    "*** Add File: ro.txt\n+replaced\n",
		"move onto":   "*** Update File: a.txt\n*** Move to: ro.txt\n@@\n-a\n+A\n",
		"then others": "*** Add File: new.txt\n+n\n*** Update File: ro.txt\n@@\n-locked\n+changed\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeTree(t, root, map[string]string{"a.txt": "a\n", "ro.txt": "locked\n"})
			ro := filepath.Join(root, "ro.txt")
			if err := os.Chmod(ro, 0o444); err != nil {
				t.Fatal(err)
			}
			_, err := patch.Apply(t.Context(), root, mustParse(t, wrap(body)), patch.Options{})
			if !errors.Is(err, patch.ErrReadOnly) || !strings.Contains(err.Error(), "ro.txt") || !strings.Contains(err.Error(), "read-only") {
				t.Fatalf("Apply error = %v; want ErrReadOnly naming ro.txt", err)
			}
			if d := cmp.Diff(map[string]string{"a.txt": "a\n", "ro.txt": "locked\n"}, readTree(t, root)); d != "" {
				t.Errorf("tree changed (-want +got):\n%s", d)
			}
			if st, err := os.Stat(ro); err != nil || st.Mode().Perm() != 0o444 {
				t.Errorf("ro.txt mode = %v, %v; want 0444", st.Mode().Perm(), err)
			}
		})
	}
}

// TestApplyDoesNotWriteThroughHardLinks: a file in the workspace that is
// a hard link to a file elsewhere (planted to the agent's hidden home's
// config.toml) is replaced by the patch, never written through: the other
// file keeps its content, and the result says so.
func TestApplyDoesNotWriteThroughHardLinks(t *testing.T) {
	t.Parallel()
	root, home := t.TempDir(), t.TempDir()
	secret := filepath.Join(home, "config.toml")
	if err := os.WriteFile(secret, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(secret, filepath.Join(root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	body := "*** Update File: a.txt\n@@\n-one\n+two\n"
	res, err := patch.Apply(t.Context(), root, mustParse(t, wrap(body)), patch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"a.txt": "two\n"}, readTree(t, root)); d != "" {
		t.Errorf("tree (-want +got):\n%s", d)
	}
	if got, _ := os.ReadFile(secret); string(got) != "one\n" {
		t.Errorf("the linked file outside the root = %q; want it unchanged", got)
	}
	a, _ := os.Stat(filepath.Join(root, "a.txt"))
	h, _ := os.Stat(secret)
	if os.SameFile(a, h) {
		t.Error("a.txt is still a link to the file outside the root")
	}
	if !strings.Contains(res.String(), "Note: a.txt had other hard links") {
		t.Errorf("result text does not name the link it broke:\n%s", res)
	}
}
