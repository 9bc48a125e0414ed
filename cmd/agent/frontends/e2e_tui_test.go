package frontends

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// tmuxChat drives the real binary's interactive chat in a tmux pane.
type tmuxChat struct {
	t    *testing.T
	name string       // the server's socket
	ctl  *tmuxControl // nil: every command starts a tmux process
	// lastKeys is when keys last sent keys: the next waits for keyGap.
	lastKeys time.Time
}

// keyGap is the least time between two sends of keys. Keys sent closer
// together can reach the chat in one read, where they mean something
// else (Enter then text is a paste; Escape then a key is Alt and that
// key), as they would from a person typing that fast; a tmux process per
// command used to space them.
const keyGap = 30 * time.Millisecond

func startChat(t *testing.T, bin, home, dir string, args ...string) *tmuxChat {
	t.Helper()
	return startChatShowing(t, "Ask anything", bin, home, dir, args...)
}

// startChatShowing is startChat, ready when the screen shows ready.
func startChatShowing(t *testing.T, ready, bin, home, dir string, args ...string) *tmuxChat {
	t.Helper()
	return startChatEnv(t, ready, "AGENT_HOME="+home+" HOME="+t.TempDir()+" NO_COLOR=1", bin, dir, args...)
}

// startChatEnv is startChatShowing with the environment env (VAR=value
// words) in place of AGENT_HOME and NO_COLOR.
func startChatEnv(t *testing.T, ready, env, bin, dir string, args ...string) *tmuxChat {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	c := &tmuxChat{t: t, name: "agent-e2e-" + strings.ReplaceAll(t.Name(), "/", "-")}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	c.name = c.name + " -S " + sock // keep each test's server private
	cmdline := "cd " + dir + " && " + env + " FAKE_KEY=" + fakeKey + " " + bin + " " + strings.Join(args, " ")
	if out, err := exec.Command("tmux", "-S", sock, "new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", cmdline).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	c.name = sock
	ctl, err := attachControl(sock)
	if err != nil {
		t.Logf("tmux control mode: %v; each command starts a tmux process", err)
	}
	c.ctl = ctl
	t.Cleanup(func() {
		// Killing tmux only asks agent to end: wait for it (the pane
		// shell's children), so the test's directories are removed after
		// its last write (a session discarded or closed at exit).
		kids := paneChildren(sock)
		_ = exec.Command("tmux", "-S", sock, "kill-server").Run()
		if ctl != nil {
			ctl.close()
		}
		for _, pid := range kids {
			waitGone(t, pid)
		}
	})
	c.waitFor(ready)
	return c
}

// paneChildren are the pids of the pane's shell and of the processes it
// runs now (agent, while it runs; the shell itself may have become agent);
// none when the pane is gone.
func paneChildren(sock string) []int {
	out, err := exec.Command("tmux", "-S", sock, "display-message", "-p", "-t", "e2e", "#{pane_pid}").Output()
	if err != nil {
		return nil
	}
	shell := strings.TrimSpace(string(out))
	b, _ := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	var pids []int
	for _, f := range append([]string{shell}, strings.Fields(string(b))...) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitGone waits (bounded) until process pid has ended or is a zombie
// (it writes nothing more).
func waitGone(t *testing.T, pid int) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
	}
	t.Errorf("agent (pid %d) still running 10 s after its tmux server was killed", pid)
}

func (c *tmuxChat) keys(keys ...string) {
	c.t.Helper()
	time.Sleep(time.Until(c.lastKeys.Add(keyGap)))
	defer func() { c.lastKeys = time.Now() }()
	if words, ok := tmuxWords(keys); ok && c.ctl != nil {
		if out, ok := c.ctl.run("send-keys -t e2e " + words); !ok {
			c.t.Fatalf("send-keys %q: %s", keys, out)
		}
		return
	}
	args := append([]string{"-S", c.name, "send-keys", "-t", "e2e"}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		c.t.Fatalf("send-keys: %v: %s", err, out)
	}
}

