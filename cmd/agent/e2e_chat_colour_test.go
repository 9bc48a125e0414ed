package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2EChatCodeBlockColoured: a fenced Go block in an answer is drawn
// with syntax colours (its keyword and its name in different colours),
// the prose around it not.
func TestE2EChatCodeBlockColoured(t *testing.T) {
	bin := buildAgent(t)
	answer := "Here it is:\n\n```go\nfunc answerFortyTwo() int { return 42 }\n```\n"
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", answer)})
	home := writeConfig(t, srv.URL, "")
	c := startChatEnv(t, "Ask anything", "AGENT_HOME="+home+" TERM=xterm-256color", bin, t.TempDir())
	c.send("show me code")
	c.waitFor("answerFortyTwo")
	out, err := exec.Command("tmux", "-S", c.name, "capture-pane", "-e", "-p", "-t", "e2e").Output()
	if err != nil {
		t.Fatal(err)
	}
	var code, prose string
	for _, ln := range strings.Split(string(out), "\n") {
		switch {
		case strings.Contains(ln, "answerFortyTwo"):
			code = ln
		case strings.Contains(ln, "Here it is"):
			prose = ln
		}
	}
	if n := len(fgColours(code)); n < 2 {
		t.Errorf("the code line has %d foreground colours, want 2 or more (keyword, name): %q", n, code)
	}
	if n := len(fgColours(prose)); n != 0 {
		t.Errorf("the prose line has %d foreground colours, want none: %q", n, prose)
	}
	c.keys("C-d")
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
