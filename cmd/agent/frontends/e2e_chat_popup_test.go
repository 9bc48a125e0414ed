package frontends

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatPopupPromptsAndFiles: "/" opens the popup of commands, which
// filters as you type and runs the highlighted one on Enter; a Codex
// command agent lacks answers one line; a custom prompt runs with its
// argument; "@" finds a file (not an ignored one) and Tab inserts it.
func TestE2EChatPopupPromptsAndFiles(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "hello sent"), rt.Reply("r2", "m2", "file seen")})
	home := writeConfig(t, srv.URL, "")
	dir := t.TempDir()
	for f, text := range map[string]string{
		filepath.Join(home, "prompts", "greet.md"): "---\ndescription: greet someone\nargument-hint: NAME\n---\nSay hello to $1.",
		filepath.Join(dir, "src", "widget.go"):     "package src\n",
		filepath.Join(dir, "src", "widgetgen.go"):  "package src\n",
		filepath.Join(dir, ".gitignore"):           "*gen.go\n",
	} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := startChat(t, bin, home, dir)
	c.keys("-l", "/")
	s := c.waitFor("/permissions [PRESET|POLICY]")
	if !strings.Contains(s, "choose the model") {
		t.Errorf("the popup rows have no descriptions:\n%s", s)
	}
	c.keys("-l", "stat")
	c.waitFor("› /status")
	c.keys("Enter")
	c.waitFor("  session: ")

	c.keys("/ide", "Enter")
	c.waitFor("/ide: agent has no IDE integration")

	c.keys("-l", "/prompts:gr")
	c.waitFor("› /prompts:greet NAME")
	c.keys("-l", "eet Ada")
	c.keys("Enter")
	c.waitFor("hello sent")
	c.waitIdle()
	if got := agenttest.LastUserText(srv.Requests()[0].Body); got != "Say hello to Ada." {
		t.Errorf("the prompt sent %q", got)
	}

	c.keys("-l", "read @widg")
	s = c.waitFor("› src/widget.go")
	if strings.Contains(s, "widgetgen.go") {
		t.Errorf("the ignored file is offered:\n%s", s)
	}
	c.keys("Tab")
	c.waitFor("› read src/widget.go")
	c.keys("Enter")
	c.waitFor("file seen")
	if got := agenttest.LastUserText(srv.Requests()[1].Body); got != "read src/widget.go " {
		t.Errorf("the mention sent %q", got)
	}
	c.keys("C-d")
}

// TestE2EChatPickers: /permissions offers the presets and applies the one
// chosen; /model offers the configured model; /resume lists this
// directory's other sessions (not the running one) and reopens the one
// chosen; `agent resume` without an id opens the same picker.
func TestE2EChatPickers(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "first answer")})
	home := writeConfig(t, srv.URL, "")
	dir := t.TempDir()
	c := startChat(t, bin, home, dir)
	c.send("remember the first chat")
	c.waitFor("first answer")
	c.waitIdle()

	c.keys("/permissions", "Enter")
	s := c.waitFor("Full access")
	if !strings.Contains(s, "edits files and runs commands in the workspace") {
		t.Errorf("the presets do not say what they allow:\n%s", s)
	}
	c.keys("-l", "never ask")
	c.waitFor("filter: never ask")
	c.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace")
	c.keys("-l", "full")
	c.waitFor("› Full access")
	c.keys("Enter")
	c.waitFor("approval policy: never")

	c.keys("/model", "Enter")
	c.waitFor("Choose a model")
	c.keys("Enter")
	c.waitFor("model: test-model")

	c.keys("/new", "Enter")
	c.waitFor("Started a new conversation.")
	c.waitIdle()
	c.keys("/resume", "Enter")
	s = c.waitFor("› remember the first chat")
	if strings.Count(s, "just now") != 1 {
		t.Errorf("the picker should list the first session only (not the running one):\n%s", s)
	}
	c.keys("Enter")
	c.waitFor("first answer")
	c.keys("C-d")

	c = startChatShowing(t, "Resume a session of this directory", bin, home, dir, "resume")
	c.waitFor("› remember the first chat")
	c.keys("Enter")
	c.waitFor("first answer")
	c.keys("C-d")
}

// TestE2EChatHistoryForkAndPager: Up recalls the last prompt; Esc Esc on
// an empty composer opens the earlier messages, and choosing one forks the
// conversation before it with the message in the composer to edit, so the
// next request holds neither it nor what came after; Ctrl+T shows the
// transcript in a pager; /fork at the latest message records a session
// forked from this one.
func TestE2EChatHistoryForkAndPager(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Reply("r1", "m1", "alpha answer"), rt.Reply("r2", "m2", "beta answer"), rt.Reply("r3", "m3", "edited answer"),
	})
	home := writeConfig(t, srv.URL, "")
	c := startChat(t, bin, home, t.TempDir())
	c.send("alpha question")
	c.waitFor("alpha answer")
	c.waitIdle()
	c.send("beta question")
	c.waitFor("beta answer")
	c.waitIdle()
	c.keys("Up")
	c.waitFor("› beta question\n")
	c.keys("Down")
	c.waitFor("Ask anything")

	c.keys("Escape")
	c.waitFor("Press esc again to edit an earlier message")
	c.keys("Escape")
	c.waitFor("› beta question")
	c.keys("Down", "Enter")
	c.waitFor("Forked before that message")
	c.waitFor("› alpha question")
	c.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace")
	c.keys("-l", "edited")
	c.waitFor("› alpha edited")
	c.keys("Enter")
	c.waitFor("edited answer")
	c.waitIdle()
	body := string(srv.Requests()[2].Body)
	if !strings.Contains(body, "alpha edited") || strings.Contains(body, "alpha question") || strings.Contains(body, "beta") {
		t.Errorf("the request after the edit does not hold just the edited message:\n%s", body)
	}

	c.keys("C-t")
	c.waitFor("q or esc close")
	c.keys("q")
	c.waitFor("Ask anything")

	c.keys("/fork", "Enter")
	c.waitFor("› at the latest message")
	c.keys("Enter")
	c.waitFor("Forked into a new session.")
	c.keys("C-d")
	var forked int
	_ = filepath.WalkDir(filepath.Join(home, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), `"forked_from_id"`) {
				forked++
			}
		}
		return nil
	})
	if forked != 2 {
		t.Errorf("%d forked sessions recorded, want 2 (the edit and /fork)", forked)
	}
}