// send types text, waits until the composer shows it, then presses Enter
// (TestE2EChatEnterFromScripts covers Enter sent without waiting).
func (c *tmuxChat) send(text string) {
	c.t.Helper()
	c.keys("-l", text)
	c.waitFor("› " + text)
	c.keys("Enter")
}

func (c *tmuxChat) screen() string {
	if c.ctl != nil {
		out, _ := c.ctl.run("capture-pane -p -t e2e")
		return out
	}
	out, _ := exec.Command("tmux", "-S", c.name, "capture-pane", "-p", "-t", "e2e").Output()
	return string(out)
}

// screenWait bounds waitFor and waitIdle: how long a chat may take to show
// what a test waits for before the test fails. Passing tests never wait it
// out, so it is set for the worst machine: at a load of 30 on two cores
// Codex's TUI took over 15 s to show a dialog, and a test failing there is
// a test that fails 1 run in 50.
const screenWait = time.Minute

// waitFor polls the screen (for at most screenWait) until it contains
// every string of wants (a frame may be on screen half drawn: its first
// line is not all of it) and returns that screen.
func (c *tmuxChat) waitFor(wants ...string) string {
	c.t.Helper()
	if s, ok := c.poll(screenWait, wants...); ok {
		return s
	}
	c.t.Fatalf("screen never showed %q:\n%s", wants, c.screen())
	return ""
}

// poll polls the screen for at most d until it contains every string of
// wants; ok says whether it did.
func (c *tmuxChat) poll(d time.Duration, wants ...string) (s string, ok bool) {
	return c.until(d, func(s string) bool {
		return !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(s, w) })
	})
}

// until captures the screen until done says yes or d has passed: after
// each change of the pane (at most 100 ms apart) through the control
// client, else at pollBackoff's pace. It returns the last screen.
func (c *tmuxChat) until(d time.Duration, done func(screen string) bool) (s string, ok bool) {
	if c.ctl == nil {
		ok = pollBackoff(d, func() bool {
			s = c.screen()
			return done(s)
		})
		return s, ok
	}
	for deadline := time.Now().Add(d); ; {
		if s = c.screen(); done(s) {
			return s, true
		}
		if time.Now().After(deadline) {
			return s, false
		}
		c.ctl.waitChange(100 * time.Millisecond)
	}
}

// pollBackoff calls done until it reports true or d has passed, pausing
// 10 ms after the first call and half as long again after each next one,
// up to 100 ms: a screen that changes at once is seen at once, and a
// long wait costs ten tmux processes a second rather than fifty (on a
// busy machine every process started is wall time for the package).
func pollBackoff(d time.Duration, done func() bool) bool {
	deadline := time.Now().Add(d)
	pause := 10 * time.Millisecond
	for !done() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(pause*3/2, 100*time.Millisecond)
	}
	return true
}

// waitIdle polls the screen (for at most screenWait) until no turn runs:
// the status line no longer offers to interrupt one. An answer on screen
// does not mean that: the turn ends a moment later, and commands that
// replace the session (/model, /new) are refused until it has.
func (c *tmuxChat) waitIdle() {
	c.t.Helper()
	_, idle := c.until(screenWait, func(s string) bool {
		return !strings.Contains(s, "esc to interrupt") && !strings.Contains(s, "esc to cancel")
	})
	if !idle {
		c.t.Fatalf("a turn never ended:\n%s", c.screen())
	}
}

