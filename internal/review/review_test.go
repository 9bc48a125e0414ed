package review

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo makes a git repository with one commit on main and returns its dir.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	write(t, dir, "a.go", "package a\n\nfunc A() int { return 1 }\n")
	run(t, dir, "add", "a.go")
	run(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGatherOutsideARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	_, err := Gather(context.Background(), nil, t.TempDir(), Target{})
	if !errors.Is(err, ErrNotRepository) {
		t.Fatalf("err = %v, want ErrNotRepository", err)
	}
}

func TestGatherNothing(t *testing.T) {
	dir := repo(t)
	_, err := Gather(context.Background(), nil, dir, Target{})
	if !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), "no uncommitted changes") {
		t.Fatalf("err = %v, want ErrNothing naming the uncommitted changes", err)
	}
}

// TestGatherUncommitted: staged, unstaged and untracked changes are all
// in the review; an ignored file is not.
func TestGatherUncommitted(t *testing.T) {
	dir := repo(t)
	write(t, dir, "a.go", "package a\n\nfunc A() int { return 2 }\n")
	write(t, dir, "b.go", "package a\n\nvar B = \"staged\"\n")
	run(t, dir, "add", "b.go")
	write(t, dir, "c.go", "package a\n\nvar C = \"untracked\"\n")
	write(t, dir, ".gitignore", "secret.txt\n")
	write(t, dir, "secret.txt", "ignored\n")
	c, err := Gather(context.Background(), nil, dir, Target{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"return 2", `"staged"`, `"untracked"`, "+++ b/c.go", "+secret.txt"} {
		if !strings.Contains(c.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, c.Diff)
		}
	}
	if strings.Contains(c.Diff, "ignored") {
		t.Errorf("an ignored file is in the review:\n%s", c.Diff)
	}
	if c.Summary != "uncommitted changes" || len(c.Commands) != 3 {
		t.Errorf("summary %q, commands %q", c.Summary, c.Commands)
	}
}

func TestGatherBaseAndCommit(t *testing.T) {
	dir := repo(t)
	run(t, dir, "checkout", "-q", "-b", "feature")
	write(t, dir, "a.go", "package a\n\nfunc A() int { return 3 }\n")
	run(t, dir, "commit", "-q", "-am", "three it is")
	sha := run(t, dir, "rev-parse", "HEAD")

	c, err := Gather(context.Background(), nil, dir, Target{Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Diff, "+func A() int { return 3 }") || c.Summary != "changes against main" {
		t.Errorf("base review: %q\n%s", c.Summary, c.Diff)
	}
	c, err = Gather(context.Background(), nil, dir, Target{Commit: sha[:8]})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Diff, "return 3") || c.Summary != "commit "+sha[:7]+": three it is" {
		t.Errorf("commit review: %q\n%s", c.Summary, c.Diff)
	}
	if _, err := Gather(context.Background(), nil, dir, Target{Base: "nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown base: %v", err)
	}
	if _, err := Gather(context.Background(), nil, dir, Target{Commit: "--output=x"}); err == nil {
		t.Error("an option passed as a commit was taken")
	}
	if _, err := Gather(context.Background(), nil, dir, Target{Base: "feature"}); !errors.Is(err, ErrNothing) {
		t.Errorf("a branch against itself: %v, want ErrNothing", err)
	}
}

// TestPromptCutsABigDiff: a diff over MaxDiff is cut at a line end and the
// request says so.
func TestPromptCutsABigDiff(t *testing.T) {
	dir := repo(t)
	write(t, dir, "big.txt", strings.Repeat("a line of text that is long enough\n", 20000))
	c, err := Gather(context.Background(), nil, dir, Target{Instructions: "look at the docs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Diff) > MaxDiff || c.Size <= MaxDiff || !strings.HasSuffix(c.Diff, "\n") {
		t.Fatalf("diff %d bytes of %d", len(c.Diff), c.Size)
	}
	p := Prompt(c, Target{Instructions: "look at the docs"})
	for _, want := range []string{"Code review: uncommitted changes\n", "cut at 256 KiB", "look at the docs", "git ls-files"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
}

func TestRender(t *testing.T) {
	answer := "Here is my review.\n\n" +
		"[P2] a.go:3 - Magic number\n  Name the constant.\n" +
		"- **[P0]** `b.go:10` — Nil dereference\n  b can be nil\n  when the map is empty.\n" +
		"[P1] c.go - No test\n\n" +
		"Verdict: needs changes\nThe nil case must be handled.\n"
	got := Render(answer)
	want := "[P0] b.go:10  Nil dereference\n     b can be nil\n     when the map is empty.\n" +
		"[P1] c.go  No test\n" +
		"[P2] a.go:3  Magic number\n     Name the constant.\n\n" +
		"Verdict: needs changes The nil case must be handled."
	if got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
	if got := Render("No findings.\n\nVerdict: correct\n"); got != "No findings.\n\nVerdict: correct" {
		t.Errorf("no findings: %q", got)
	}
	if got := Render("I could not review this."); got != "I could not review this." {
		t.Errorf("an answer in another shape: %q", got)
	}
}
