package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/rollout"
)

// TestCodexTUIRemote: Codex 0.171's own TUI, `codex --remote ws://...` in
// tmux, attached to agent app-server: a prompt is answered, the command
// approval agent asks is shown by Codex and the "y" honoured (the file
// is made), and Esc interrupts a turn in progress (recorded so).
func TestCodexTUIRemote(t *testing.T) {
	t.Parallel()
	cli := codexCLI(t)
	bin := buildAgent(t)
	work := t.TempDir()
	marker := filepath.Join(work, "made-by-model")
	script := append(approvalScript(marker),
		rt.Stream(rt.Created("r3"), rt.OutputItemAdded(rt.MessageItem("m3", "", "in_progress")), rt.TextDelta("m3", "thinking slowly "), rt.Stall()))
	// Codex's TUI names its thread with a request of its own: answer it
	// (and anything else) with a reply.
	for range 4 {
		script = append(script, rt.Reply("r9", "m9", "done"))
	}
	srv := rt.NewServer(t, script)
	home := appServerConfig(t, srv.URL, false)
	url, stderr := startAppServer(t, bin, home, "-a", "on-request")
	codexHome := t.TempDir()
	cfg := "model = \"test-model\"\n[projects.\"" + work + "\"]\ntrust_level = \"trusted\"\n"
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChatEnv(t, "Ask Codex to do anything", "HOME="+codexHome+" CODEX_HOME="+codexHome, "node "+cli, work, "--remote", validating(t, url))
	c.send("make the file")
	c.waitFor("Would you like to run the following command?", "touch "+marker)
	// The dialog may be drawn before it takes keys: press y until it goes.
	for i := 0; ; i++ {
		c.keys("y")
		if waitScreen(c, 3*time.Second, "Ran touch "+marker) {
			break
		}
		if i == 4 {
			t.Fatalf("the approval dialog did not take y:\n%s\nagent:\n%s", c.screen(), stderr)
		}
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the approved command did not run: %v\nagent:\n%s", err, stderr)
	}
	// Esc interrupts a turn in progress: Codex sends turn/interrupt,
	// agent ends the turn (recorded as interrupted) and Codex says so.
	c.send("think about it")
	c.waitFor("thinking slowly")
	c.keys("Escape")
	c.waitFor("Conversation interrupted")
	ents, err := rollout.List(t.Context(), home, "", true, 0)
	if err != nil || len(ents) == 0 {
		t.Fatalf("no session recorded: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ro, err := rollout.Load(ents[0].Path)
		if err == nil && ro.Interrupted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the interrupted turn is not recorded as interrupted (%v)\nagent:\n%s", err, stderr)
		}
	}
}

// waitScreen polls c's screen for want up to d, saying whether it came.
func waitScreen(c *tmuxChat, d time.Duration, want string) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(c.screen(), want) {
			return true
		}
	}
	return false
}
