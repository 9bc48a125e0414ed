package frontends

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
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
	srv := rt.NewServer(t, script)
	// Codex's TUI names its thread in a thread of its own (approval
	// policy "never"), whose request races the first turn's: it goes to a
	// server of its own, so the script's order is the conversation's.
	var names rt.Script
	for range 4 {
		names = append(names, rt.Reply("r9", "m9", "named"))
	}
	namer := rt.NewServer(t, names)
	home := appServerConfig(t, routeSideThreads(t, srv.URL, namer.URL), false)
	url, stderr := startAppServer(t, bin, home, "-a", "on-request")
	codexHome := t.TempDir()
	cfg := "model = \"test-model\"\n[projects.\"" + work + "\"]\ntrust_level = \"trusted\"\n"
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChatEnv(t, "Ask Codex to do anything", "HOME="+codexHome+" CODEX_HOME="+codexHome, "node "+cli, work, "--remote", validating(t, url))
	c.send("make the file")
	if _, ok := c.poll(screenWait, "Would you like to run the following command?", "touch "+marker); !ok {
		t.Fatalf("no approval dialog in %v:\n%s\nagent:\n%s", screenWait, c.screen(), stderr)
	}
	// The dialog may be drawn before it takes keys: press y until it goes
	// (only while it is there: a y after it would be typed as text).
	for i := 0; ; i++ {
		c.keys("y")
		if _, gone := c.until(3*time.Second, func(s string) bool {
			return !strings.Contains(s, "Would you like to run the following command?")
		}); gone {
			break
		}
		if i == 4 {
			t.Fatalf("the approval dialog did not take y:\n%s\nagent:\n%s", c.screen(), stderr)
		}
	}
	c.waitFor("Ran touch " + marker)
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the approved command did not run: %v\nagent:\n%s", err, stderr)
	}
	// The first turn ends with the model's "done" before the next prompt:
	// a prompt typed while a turn runs is Codex's steer, and Esc then
	// interrupts to submit it ("Model interrupted to submit steer
	// instructions") instead of interrupting the conversation.
	c.waitFor("• done")
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

// routeSideThreads serves base URL main and side in one: a request from a
// thread whose approval policy is "never" (the thread Codex's TUI starts
// to name the conversation) goes to side, every other request to main.
func routeSideThreads(t *testing.T, main, side string) string {
	t.Helper()
	to := func(raw string) *httputil.ReverseProxy {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		p := httputil.NewSingleHostReverseProxy(u)
		p.FlushInterval = -1 // relay each streamed event at once
		return p
	}
	mainProxy, sideProxy := to(main), to(side)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`approval_policy\u003enever\u003c`)) || bytes.Contains(body, []byte("<approval_policy>never<")) {
			sideProxy.ServeHTTP(w, r)
			return
		}
		mainProxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL + strings.TrimPrefix(main, mustHost(t, main))
}

// mustHost is raw's scheme and host, without its path.
func mustHost(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Scheme + "://" + u.Host
}
