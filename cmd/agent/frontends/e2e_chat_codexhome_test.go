package frontends

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatCodexHomePrompts: with no agent home, the chat uses Codex's
// (~/.codex) and its prompts/ are the custom prompts: one runs with
// $ARGUMENTS and a NAME=value; one whose NAME= is missing says so in one
// line and sends nothing; a prompt file that cannot be used is named in one
// line at start.
func TestE2EChatCodexHomePrompts(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "codex prompt ran")})
	user := t.TempDir()
	codex := writeConfig(t, srv.URL, "")
	if err := os.Rename(codex, filepath.Join(user, ".codex")); err != nil {
		t.Fatal(err)
	}
	codex = filepath.Join(user, ".codex")
	for name, text := range map[string]string{
		"fixit.md":  "---\ndescription: fix a file\nargument-hint: FILE=PATH [WORDS]\n---\nFix $FILE: $ARGUMENTS.",
		"broken.md": "---\ndescription: never ends\nSay hi.",
	} {
		if err := os.MkdirAll(filepath.Join(codex, "prompts"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(codex, "prompts", name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := startChatEnv(t, "Ask anything", "HOME="+user+" NO_COLOR=1", bin, t.TempDir())
	s := c.waitFor("broken.md: its front")
	if strings.Contains(s, "/prompts:broken") {
		t.Errorf("the broken prompt is offered:\n%s", s)
	}
	c.keys("-l", "/prompts:fi")
	c.waitFor("› /prompts:fixit FILE=PATH [WORDS]")
	c.keys("-l", "xit the typo")
	c.waitFor("› /prompts:fixit the typo")
	c.keys("Enter")
	c.waitFor("prompt fixit: missing FILE=…")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests after the prompt missing FILE=; it was sent half-expanded", n)
	}
	c.send("/prompts:fixit FILE=main.go the typo")
	c.waitFor("codex prompt ran")
	c.waitIdle()
	if got := agenttest.LastUserText(srv.Requests()[0].Body); got != "Fix main.go: the typo." {
		t.Errorf("the Codex home's prompt sent %q", got)
	}
	if _, err := os.Stat(filepath.Join(user, ".agent")); err == nil {
		t.Error("the chat made ~/.agent though Codex's home is in use")
	}
	c.keys("C-d")
}
