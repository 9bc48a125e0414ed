package frontends

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// recordedSessions are the rollout files under home's sessions, and the
// session ids the index names.
func recordedSessions(t *testing.T, home string) ([]string, []string) {
	t.Helper()
	var files []string
	_ = filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	index, _ := os.ReadFile(filepath.Join(home, "sessions", "index.jsonl"))
	var ids []string
	for _, m := range regexp.MustCompile(`"id":"([^"]+)"`).FindAllStringSubmatch(string(index), -1) {
		if !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	return files, ids
}

// TestE2EAgentResumePickerLeavesNoEmptySession: `agent resume` without an
// id opens the picker of this directory's sessions; cancelling it and
// quitting leaves no session of its own on disk (no file, no index record,
// no quit line); choosing a session continues that one, and still only it
// is recorded.
func TestE2EAgentResumePickerLeavesNoEmptySession(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "first answer"), rt.Reply("r2", "m2", "back again")})
	home := writeConfig(t, srv.URL, "")
	dir := t.TempDir()
	exited := "; echo chat-exited; read -r done"
	c := startChat(t, bin, home, dir, exited)
	c.send("remember the first chat")
	c.waitFor("first answer")
	c.waitIdle()
	c.keys("C-d")
	c.waitFor("chat-exited")
	first, _ := recordedSessions(t, home)
	if len(first) != 1 {
		t.Fatalf("after the first chat: sessions %v; want one", first)
	}
	ids := []string{strings.TrimSuffix(filepath.Base(first[0]), ".jsonl")[len("rollout-2006-01-02T15-04-05-"):]}

	c = startChatShowing(t, "Resume a session of this directory", bin, home, dir, "resume", exited)
	c.waitFor("› remember the first chat")
	c.keys("Escape")
	c.waitFor("Ask anything")
	c.keys("C-d")
	s := c.waitFor("chat-exited")
	if strings.Contains(s, "agent resume") {
		t.Errorf("the quit line names a session with nothing in it:\n%s", s)
	}
	files, after := recordedSessions(t, home)
	if len(files) != 1 || files[0] != first[0] || !slices.Equal(after, ids) {
		t.Errorf("after a cancelled picker: sessions %v, index ids %v; want %v and %v", files, after, first, ids)
	}

	c = startChatShowing(t, "Resume a session of this directory", bin, home, dir, "resume", exited)
	c.waitFor("› remember the first chat")
	c.keys("Enter")
	c.waitFor("first answer")
	c.send("and again")
	c.waitFor("back again")
	c.waitIdle()
	c.keys("C-d")
	c.waitFor("chat-exited")
	files, after = recordedSessions(t, home)
	if len(files) != 1 || files[0] != first[0] || !slices.Equal(after, ids) {
		t.Errorf("after resuming from the picker: sessions %v, index ids %v; want %v and %v", files, after, first, ids)
	}
	if b, _ := os.ReadFile(first[0]); !strings.Contains(string(b), "and again") {
		t.Error("the chosen session did not record the new message")
	}
}

// TestE2EChatHangupLeavesNothing: closing the terminal (tmux gone: SIGHUP)
// before anything was sent leaves what /quit leaves: no rollout, no index
// record and no rollout .lock naming a dead process.
func TestE2EChatHangupLeavesNothing(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{})
	home := writeConfig(t, srv.URL, "")
	c := startChat(t, bin, home, t.TempDir())
	c.keys("-l", "typed, never sent")
	c.waitFor("typed, never sent")
	kids := paneChildren(c.name)
	if err := exec.Command("tmux", "-S", c.name, "kill-server").Run(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range kids {
		waitGone(t, pid)
	}
	files, ids := recordedSessions(t, home)
	if len(files) != 0 || len(ids) != 0 {
		t.Errorf("after a hangup: sessions %v, index ids %v; want none", files, ids)
	}
	_ = filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl.lock") {
			t.Errorf("a rollout lock is left behind: %s", p)
		}
		return nil
	})
}
