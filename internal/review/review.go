// Package review prepares a code review turn, for the chat's /review and
// for agent review: what git reports for the chosen target (the
// uncommitted changes, the current branch against a base, one commit),
// the review request agent sends (instructions of its own writing, the
// target's diff and the git commands that show it, so the model can look
// further itself), and the findings read back from the answer as a list
// ordered by priority.
package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// MaxDiff is how many bytes of diff a review request carries; the rest is
// cut, the cut said, and the model is told how to read it itself.
const MaxDiff = 256 << 10

// ErrNotRepository is a review asked for outside a git repository.
var ErrNotRepository = errors.New("review: not inside a git repository")

// ErrNothing is a target with no change to review.
var ErrNothing = errors.New("review: nothing to review")

// Target is what a review looks at. With neither Base nor Commit it is the
// uncommitted changes: staged, unstaged and untracked files.
type Target struct {
	// Base reviews the current branch against this branch, from their
	// merge base (the working tree's changes included).
	Base string
	// Commit reviews the changes one commit introduced.
	Commit string
	// Instructions are the user's own, added to agent's (a custom review).
	Instructions string
}

// Change is what git reports for a [Target].
type Change struct {
	// Root is the repository's top directory.
	Root string
	// Summary names the target in a few words ("uncommitted changes",
	// "changes against main", "commit 1a2b3c4: fix the parser").
	Summary string
	// Commands are the git commands that show the change, run in Root.
	Commands []string
	// Diff is their output, at most [MaxDiff] bytes of it.
	Diff string
	// Size is the whole diff's size; more than len(Diff) when it was cut.
	Size int
}

// Git runs git with args in dir and returns its standard output. The
// default runs the git on PATH, without a pager, colours or prompts.
type Git func(ctx context.Context, dir string, args ...string) ([]byte, error)

// RunGit is the default [Git].
func RunGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-pager", "-c", "core.quotepath=off", "-c", "color.ui=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// git diff --no-index exits 1 when the files differ: that is its answer.
		if ee.ExitCode() == 1 && len(args) > 0 && args[0] == "diff" && stderr.Len() == 0 {
			return out, nil
		}
		return out, fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(stderr.String()))
	}
	return out, err
}

// Gather asks git, in dir, what t covers. It returns [ErrNotRepository]
// outside a repository and an error wrapping [ErrNothing] when there is
// no change to review; an unknown base or commit is an error naming it.
func Gather(ctx context.Context, git Git, dir string, t Target) (Change, error) {
	if git == nil {
		git = RunGit
	}
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		if ctx.Err() != nil {
			return Change{}, ctx.Err()
		}
		return Change{}, fmt.Errorf("%w (%s)", ErrNotRepository, dir)
	}
	c := Change{Root: strings.TrimSpace(string(top))}
	var diff string
	switch {
	case t.Commit != "":
		diff, err = c.commit(ctx, git, t.Commit)
	case t.Base != "":
		diff, err = c.base(ctx, git, t.Base)
	default:
		diff, err = c.uncommitted(ctx, git)
	}
	if err != nil {
		return Change{}, err
	}
	if strings.TrimSpace(diff) == "" {
		return Change{}, fmt.Errorf("%w: no %s in %s", ErrNothing, c.Summary, c.Root)
	}
	c.Size = len(diff)
	c.Diff = cut(diff, MaxDiff)
	return c, nil
}

// verify resolves ref to a commit, or says which ref git does not know.
func verify(ctx context.Context, git Git, dir, what, ref string) (string, error) {
	if strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("review: %s %q is not a branch or commit", what, ref)
	}
	out, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return "", fmt.Errorf("review: %s %q: git knows no such branch or commit in %s", what, ref, dir)
	}
	return strings.TrimSpace(string(out)), nil
}

func (c *Change) commit(ctx context.Context, git Git, ref string) (string, error) {
	sha, err := verify(ctx, git, c.Root, "commit", ref)
	if err != nil {
		return "", err
	}
	subject, err := git(ctx, c.Root, "log", "-1", "--format=%s", sha)
	if err != nil {
		return "", err
	}
	c.Summary = fmt.Sprintf("commit %s: %s", sha[:min(7, len(sha))], strings.TrimSpace(string(subject)))
	args := []string{"show", "--no-ext-diff", "--format=commit %H%nAuthor: %an%n%n%B", sha}
	c.Commands = []string{"git " + strings.Join(args, " ")}
	out, err := git(ctx, c.Root, args...)
	return string(out), err
}

func (c *Change) base(ctx context.Context, git Git, branch string) (string, error) {
	if _, err := verify(ctx, git, c.Root, "base", branch); err != nil {
		return "", err
	}
	mb, err := git(ctx, c.Root, "merge-base", "HEAD", branch)
	if err != nil {
		return "", fmt.Errorf("review: no merge base of HEAD and %s: %w", branch, err)
	}
	base := strings.TrimSpace(string(mb))
	c.Summary = "changes against " + branch
	args := []string{"diff", "--no-ext-diff", base}
	c.Commands = []string{"git merge-base HEAD " + branch + "  # " + base, "git " + strings.Join(args, " ")}
	out, err := git(ctx, c.Root, args...)
	if err != nil {
		return "", err
	}
	untracked, cmds, err := untrackedDiff(ctx, git, c.Root)
	c.Commands = append(c.Commands, cmds...)
	return string(out) + untracked, err
}

func (c *Change) uncommitted(ctx context.Context, git Git) (string, error) {
	c.Summary = "uncommitted changes"
	var b strings.Builder
	for _, args := range [][]string{{"diff", "--no-ext-diff", "--cached"}, {"diff", "--no-ext-diff"}} {
		out, err := git(ctx, c.Root, args...)
		if err != nil {
			return "", err
		}
		c.Commands = append(c.Commands, "git "+strings.Join(args, " "))
		b.Write(out)
	}
	untracked, cmds, err := untrackedDiff(ctx, git, c.Root)
	c.Commands = append(c.Commands, cmds...)
	b.WriteString(untracked)
	return b.String(), err
}

// untrackedDiff is the untracked files (those .gitignore does not hide)
// as new files, the way git diff shows an added file.
func untrackedDiff(ctx context.Context, git Git, root string) (string, []string, error) {
	out, err := git(ctx, root, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	var files []string
	for f := range strings.SplitSeq(string(out), "\x00") {
		if f == "" {
			continue
		}
		files = append(files, f)
		d, err := git(ctx, root, "diff", "--no-ext-diff", "--no-index", "--", os.DevNull, f)
		if err != nil {
			return "", nil, err
		}
		b.Write(d)
		if b.Len() > MaxDiff {
			break // the rest would be cut anyway
		}
	}
	if len(files) == 0 {
		return "", nil, nil
	}
	return b.String(), []string{"git ls-files --others --exclude-standard  # untracked: " + strings.Join(files, ", ")}, nil
}

// cut returns s cut to at most n bytes, at a line end where there is one.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		s = s[:i+1]
	}
	return s
}
