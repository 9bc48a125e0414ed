package frontends

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/agenttest"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/tui/highlight"
)

// TestE2EChatCodeBlockColoured: a fenced Go block in an answer is drawn
// with syntax colours (its keyword and its name in different colours),
// the prose around it not.
func TestE2EChatCodeBlockColoured(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	if err := agenttest.CompanionBinary(highlight.ProgramName); err != nil {
		t.Fatal(err)
	}
	answer := "Here it is:\n\n```go\nfunc answerFortyTwo() int { return 42 }\n```\n"
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", answer)})
	home := writeConfig(t, srv.URL, "")
	c := startChatEnv(t, "Ask anything", "AGENT_HOME="+home+" TERM=xterm-256color", bin, t.TempDir())
	c.send("show me code")
	c.waitFor("answerFortyTwo")
	// The block is drawn plain while it streams, in colour once it is
	// whole: read the screen with its colours until the code line has
	// them (bounded), then check the prose has none.
	var code, prose string
	deadline := time.Now().Add(screenWait)
	for {
		code, prose = colouredLines(t, c, "answerFortyTwo", "Here it is")
		if len(fgColours(code)) >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling tmux, as waitFor does
	}
	if n := len(fgColours(code)); n < 2 {
		t.Errorf("the code line has %d foreground colours, want 2 or more (keyword, name): %q", n, code)
	}
	if n := len(fgColours(prose)); n != 0 {
		t.Errorf("the prose line has %d foreground colours, want none: %q", n, prose)
	}
	c.keys("C-d")
}

// colouredLines are the screen's lines (with their SGR sequences) that
// hold code and prose.
func colouredLines(t *testing.T, c *tmuxChat, code, prose string) (codeLine, proseLine string) {
	t.Helper()
	out, err := exec.Command("tmux", "-S", c.name, "capture-pane", "-e", "-p", "-t", "e2e").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, ln := range strings.Split(string(out), "\n") {
		switch {
		case strings.Contains(ln, code):
			codeLine = ln
		case strings.Contains(ln, prose):
			proseLine = ln
		}
	}
	return codeLine, proseLine
}

// fgColours are the distinct foreground-colour SGR sequences in line.
func fgColours(line string) map[string]bool {
	fg := regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?(?:3[0-7]|9[0-7]|38;[0-9;]+)m`)
	out := map[string]bool{}
	for _, m := range fg.FindAllString(line, -1) {
		out[m] = true
	}
	return out
}
