package frontends

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatReviewAndSessionCommands drives the chat in tmux on a
// repository with an uncommitted change: the warning summary is on screen
// at start; /review (the menu's first row: uncommitted changes) sends a
// review turn covering the change and shows its findings; /diff shows the
// changed line; /copy puts the answer on tmux's clipboard through OSC 52;
// /export writes a Markdown file holding the prompt and the answer.
func TestE2EChatReviewAndSessionCommands(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	dir := agenttest.GitRepo(t) // calc.go: a + b became a / b, uncommitted
	findings := "[P0] calc.go:3 - Division by zero\n  b == 0 panics.\n\nVerdict: needs changes"
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", findings)})
	home := writeConfig(t, srv.URL, "show_raw_agent_reasoning = true\nmemories = {}\n")
	c := startChat(t, bin, home, dir)
	if _, err := exec.Command("tmux", "-S", c.name, "set", "-g", "set-clipboard", "on").CombinedOutput(); err != nil {
		t.Fatal(err)
	}
	c.waitFor("2 settings ignored · /warnings")

	c.send("/review")
	c.waitFor("Uncommitted changes")
	c.keys("Enter")
	c.waitFor("Division by zero")
	c.waitIdle()
	s := c.screen()
	for _, want := range []string{"Code review: uncommitted changes", "review: uncommitted changes"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	msgs, err := rt.InputMessages(reqs[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	if user := strings.Join(msgs[len(msgs)-1].Text, "\n"); !strings.Contains(user, "+func Div(a, b int) int { return a / b }") {
		t.Errorf("the review request does not carry the change:\n%s", user)
	}

	c.send("/diff")
	c.waitFor("+func Div(a, b int) int { return a / b }")

	c.send("/copy")
	c.waitFor("copied the last answer")
	out, err := exec.Command("tmux", "-S", c.name, "show-buffer").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Division by zero") {
		t.Errorf("tmux's clipboard after /copy: %q (%v); the answer base64: %s", out, err, base64.StdEncoding.EncodeToString([]byte(findings))[:12])
	}

	c.send("/export review.md")
	c.waitFor("exported the conversation to")
	b, err := os.ReadFile(filepath.Join(dir, "review.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## You\n\nCode review: uncommitted changes", "## agent\n\n[P0] calc.go:3 - Division by zero"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the export lacks %q:\n%s", want, b)
		}
	}
	c.send("/warnings")
	c.waitFor("2 configuration warnings")
}

// TestE2EChatBackgroundAndInit: a command the model leaves running is
// listed by /ps and ended by /stop (its process gone); /init asks the model
// for an AGENTS.md, and when one exists says so first and goes ahead on a
// second /init.
func TestE2EChatBackgroundAndInit(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	// A sleep of this run alone: another run of the suite on the machine
	// has a sleep of its own pid, which pgrep below must not see (nor
	// TestACPClientGone's, 319.PID).
	sleep := fmt.Sprintf("sleep 317.%d", os.Getpid())
	args := `{"cmd":"` + sleep + `","yield_time_ms":200}`
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.FunctionCallDone("fc", "call_1", "exec_command", args), rt.Completed("r1")),
		rt.Reply("r2", "m2", "left it running"),
		rt.Reply("r3", "m3", "wrote AGENTS.md"),
	})
	home := writeConfig(t, srv.URL, "approval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startChat(t, bin, home, dir)
	c.send("start the server")
	c.waitFor("left it running")
	c.waitIdle()
	c.send("/ps")
	c.waitFor("1 background commands")
	c.waitFor("sleep 317")
	if out, _ := exec.Command("pgrep", "-f", regexp.QuoteMeta(sleep)).Output(); len(strings.TrimSpace(string(out))) == 0 {
		t.Fatalf("the background command is no longer running before /stop:\n%s", c.screen())
	}
	c.send("/stop")
	c.waitFor("stopped 1 background command")
	if out, _ := exec.Command("pgrep", "-f", regexp.QuoteMeta(sleep)).Output(); len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("the background command still runs after /stop: pids %s", out)
	}
	c.send("/ps")
	c.waitFor("no background commands")

	c.send("/init")
	c.waitFor("AGENTS.md already exists")
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests after the first /init, want 2", n)
	}
	c.send("/init")
	c.waitFor("wrote AGENTS.md")
	reqs := srv.Requests()
	msgs, err := rt.InputMessages(reqs[len(reqs)-1].Body)
	if err != nil {
		t.Fatal(err)
	}
	if user := strings.Join(msgs[len(msgs)-1].Text, "\n"); !strings.Contains(user, "Write an AGENTS.md file") {
		t.Errorf("/init's request: %q", user)
	}
}
