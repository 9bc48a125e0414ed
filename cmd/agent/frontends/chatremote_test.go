package frontends

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/syncbuf"
	"github.com/agentcli/agent/rollout"
)

// remoteChatScript: a command outside the sandbox that asks for approval,
// its answer; a turn that stalls until interrupted; an answer after it.
func remoteChatScript(marker string) rt.Script {
	return append(approvalScript(marker),
		rt.Stream(rt.Created("r3"), rt.OutputItemAdded(rt.MessageItem("m3", "", "in_progress")), rt.TextDelta("m3", "thinking slowly "), rt.Stall()),
		rt.Reply("r4", "m4", "after the interruption"))
}

// driveRemoteChat runs the remote chat's checks in c: the approval asked
// in agent's own dialog and honoured, the answer, Esc interrupting a
// turn, and a turn after it answered.
func driveRemoteChat(t *testing.T, c *tmuxChat, marker string, logs func() string) {
	t.Helper()
	c.send("make the file")
	c.waitFor("touch "+marker, "awaiting approval")
	c.keys("y")
	c.waitFor("done")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the approved command did not run: %v\n%s", err, logs())
	}
	c.waitIdle()
	c.send("think about it")
	c.waitFor("thinking slowly")
	c.keys("Escape")
	c.waitFor("Interrupted")
	c.waitIdle()
	// The server ended the turn: the thread takes another.
	c.send("once more")
	c.waitFor("after the interruption")
	// The answer is on screen before the turn's end reaches the chat (at
	// a load of 20, /rename next was refused: "wait for the current turn
	// to end").
	c.waitIdle()
}

// TestChatRemote: `agent --remote ws://...` runs the chat on agent
// app-server (with its bearer token): a command approval is asked in
// agent's own dialog and honoured, the answer shown, Esc interrupts the
// turn (turn/interrupt) and the thread goes on; /rename and /new are
// the server's requests, /compact is not available; every message agent
// app-server sends validates against Codex 0.171's schema.
func TestChatRemote(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	work := t.TempDir()
	marker := filepath.Join(work, "made-by-model")
	srv := rt.NewServer(t, remoteChatScript(marker))
	home := appServerConfig(t, srv.URL, false)
	url, stderr := startAppServerEnv(t, bin, home, []string{"TOK=tok-123"}, "-a", "on-request", "--ws-token-env", "TOK")
	c := startChatEnv(t, "Ask anything", "AGENT_HOME="+t.TempDir()+" NO_COLOR=1 MYTOKEN=tok-123", bin, work,
		"--remote", validating(t, url), "--remote-auth-token-env", "MYTOKEN")
	driveRemoteChat(t, c, marker, stderr.String)
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Errorf("%d model requests; want 4", len(reqs))
	}
	// /rename is thread/name/set (recorded by the server), /new a new
	// thread; a command the protocol lacks says so.
	c.send("/rename remote-named")
	c.waitFor(`session named "remote-named"`)
	if ents, err := rollout.List(t.Context(), home, "", true, 0); err != nil || len(ents) == 0 || ents[0].Label() != "remote-named" {
		t.Errorf("the server's session index: %v %+v", err, ents)
	}
	c.send("/new")
	c.waitFor("Started a new conversation.")
	c.send("/compact")
	c.waitFor("/compact is not available here")
}

// TestChatRemoteOnCodex: `agent --remote` runs the chat on Codex 0.171's
// own app-server: the same approval, answer and interruption.
func TestChatRemoteOnCodex(t *testing.T) {
	t.Parallel()
	cli := codexCLI(t)
	bin := buildAgent(t)
	work := t.TempDir()
	marker := filepath.Join(work, "made-by-model")
	script := remoteChatScript(marker)
	for range 4 { // Codex names its threads with a request of its own
		script = append(script, rt.Reply("r9", "m9", "done"))
	}
	srv := rt.NewServer(t, script)
	addr, stderr := startCodexAppServer(t, cli, srv.URL, "approval_policy = \"on-request\"\n[projects.\""+work+"\"]\ntrust_level = \"trusted\"\n")
	c := startChatEnv(t, "Ask anything", "AGENT_HOME="+t.TempDir()+" NO_COLOR=1", bin, work, "--remote", "ws://"+addr)
	t.Cleanup(func() {
		for i, r := range srv.Requests() {
			b := string(r.Body)
			t.Logf("request %d: %d bytes ...%s", i, len(b), b[max(0, len(b)-300):])
		}
	})
	driveRemoteChat(t, c, marker, stderr.String)
}

// startCodexAppServer runs `codex app-server --listen ws://...` with a
// config for the fake server at url (plus extra) and returns its address
// and standard error; it is stopped at the end of the test.
func startCodexAppServer(t *testing.T, cli, url, extra string) (string, *syncbuf.Buffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cmd := codexCmd(ctx, t, cli, "app-server", "--listen", "ws://"+addr)
	home := strings.TrimPrefix(cmd.Env[2], "CODEX_HOME=")
	cfg := "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\n" + extra + "[model_providers.fake]\nname = \"fake\"\nbase_url = \"" + url + "\"\nenv_key = \"FAKE_KEY\"\nwire_api = \"responses\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, "FAKE_KEY="+fakeKey)
	cmd.WaitDelay = 5 * time.Second // node's child, the codex binary, holds the pipes
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, &stderr
		}
		if time.Now().After(deadline) {
			t.Fatalf("codex app-server did not listen on %s\n%s", addr, &stderr)
		}
	}
}
