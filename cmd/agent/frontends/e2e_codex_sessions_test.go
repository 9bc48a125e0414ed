package frontends

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestE2ECodexSharedHomePickers: in a home shared with the real Codex
// 0.171, each tool's resume picker lists the other's sessions. Codex's
// picker lists from its state database (state_5.sqlite), filled from the
// rollout files once: agent's session, recorded after Codex made it, is
// listed because agent adds its row there. agent's picker lists Codex's
// session, recorded after agent's index was made, titled with its prompt
// (Codex 0.169+ keeps it only as an item_completed event).
func TestE2ECodexSharedHomePickers(t *testing.T) {
	t.Parallel()
	cli := codexCLI(t)
	bin := buildAgent(t)
	var script rt.Script
	for range 8 {
		script = append(script, rt.Reply("r1", "m1", "answer from the fake server"))
	}
	srv := rt.NewServer(t, script)
	home := writeConfig(t, srv.URL, "")
	// Codex wants its providers named.
	f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("name = \"fake\"\nwire_api = \"responses\"\n")
	if err := errors.Join(err, f.Close()); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	userHome := t.TempDir() // no ~/.agent: agent uses CODEX_HOME, as a Codex user's does
	codexEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + userHome, "CODEX_HOME=" + home, "FAKE_KEY=" + fakeKey, "TERM=dumb"}

	// agent first, so that agent's index exists before Codex's session.
	c := startChatEnv(t, "Ask anything", "HOME="+userHome+" CODEX_HOME="+home+" NO_COLOR=1", bin, work, "; echo chat-exited; read -r done")
	c.send("agent says hello")
	c.waitFor("answer from the fake server")
	c.waitIdle()
	c.keys("C-d")
	c.waitFor("chat-exited")

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	codex := exec.CommandContext(ctx, "node", cli, "exec", "--skip-git-repo-check", "codex asks first")
	codex.Env, codex.Dir = codexEnv, work
	if out, err := codex.CombinedOutput(); err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}

	// agent's picker: its own session and Codex's.
	c = startChatEnv(t, "Resume a session of this directory", "HOME="+userHome+" CODEX_HOME="+home+" NO_COLOR=1", bin, work, "resume")
	c.waitFor("agent says hello", "codex asks first")

	// Codex's picker (--include-non-interactive: Codex's own exec session
	// is not interactive) lists both too. A second agent session, recorded
	// after Codex made its database, is what only agent's row there shows.
	c2 := startChatEnv(t, "Ask anything", "HOME="+userHome+" CODEX_HOME="+home+" NO_COLOR=1", bin, work, "; echo chat-exited; read -r done")
	c2.send("agent again after codex")
	c2.waitFor("answer from the fake server")
	c2.waitIdle()
	c2.keys("C-d")
	c2.waitFor("chat-exited")
	// Codex's TUI takes seconds to start: its screen is awaited below.
	p := startChatEnv(t, "", "HOME="+userHome+" CODEX_HOME="+home+" TERM=xterm-256color", "node "+cli, work,
		"resume", "--no-daemon", "--include-non-interactive")
	if s, ok := p.poll(90*time.Second, "agent again after codex", "agent says hello", "codex asks first"); !ok {
		t.Fatalf("Codex's picker does not list agent's sessions:\n%s", s)
	}
}
