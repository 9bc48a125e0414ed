package frontends

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// paste pastes text into the pane as a terminal does: bracketed, when the
// program asked for bracketed paste.
func (c *tmuxChat) paste(text string) {
	c.t.Helper()
	for _, args := range [][]string{{"set-buffer", "-b", "p", text}, {"paste-buffer", "-p", "-d", "-b", "p", "-t", "e2e"}} {
		if out, err := exec.Command("tmux", append([]string{"-S", c.name}, args...)...).CombinedOutput(); err != nil {
			c.t.Fatalf("tmux %s: %v: %s", args[0], err, out)
		}
	}
}

// keepOnExit keeps the pane (and what the program printed last) after the
// program exits.
func (c *tmuxChat) keepOnExit() {
	c.t.Helper()
	if out, err := exec.Command("tmux", "-S", c.name, "set-option", "-t", "e2e", "remain-on-exit", "on").CombinedOutput(); err != nil {
		c.t.Fatalf("remain-on-exit: %v: %s", err, out)
	}
}

// TestE2EChatPasteAndComposer: key names and line breaks that arrive as
// text (one chunk, or a bracketed paste) are typed into the composer, not
// pressed; the composer grows to its bound and every line stays reachable;
// the message is sent once, whole; the quit line names the session.
func TestE2EChatPasteAndComposer(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "got all of it")})
	home := writeConfig(t, srv.URL, "")
	c := startChat(t, bin, home, t.TempDir())
	c.keepOnExit()

	c.keys("-l", "enter") // the word, in one chunk: before, it sent the message
	c.waitFor("› enter")
	c.keys("-l", "\rup\resc") // text with line breaks in one chunk: a paste without brackets
	c.waitFor("  esc")
	c.paste("\nfourth\nfifth")
	s := c.waitFor("  fifth")
	for _, want := range []string{"› enter", "  up", "  esc", "  fourth"} {
		if !strings.Contains(s, want) {
			t.Errorf("the composer does not show %q:\n%s", want, s)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests while typing; the text was taken for keys", n)
	}
	// Seven more lines: twelve in all, more than the composer's bound (8).
	c.paste("\n6\n7\n8\n9\n10\n11\nlast line")
	s = c.waitFor("  last line")
	if strings.Contains(s, "› enter") {
		t.Errorf("twelve lines fit a composer bounded at eight?\n%s", s)
	}
	for range 11 {
		c.keys("Up")
	}
	s = c.waitFor("› enter")
	if strings.Contains(s, "last line") {
		t.Errorf("on the first line, the composer still shows the last:\n%s", s)
	}
	c.keys("Enter")
	c.waitFor("got all of it")
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if want := `enter\nup\nesc\nfourth\nfifth\n6\n7\n8\n9\n10\n11\nlast line`; !strings.Contains(string(reqs[0].Body), want) {
		t.Errorf("the request does not carry the whole text %q:\n%s", want, reqs[0].Body)
	}
	c.send("/status")
	st := c.waitFor("  session: ")
	statusID := regexp.MustCompile(`session: ([0-9a-f-]{36}) · resume with`).FindStringSubmatch(st)
	if statusID == nil {
		t.Fatalf("/status shows no session id:\n%s", st)
	}
	c.keys("C-d")
	// The line is printed after the chat leaves the alternate screen, at
	// the top of the history. (Not "Pane is dead": tmux can be late to
	// reap the exited program, which made this test flaky.)
	quitRE := regexp.MustCompile("agent resume ([0-9a-f-]{36})`")
	var id []string
	deadline := time.Now().Add(screenWait)
	for tick := time.NewTicker(20 * time.Millisecond); id == nil; <-tick.C {
		out, _ := exec.Command("tmux", "-S", c.name, "capture-pane", "-p", "-S", "-", "-t", "e2e").Output()
		s = string(out)
		if id = quitRE.FindStringSubmatch(s); id == nil && time.Now().After(deadline) {
			t.Fatalf("the quit line with the session id never appeared:\n%s", s)
		}
	}
	if id[1] != statusID[1] {
		t.Errorf("the quit line names %s, /status %s", id[1], statusID[1])
	}
	if _, err := os.Stat(filepath.Join(home, "sessions")); err != nil {
		t.Errorf("no session recorded for %s: %v", id[1], err)
	}
}

