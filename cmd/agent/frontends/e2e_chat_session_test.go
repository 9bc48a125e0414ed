package frontends

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatRenameAndResumeByName: /rename names the session; /status and
// the quit line show the name; `agent resume NAME` reopens it (the next
// request carries its history, /status still names it); the picker of
// `agent resume` lists it by its name.
func TestE2EChatRenameAndResumeByName(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "first answer"), rt.Reply("r2", "m2", "back again")})
	home := writeConfig(t, srv.URL, "")
	dir := t.TempDir()
	c := startChat(t, bin, home, dir, "; read -r done") // the pane stays, showing the quit line
	c.send("remember me")
	c.waitFor("first answer")
	c.waitIdle()
	c.send("/rename fix the parser")
	c.waitFor(`session named "fix the parser"`)
	c.send("/status")
	c.waitFor(`"fix the parser" · resume with`)
	c.keys("C-d")
	c.waitFor("resume with `agent resume 'fix the parser'` (session ")

	c = startChatShowing(t, "first answer", bin, home, dir, "resume", "'fix the parser'")
	c.send("and again")
	c.waitFor("back again")
	c.waitIdle()
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs, err := rt.InputMessages(reqs[1].Body)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range msgs {
		texts = append(texts, strings.Join(m.Text, " "))
	}
	if got := strings.Join(texts, " | "); !strings.Contains(got, "remember me") || !strings.Contains(got, "first answer") {
		t.Errorf("the resumed session's request lacks its history: %s", got)
	}
	c.send("/status")
	c.waitFor(`"fix the parser" · resume with`)
	c.keys("C-d")

	c = startChatShowing(t, "Resume a session of this directory", bin, home, dir, "resume")
	c.waitFor("› fix the parser")
	c.keys("C-d")
}

// TestE2EChatMCPPrompts: a stdio MCP server's prompts are in the / popup
// as /mcp__SERVER__PROMPT with their arguments; running one sends the
// prompt's text with the argument filled; one holding an image is refused
// in one line and sends nothing.
func TestE2EChatMCPPrompts(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	mcpBin := agenttest.StdioMCPServer(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "said hello")})
	home := writeConfig(t, srv.URL, "[mcp_servers.docs]\ncommand = "+agenttest.QuoteTOML(mcpBin)+"\nargs = [\"-prompts\"]\n")
	c := startChat(t, bin, home, t.TempDir())
	// The server starts in the background and /mcp prints its state once:
	// ask again until it is ready.
	for i := 0; ; i++ {
		c.send("/mcp")
		if _, ok := c.poll(2*time.Second, "docs: ready · 2 tools · 2 prompts"); ok {
			break
		}
		if i == 10 {
			t.Fatalf("the MCP server never became ready:\n%s", c.screen())
		}
	}
	c.keys("-l", "/mcp__docs__gr")
	s := c.waitFor("› /mcp__docs__greet NAME [STYLE]")
	if !strings.Contains(s, "Greets someone. (MCP server docs)") {
		t.Errorf("the popup row lacks the prompt's description:\n%s", s)
	}
	c.keys("-l", "eet Ada")
	c.waitFor("› /mcp__docs__greet Ada")
	c.keys("Enter")
	c.waitFor("said hello")
	c.waitIdle()
	if got := agenttest.LastUserText(srv.Requests()[0].Body); got != "Say hello to Ada." {
		t.Errorf("the prompt sent %q", got)
	}
	c.send("/mcp__docs__picture")
	c.waitFor("its message 2 is an image")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests after the refused prompt, want 1", n)
	}
	c.keys("C-d")
}

// TestE2EChatLogout: with the login saved in auth.json, /logout removes it
// and says so; the next message sends no request and says how to log in.
func TestE2EChatLogout(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "logged in answer")})
	home := agenttest.LoginHome(t, srv, "")
	path := filepath.Join(home, "auth.json")
	if err := os.WriteFile(path, []byte(`{"OPENAI_API_KEY":"`+fakeKey+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChat(t, bin, home, t.TempDir())
	c.send("hello")
	c.waitFor("logged in answer")
	c.waitIdle()
	c.send("/logout")
	c.waitFor("Logged out: removed " + path)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("auth.json after /logout: %v", err)
	}
	c.send("are you there")
	c.waitFor("not logged in (/logout removed the login): run `agent login`")
	c.waitIdle()
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; the turn after /logout sent one", n)
	}
	c.keys("C-d")
}
