package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// state is everything a user would notice of a directory tree: each
// path's type, permissions, contents or link target.
func state(t *testing.T, root string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, s := range skip {
			if rel == s {
				return filepath.SkipDir
			}
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case st.IsDir():
			out[rel] = "dir"
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("file %v %x", st.Mode().Perm(), sha256.Sum256(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func write(t *testing.T, root, p, body string, perm fs.FileMode) {
	t.Helper()
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(body), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(full, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	return &Store{Dir: filepath.Join(home, "checkpoints"), Exclude: []string{home}}, t.TempDir()
}

func differences(want, got map[string]string) []string {
	var out []string
	for k, v := range want {
		if got[k] != v {
			out = append(out, fmt.Sprintf("%s: want %q, got %q", k, v, got[k]))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("%s: unexpected %q", k, v))
		}
	}
	sort.Strings(out)
	return out
}

// A turn that edits, deletes, creates, renames, changes modes, rewrites
// a binary file and moves symlinks, in a directory that is no git
// repository, is undone to the byte and the mode bit.
func TestRestoreEveryKindOfChange(t *testing.T) {
	s, ws := newStore(t)
	ctx := context.Background()
	write(t, ws, "notes.txt", "line one\nline two\n", 0o644)
	write(t, ws, "blob.bin", "\x00\x01\x02\xff\xfe binary\x00", 0o644)
	write(t, ws, "gone.txt", "to be deleted", 0o644)
	write(t, ws, "old/name.go", "package old\n", 0o644)
	write(t, ws, "run.sh", "#!/bin/sh\necho hi\n", 0o755)
	write(t, ws, "secret.key", "s3cr3t", 0o600)
	write(t, ws, "plain.txt", "plain", 0o644)
	write(t, ws, "becomes-dir", "a file first", 0o644)
	if err := os.Symlink("notes.txt", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain.txt", filepath.Join(ws, "was-link")); err != nil {
		t.Fatal(err)
	}
	want := state(t, ws)

	before, err := s.Snapshot(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	// The turn.
	write(t, ws, "notes.txt", "line one\nline 2 changed\n", 0o644)
	write(t, ws, "blob.bin", "\xff\x00 other binary", 0o644)
	os.Remove(filepath.Join(ws, "gone.txt"))
	os.MkdirAll(filepath.Join(ws, "new"), 0o755)
	os.Rename(filepath.Join(ws, "old/name.go"), filepath.Join(ws, "new/name.go"))
	os.Remove(filepath.Join(ws, "old"))
	write(t, ws, "brand/new/file.txt", "created", 0o644)
	os.Chmod(filepath.Join(ws, "run.sh"), 0o644)
	os.Chmod(filepath.Join(ws, "secret.key"), 0o644)
	os.Chmod(filepath.Join(ws, "plain.txt"), 0o640)
	os.Remove(filepath.Join(ws, "link"))
	os.Symlink("blob.bin", filepath.Join(ws, "link"))
	os.Remove(filepath.Join(ws, "was-link"))
	write(t, ws, "was-link", "now a file", 0o644)
	os.Remove(filepath.Join(ws, "becomes-dir"))
	write(t, ws, "becomes-dir/inside.txt", "a dir now", 0o644)
	after, err := s.Snapshot(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := s.Changes(ctx, ws, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) < 12 {
		t.Fatalf("changes: %v", changes)
	}

	res, err := s.Restore(ctx, ws, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if d := differences(want, state(t, ws)); len(d) > 0 {
		t.Fatalf("after undo the workspace differs:\n%s\n(result %+v)", strings.Join(d, "\n"), res)
	}
	if !contains(res.Removed, "brand/new/file.txt") || !contains(res.Restored, "gone.txt") {
		t.Errorf("result %+v", res)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A file changed after the turn is never overwritten: the undo is
// refused naming it, and nothing at all is restored.
func TestRestoreRefusesAFileChangedSince(t *testing.T) {
	s, ws := newStore(t)
	ctx := context.Background()
	write(t, ws, "a.txt", "a0", 0o644)
	write(t, ws, "b.txt", "b0", 0o644)
	before, _ := s.Snapshot(ctx, ws)
	write(t, ws, "a.txt", "a1 by the turn", 0o644)
	write(t, ws, "b.txt", "b1 by the turn", 0o644)
	after, err := s.Snapshot(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, "b.txt", "b2 by the user", 0o644)
	want := state(t, ws)
	_, err = s.Restore(ctx, ws, before, after)
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Paths) != 1 || ce.Paths[0] != "b.txt" {
		t.Fatalf("err = %v, want a conflict naming b.txt", err)
	}
	if !strings.Contains(err.Error(), "b.txt") {
		t.Errorf("message %q does not name the file", err)
	}
	if d := differences(want, state(t, ws)); len(d) > 0 {
		t.Fatalf("a refused undo changed files:\n%s", strings.Join(d, "\n"))
	}
	// A mode change counts as a change too.
	write(t, ws, "b.txt", "b1 by the turn", 0o644)
	os.Chmod(filepath.Join(ws, "a.txt"), 0o600)
	if _, err := s.Restore(ctx, ws, before, after); !errors.As(err, &ce) || ce.Paths[0] != "a.txt" {
		t.Fatalf("err = %v, want a conflict naming a.txt", err)
	}
}

// The user's repository is neither read as the store nor written: its
// .git is byte for byte the same after snapshots and a restore, its
// .gitignore is honoured, and a file past the size limit is left out.
func TestUserRepositoryUntouched(t *testing.T) {
	s, ws := newStore(t)
	s.MaxFileSize = 1000
	ctx := context.Background()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=u", "-c", "user.email=u@x"}, args...)...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	write(t, ws, ".gitignore", "build/\n", 0o644)
	write(t, ws, "main.go", "package main\n", 0o644)
	git("add", ".")
	git("commit", "-qm", "first")
	write(t, ws, "build/out.o", "object", 0o644)
	userGit := state(t, filepath.Join(ws, ".git"))

	before, err := s.Snapshot(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, "main.go", "package main // edited\n", 0o644)
	write(t, ws, "build/out.o", "rebuilt", 0o644)
	write(t, ws, "huge.dat", strings.Repeat("x", 2000), 0o644)
	after, err := s.Snapshot(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	changes, _ := s.Changes(ctx, ws, before, after)
	if fmt.Sprint(changes) != "[{M main.go}]" {
		t.Errorf("changes = %v, want main.go alone (build/ ignored, huge.dat too big)", changes)
	}
	if _, err := s.Restore(ctx, ws, before, after); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(b) != "package main\n" {
		t.Errorf("main.go = %q", b)
	}
	if d := differences(userGit, state(t, filepath.Join(ws, ".git"))); len(d) > 0 {
		t.Fatalf("the user's .git changed:\n%s", strings.Join(d, "\n"))
	}
}

// Retention bounds the store: past Keep snapshots the oldest are pruned
// and an undo of one says it is no longer kept.
func TestRetention(t *testing.T) {
	s, ws := newStore(t)
	s.Keep = 4
	ctx := context.Background()
	var ids []string
	for i := range 20 {
		write(t, ws, "f.txt", fmt.Sprint("version ", i), 0o644)
		id, err := s.Snapshot(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	w, _ := s.workspace(ws)
	out, err := w.git(ctx, nil, "for-each-ref", "refs/checkpoints/")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "\n"); n > s.Keep+pruneSlack {
		t.Errorf("%d snapshots kept, want at most %d", n, s.Keep+pruneSlack)
	}
	if _, err := s.Changes(ctx, ws, ids[0], ids[1]); !errors.Is(err, ErrGone) {
		t.Errorf("the first snapshot: err = %v, want ErrGone", err)
	}
	if _, err := s.Changes(ctx, ws, ids[18], ids[19]); err != nil {
		t.Errorf("the latest snapshots: %v", err)
	}
	// Past the age limit even the latest go.
	s.Now = func() time.Time { return time.Now().Add(30 * 24 * time.Hour) }
	write(t, ws, "f.txt", "later", 0o644)
	if _, err := s.Snapshot(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Changes(ctx, ws, ids[18], ids[19]); !errors.Is(err, ErrGone) {
		t.Errorf("a snapshot past MaxAge: err = %v, want ErrGone", err)
	}
}

// Two sessions in one workspace take turns with its store.
func TestConcurrentSnapshots(t *testing.T) {
	s, ws := newStore(t)
	ctx := context.Background()
	write(t, ws, "f.txt", "x", 0o644)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() {
			s2 := *s // another process's Store over the same directory
			_, errs[i] = s2.Snapshot(ctx, ws)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A full disk fails the checkpoint with a message saying so, and never
// the user's files. The store is on a 64 KiB tmpfs of a private mount
// namespace (the test runs itself again under unshare).
func TestFullDisk(t *testing.T) {
	if os.Getenv("CHECKPOINT_FULL_DISK") != "" {
		fullDiskChild(t)
		return
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := exec.Command("unshare", "-Urm", "true").Run(); err != nil {
		t.Skipf("no user and mount namespaces here (%v)", err)
	}
	cmd := exec.Command("unshare", "-Urm", os.Args[0], "-test.run=^TestFullDisk$", "-test.v")
	cmd.Env = append(os.Environ(), "CHECKPOINT_FULL_DISK=1", "CHECKPOINT_TMP="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestFullDisk")) {
		t.Fatalf("%v\n%s", err, out)
	}
}

func fullDiskChild(t *testing.T) {
	tmp := os.Getenv("CHECKPOINT_TMP")
	home, ws := filepath.Join(tmp, "home"), filepath.Join(tmp, "ws")
	os.MkdirAll(filepath.Join(home, "checkpoints"), 0o700)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", filepath.Join(home, "checkpoints")).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v %s", err, out)
	}
	// Random bytes do not compress: the objects cannot fit.
	big := make([]byte, 300<<10)
	for i := range big {
		big[i] = byte(i*7919 + i/13)
	}
	write(t, ws, "data.bin", string(big), 0o644)
	write(t, ws, "main.go", "package main\n", 0o644)
	want := state(t, ws)
	s := &Store{Dir: filepath.Join(home, "checkpoints"), Exclude: []string{home}}
	_, err := s.Snapshot(context.Background(), ws)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "your files were not touched") {
		t.Fatalf("err = %v, want a full-disk failure saying so", err)
	}
	t.Logf("the message: %v", err)
	if d := differences(want, state(t, ws)); len(d) > 0 {
		t.Fatalf("a failed checkpoint changed the user's files:\n%s", strings.Join(d, "\n"))
	}
}

// Without git a snapshot fails saying so, and leaves the files alone.
func TestNoGit(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a.txt", "a", 0o644)
	s := &Store{Dir: filepath.Join(t.TempDir(), "checkpoints"), Git: filepath.Join(t.TempDir(), "no-git")}
	_, err := s.Snapshot(context.Background(), ws)
	if err == nil || !strings.Contains(err.Error(), "checkpoints need git") || !strings.Contains(err.Error(), "your files were not touched") {
		t.Fatalf("err = %v", err)
	}
}

// A workspace in a subdirectory of a repository (agent started in
// repo/web/app) is snapshotted without what the repository ignores: the
// .gitignore files above it, up to the repository's top, apply as git
// applies them to the user's own status. Before, only the workspace's
// own .gitignore counted, and every snapshot hashed node_modules.
func TestEnclosingRepositoryIgnores(t *testing.T) {
	s, repo := newStore(t)
	ctx := context.Background()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write(t, repo, ".gitignore", "# the repository's rules\nnode_modules/\n*.log\n!keep.log\n/web/app/generated/\nweb/*/cache\n**/tmp/\nweb/**/dist\n/other/\n/web/\n", 0o644)
	write(t, repo, "web/.gitignore", "app/vendor/\n", 0o644)
	ws := filepath.Join(repo, "web", "app")
	for _, p := range []string{"main.go", "keep.log", "other/o.go", "src/dist.go",
		"node_modules/x/index.js", "deep/node_modules/y.js", "debug.log", "generated/g.go", "cache",
		"tmp/t", "src/tmp/t", "src/dist/out.js", "vendor/v.go"} {
		write(t, ws, p, p, 0o644)
	}
	write(t, ws, ".gitignore", "!debug.log\n", 0o644) // the workspace's own rules win
	id, err := s.Snapshot(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.workspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.git(ctx, nil, "ls-tree", "-r", "--name-only", id+":files")
	if err != nil {
		t.Fatal(err)
	}
	want := ".gitignore\ndebug.log\nkeep.log\nmain.go\nother/o.go\nsrc/dist.go\n"
	if string(out) != want {
		t.Errorf("snapshot holds\n%s\nwant\n%s", out, want)
	}
}

func TestRebase(t *testing.T) {
	rel := []string{"web", "app"}
	for line, want := range map[string]string{
		"node_modules/":      "node_modules/",
		"!keep.log":          "!keep.log",
		"/web/app/gen/":      "/gen/",
		"web/*/cache":        "/cache",
		"web/a*/x/y":         "/x/y",
		"web/other/x":        "",
		"**/tmp/":            "**/tmp/",
		"web/**/dist":        "**/dist",
		"/web/":              "",
		"/web/app":           "",
		"# a comment":        "",
		"   ":                "",
		"/web/app/x  \r":     "/x",
		`/web/app/x\ `:       `/x\ `,
		"!/web/app/keep/":    "!/keep/",
		"/other/web/app/x":   "",
		"web/app/[ab]*/cach": "/[ab]*/cach",
	} {
		got, ok := rebase(line, rel)
		if got != want || ok != (want != "") {
			t.Errorf("rebase(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
}
