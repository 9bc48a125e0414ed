package frontends

import (
	"os/exec"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// alternateOn is what tmux says of the pane: whether the program runs on
// the alternate screen.
func (c *tmuxChat) alternateOn() string {
	c.t.Helper()
	out, err := exec.Command("tmux", "-S", c.name, "display-message", "-p", "-t", "e2e", "#{alternate_on}").Output()
	if err != nil {
		c.t.Fatalf("tmux display: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// scrollback is the pane's history and screen.
func (c *tmuxChat) scrollback() string {
	out, _ := exec.Command("tmux", "-S", c.name, "capture-pane", "-p", "-S", "-", "-t", "e2e").Output()
	return string(out)
}

// TestE2EChatInline: --no-alt-screen, and Codex's [tui] alternate_screen =
// "never", run the chat inline (tmux reports no alternate screen), without
// a warning; answers that scroll off stay in the terminal's scrollback,
// once each. Without either the chat takes the alternate screen.
func TestE2EChatInline(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	long := strings.Repeat("line of the answer\n\n", 12)
	for _, tc := range []struct {
		name, cfg string
		args      []string
		alt       string
	}{
		{name: "flag", args: []string{"--no-alt-screen"}, alt: "0"},
		{name: "config", cfg: "[tui]\nalternate_screen = \"never\"\n", alt: "0"},
		{name: "default", alt: "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := rt.NewServer(t, rt.Script{
				rt.Reply("r1", "m1", "FIRST answer\n\n"+long), rt.Reply("r2", "m2", "SECOND answer\n\n"+long),
			})
			home := writeConfig(t, srv.URL, tc.cfg)
			c := startChat(t, bin, home, t.TempDir(), tc.args...)
			if got := c.alternateOn(); got != tc.alt {
				t.Fatalf("alternate_on = %s, want %s:\n%s", got, tc.alt, c.screen())
			}
			if s := c.scrollback(); strings.Contains(s, "warning") {
				t.Errorf("a warning is shown:\n%s", s)
			}
			c.send("one")
			c.waitFor("FIRST answer")
			c.waitIdle()
			c.send("two")
			c.waitFor("SECOND answer")
			c.waitIdle()
			if tc.alt == "1" {
				return
			}
			s := c.scrollback()
			for _, w := range []string{"FIRST answer", "SECOND answer", "› one", "› two"} {
				if n := strings.Count(s, w); n != 1 {
					t.Errorf("%q is %d times in the scrollback, want once:\n%s", w, n, s)
				}
			}
		})
	}
}