func TestE2EChat(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	args, _ := json.Marshal(map[string]string{"cmd": "touch approved.txt"})
	srv := rt.NewServer(t, rt.Script{
		// Turn 1: a 503, then the answer.
		rt.Status(503), rt.Reply("r1", "m1", "first answer here"),
		// Turn 2: a command that needs approval, then the answer.
		rt.Stream(rt.Created("r2"), rt.FunctionCallDone("fc", "call_1", "exec_command", string(args)), rt.Completed("r2")),
		rt.Reply("r3", "m3", "command done"),
		// Turn 3: stalls until Esc.
		rt.Stream(rt.Created("r4"), rt.TextDelta("m4", "thinking "), rt.Stall()),
		// Turn 4: stalls while a message is queued, then ends; the queued
		// message is turn 5.
		rt.Stream(rt.Created("r5"), rt.TextDelta("m5", "slow "), rt.Barrier("slow"), rt.Stall(),
			rt.MessageDone("m5", "slow done"), rt.Completed("r5")),
		rt.Reply("r6", "m6", "queued one answered"),
	})
	home := writeConfig(t, srv.URL, "approval_policy = \"untrusted\"\nsandbox_mode = \"danger-full-access\"\n")
	dir := t.TempDir()
	c := startChat(t, bin, home, dir)

	c.send("hello there")
	s := c.waitFor("first answer here")
	if n := strings.Count(s, "first answer here"); n != 1 {
		t.Errorf("answer shown %d times:\n%s", n, s)
	}
	// The retry stays in the transcript as one line, above the answer.
	retryAt, answerAt := strings.Index(s, "↻ Retrying request... 1/"), strings.Index(s, "first answer here")
	if retryAt < 0 || !strings.Contains(s[retryAt:], "503") || retryAt > answerAt {
		t.Errorf("no retry line naming the 503 above the answer:\n%s", s)
	}

	c.send("run it")
	c.waitFor("touch approved.txt")
	c.keys("y")
	c.waitFor("command done")
	if _, err := os.Stat(filepath.Join(dir, "approved.txt")); err != nil {
		t.Errorf("approved command did not run: %v", err)
	}

	c.send("think")
	c.waitFor("thinking")
	c.keys("Escape")
	c.waitFor("interrupted")

	c.send("slow one")
	<-srv.Reached("slow")
	c.send("queued question")
	c.waitFor("queued")
	srv.Release()
	c.waitFor("queued one answered")
	reqs := srv.Requests()
	if len(reqs) != 7 {
		t.Errorf("%d requests; want 7", len(reqs))
	}
	last := reqs[len(reqs)-1]
	if !strings.Contains(string(last.Body), "queued question") {
		t.Errorf("the queued message was not sent after the turn: %s", last.Body)
	}
	c.keys("C-d")
}

// TestE2EChatModelAndApprovals: /model switches the model the next request
// uses, keeping the history; /approvals changes the policy.
func TestE2EChatModelAndApprovals(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	args, _ := json.Marshal(map[string]string{"cmd": "touch free.txt"})
	srv := rt.NewServer(t, rt.Script{
		rt.Reply("r1", "m1", "first"),
		rt.Reply("r2", "m2", "second"),
		rt.Stream(rt.Created("r3"), rt.FunctionCallDone("fc", "call_1", "exec_command", string(args)), rt.Completed("r3")),
		rt.Reply("r4", "m4", "ran without asking"),
	})
	home := writeConfig(t, srv.URL, "approval_policy = \"untrusted\"\nsandbox_mode = \"danger-full-access\"\n")
	dir := t.TempDir()
	c := startChat(t, bin, home, dir)
	c.send("one")
	c.waitFor("first")
	c.waitIdle()
	c.send("/model other-model")
	c.waitFor("other-model")
	c.send("two")
	c.waitFor("second")
	reqs := srv.Requests()
	if reqs[1].JSON["model"] != "other-model" || len(reqs[1].JSON["input"].([]any)) <= len(reqs[0].JSON["input"].([]any)) {
		t.Errorf("after /model the request used %v with %d items", reqs[1].JSON["model"], len(reqs[1].JSON["input"].([]any)))
	}
	c.send("/approvals never")
	c.waitFor("approval policy: never")
	c.send("go")
	c.waitFor("ran without asking")
	if _, err := os.Stat(filepath.Join(dir, "free.txt")); err != nil {
		t.Errorf("the command did not run under the new policy: %v", err)
	}
	c.keys("C-d")
}
