package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestProtectedPaths(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(rel string) string {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write := func(rel, data string) {
		if err := os.WriteFile(filepath.Join(base, rel), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo := mk("repo")
	mk("repo/.git")
	wt := mk("wt")
	mk("repo/.git/worktrees/wt")
	write("wt/.git", "gitdir: ../repo/.git/worktrees/wt\n")
	sub := mk("sub")
	mk("outside")
	write("sub/.git", "gitdir: "+filepath.Join(base, "outside")+"\n")
	plain := mk("plain")
	linked := mk("linked")
	if err := os.Symlink(filepath.Join(repo, ".git"), filepath.Join(linked, ".git")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		roots []string
		want  []string
	}{
		{"git directory", []string{repo}, []string{filepath.Join(repo, ".git")}},
		{"no git", []string{plain}, nil},
		{"worktree: target outside the roots", []string{wt}, []string{filepath.Join(wt, ".git")}},
		{"worktree: target inside the roots", []string{wt, repo}, []string{
			filepath.Join(repo, ".git"), filepath.Join(repo, ".git/worktrees/wt"), filepath.Join(wt, ".git"),
		}},
		{"absolute gitdir outside", []string{sub}, []string{filepath.Join(sub, ".git")}},
		{"absolute gitdir inside", []string{sub, base}, []string{filepath.Join(base, "outside"), filepath.Join(sub, ".git")}},
		{"symlinked .git resolves", []string{linked, repo}, []string{filepath.Join(repo, ".git")}},
	}
	for _, tt := range tests {
		if got, err := protectedPaths(tt.roots, nil); err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: protectedPaths(%v) = %v; want %v", tt.name, tt.roots, got, tt.want)
		}
	}
}

func TestWithin(t *testing.T) {
	t.Parallel()
	roots := []string{"/a/b", "/c"}
	for p, want := range map[string]bool{"/a/b": true, "/a/b/c": true, "/a/bc": false, "/a": false, "/c/d": true} {
		if got := within(p, roots); got != want {
			t.Errorf("within(%q) = %v; want %v", p, got, want)
		}
	}
	if !within("/x", []string{"/"}) {
		t.Error(`within("/x", ["/"]) = false`)
	}
}