// TestE2EChatApprovalShowsDiff: a patch approval shows the files and the
// diff, which scrolls; y applies it.
func TestE2EChatApprovalShowsDiff(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("keep\nold line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var p strings.Builder
	p.WriteString("*** Begin Patch\n*** Update File: a.txt\n@@\n keep\n-old line\n+new line\n*** Add File: notes.txt\n")
	for i := range 40 {
		p.WriteString("+note " + strconv.Itoa(i) + "\n")
	}
	p.WriteString("*** End Patch\n")
	args, _ := json.Marshal(map[string]string{"input": p.String()})
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc", "call_1", "apply_patch", string(args)), rt.Completed("r1")),
		rt.Reply("r2", "m2", "patched"),
	})
	home := writeConfig(t, srv.URL, "approval_policy = \"untrusted\"\nsandbox_mode = \"workspace-write\"\n")
	c := startChat(t, bin, home, dir)
	c.send("change it")
	// The whole box, not its first line: the frame may be half drawn.
	s := c.waitFor("Apply this patch to 2 files?", "a.txt", "notes.txt", "-old line", "+new line", "+note 0", "lines 1–")
	if strings.Contains(s, "+note 39") {
		t.Errorf("a 48-line diff fits 30 rows with the prompt?\n%s", s)
	}
	c.keys("PageDown")
	c.keys("PageDown")
	c.keys("PageDown")
	c.waitFor("+note 39")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "keep\nold line\n" {
		t.Fatalf("the patch was applied before the approval: %q", b)
	}
	c.keys("y")
	c.waitFor("patched")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "keep\nnew line\n" {
		t.Errorf("a.txt after approval = %q", b)
	}
	c.keys("C-d")
}

// TestE2EChatRetryCountdown: a retry's wait counts down live in the chat,
// in the one wording exec uses, and Ctrl+R retries at once (the wait is 30
// s, longer than the test waits for anything).
func TestE2EChatRetryCountdown(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Status(503), rt.Reply("r1", "m1", "answered after the retry")})
	home := writeConfig(t, srv.URL, "[retry.server_error]\nbase_delay_ms = 30000\nmax_delay_ms = 30000\njitter = 0\n")
	c := startChat(t, bin, home, t.TempDir())
	c.send("hello")
	s := c.waitFor("ctrl+r to retry now")
	if !strings.Contains(s, "Retrying request... 1/") || !strings.Contains(s, "in 30s (503") {
		t.Errorf("the retry is not worded as exec words it:\n%s", s)
	}
	m := regexp.MustCompile(`next try in (\d+)s`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no countdown:\n%s", s)
	}
	n, _ := strconv.Atoi(m[1])
	c.waitFor("next try in " + strconv.Itoa(n-1) + "s") // it counts down
	c.keys("C-r")
	c.waitFor("answered after the retry")
	if len(srv.Requests()) != 2 {
		t.Errorf("%d requests, want 2", len(srv.Requests()))
	}
	c.keys("C-d")
}

// pasteUnbracketed pastes text into the pane as a terminal without
// bracketed paste does: its line breaks arrive as carriage returns, with
// nothing around them.
func (c *tmuxChat) pasteUnbracketed(text string) {
	c.t.Helper()
	for _, args := range [][]string{{"set-buffer", "-b", "u", text}, {"paste-buffer", "-d", "-b", "u", "-t", "e2e"}} {
		if out, err := exec.Command("tmux", append([]string{"-S", c.name}, args...)...).CombinedOutput(); err != nil {
			c.t.Fatalf("tmux %s: %v: %s", args[0], err, out)
		}
	}
}

// TestE2EChatEnterFromScripts: the three ways tools drive a chat through
// tmux each submit exactly the text, at once: `send-keys TEXT Enter` in one
// call, `send-keys -l TEXT` then `send-keys Enter` without waiting, and a
// bracketed `paste-buffer -p` then Enter; the word "enter" stays text; a
// multi-line paste without brackets stays in the composer, unsent, until
// Enter is pressed.
func TestE2EChatEnterFromScripts(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Reply("r1", "m1", "answer one"), rt.Reply("r2", "m2", "answer two"),
		rt.Reply("r3", "m3", "answer three"), rt.Reply("r4", "m4", "answer four"),
	})
	home := writeConfig(t, srv.URL, "")
	c := startChat(t, bin, home, t.TempDir())
	sent := func(n int, want, answer string) {
		t.Helper()
		c.waitFor(answer)
		c.waitIdle()
		reqs := srv.Requests()
		if len(reqs) != n {
			t.Fatalf("%d requests, want %d", len(reqs), n)
		}
		if got := agenttest.LastUserText(reqs[n-1].Body); got != want {
			t.Errorf("request %d sent %q, want %q", n, got, want)
		}
	}
	c.keys("say enter in one call", "Enter")
	sent(1, "say enter in one call", "answer one")

	c.keys("-l", "literal text, then Enter")
	c.keys("Enter")
	sent(2, "literal text, then Enter", "answer two")

	c.paste("pasted line one\npasted line two")
	c.keys("Enter")
	sent(3, "pasted line one\npasted line two", "answer three")

	c.pasteUnbracketed("first line\nsecond line\nthird line")
	c.waitFor("  third line")
	c.keys("-l", " and enter")
	s := c.waitFor("third line and enter")
	if !strings.Contains(s, "› first line") || len(srv.Requests()) != 3 {
		t.Fatalf("the unbracketed paste did not stay in the composer (%d requests):\n%s", len(srv.Requests()), s)
	}
	c.keys("Enter")
	sent(4, "first line\nsecond line\nthird line and enter", "answer four")
	c.keys("C-d")
}
