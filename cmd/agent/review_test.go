package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestReviewUncommitted: agent review sends one review turn carrying the
// uncommitted change, prints the findings ordered by priority and exits 0,
// and the session records that it was a review.
func TestReviewUncommitted(t *testing.T) {
	t.Parallel()
	dir := agenttest.GitRepo(t)
	answer := "[P2] calc.go:3 - Name the function for what it does\n  Div divides now.\n" +
		"[P0] calc.go:3 - Division by zero\n  b == 0 panics.\n\nVerdict: needs changes\nGuard b."
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", answer)})
	r := runCLI(t, srv, runOpts{}, "review", "-C", dir, "check the arithmetic")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	want := "[P0] calc.go:3  Division by zero\n     b == 0 panics.\n[P2] calc.go:3  Name the function for what it does\n     Div divides now.\n\nVerdict: needs changes Guard b.\n"
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	msgs, err := rt.InputMessages(reqs[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	user := strings.Join(msgs[len(msgs)-1].Text, "\n")
	for _, w := range []string{"Code review: uncommitted changes", "+func Div(a, b int) int { return a / b }", "check the arithmetic", "git diff --no-ext-diff --cached"} {
		if !strings.Contains(user, w) {
			t.Errorf("the review request lacks %q", w)
		}
	}
	if !strings.Contains(r.stderr, "review: uncommitted changes") {
		t.Errorf("stderr does not say it reviews:\n%s", r.stderr)
	}
	if !recordedReview(t, r.home, "uncommitted changes") {
		t.Error("the rollout does not record the review")
	}
}

// recordedReview reports whether a rollout under home records a review of
// target.
func recordedReview(t *testing.T, home, target string) bool {
	t.Helper()
	found := false
	filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			b, _ := os.ReadFile(p)
			found = found || strings.Contains(string(b), `"type":"review","message":"`+target+`"`)
		}
		return nil
	})
	return found
}

// TestReviewRefusesWithoutARequest: outside git, with nothing to review, or
// with an unknown base, agent review says so in one line and exits
// non-zero before any request.
func TestReviewRefusesWithoutARequest(t *testing.T) {
	t.Parallel()
	clean := agenttest.GitRepo(t)
	if err := os.WriteFile(filepath.Join(clean, "calc.go"), []byte("package calc\n\nfunc Div(a, b int) int { return a + b }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"outside git", []string{"review", "-C", t.TempDir()}, 2, "not inside a git repository"},
		{"nothing", []string{"review", "-C", clean}, 1, "nothing to review: no uncommitted changes"},
		{"unknown base", []string{"review", "-C", clean, "--base", "nope"}, 2, `base "nope"`},
		{"two targets", []string{"review", "-C", clean, "--base", "main", "--commit", "HEAD"}, 2, "none of the others can be"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{})
			r := runCLI(t, srv, runOpts{}, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.says) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want %d and one line saying %q", r.code, r.stderr, tt.code, tt.says)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}
