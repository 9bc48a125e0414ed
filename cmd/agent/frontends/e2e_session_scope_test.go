package frontends

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/rollout"
)

// sessionIDs are the ids request r carries: session-id, thread-id,
// x-client-request-id and prompt_cache_key (none for a handshake).
func sessionIDs(r rt.Request) []string {
	ids := []string{r.Header.Get("session-id"), r.Header.Get("thread-id"), r.Header.Get("x-client-request-id")}
	if key, ok := r.JSON["prompt_cache_key"].(string); ok || r.Method != "GET" {
		ids = append(ids, key)
	}
	return ids
}

// wantSessionID fails unless every request of reqs carries id wherever
// the id goes.
func wantSessionID(t *testing.T, what string, reqs []rt.Request, id string) {
	t.Helper()
	for i, r := range reqs {
		for _, got := range sessionIDs(r) {
			if got != id {
				t.Errorf("%s: request %d (%s) carries session id %q (all: %q); want %s", what, i+1, r.Method, got, sessionIDs(r), id)
				break
			}
		}
	}
}

// TestE2EExecResumeKeepsTheSessionID: `agent exec resume --last` sends the
// resumed session's id in every header and as prompt_cache_key, as Codex
// does, so a resumed conversation keeps its prompt cache; `agent exec
// fork` sends a new one.
func TestE2EExecResumeKeepsTheSessionID(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two"), rt.Reply("r3", "m3", "three")})
	home := writeConfig(t, srv.URL, "")
	run := func(args ...string) {
		t.Helper()
		cmd, _, stderr := agentCmd(t, bin, home, args...)
		if err := cmd.Run(); err != nil {
			t.Fatalf("agent %s: %v\n%s", strings.Join(args, " "), err, stderr)
		}
	}
	run("exec", "one")
	run("exec", "resume", "--last", "--all", "two")
	ent, err := rollout.Latest(t.Context(), home, "", true)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	wantSessionID(t, "exec and exec resume", reqs, ent.ID)
	run("exec", "fork", ent.ID, "three")
	forked := srv.Requests()[2]
	if id := forked.Header.Get("session-id"); id == ent.ID || id == "" {
		t.Errorf("exec fork sent session id %q; want a new one", id)
	}
	wantSessionID(t, "exec fork", []rt.Request{forked}, forked.Header.Get("session-id"))
}

// TestE2EChatNewAndModelKeepTheirScope: in the chat, after a 426 on the
// WebSocket handshake, /model changes the model and nothing else (no
// second handshake, the same id); /new is a session of its own: its id on
// every header and as prompt_cache_key, its own try of the WebSocket.
func TestE2EChatNewAndModelKeepTheirScope(t *testing.T) {
	t.Parallel()
	bin := buildAgent(t)
	srv := rt.NewServer(t, rt.Script{
		rt.Status(426), rt.Reply("r1", "m1", "first answer"), rt.Reply("r2", "m2", "second answer"),
		rt.Status(426), rt.Reply("r3", "m3", "third answer"),
	})
	home := writeConfig(t, srv.URL, "")
	// The provider's table is the file's last: the key is its.
	f, err := os.OpenFile(filepath.Join(home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("supports_websockets = true\n")
	f.Close()
	c := startChat(t, bin, home, t.TempDir())
	c.send("one")
	c.waitFor("first answer")
	c.waitIdle()
	c.send("/model other-model")
	c.waitFor("model: other-model")
	c.send("two")
	c.waitFor("second answer")
	c.waitIdle() // /new is refused while a turn still ends
	c.send("/new")
	c.waitFor("Ask anything")
	c.send("three")
	c.waitFor("third answer")
	c.keys("C-d")

	reqs := srv.Requests()
	if got := strings.Join(methods(reqs), " "); got != "GET POST POST GET POST" {
		t.Fatalf("requests %s; want GET POST POST GET POST (one refused handshake per session)", got)
	}
	first := reqs[0].Header.Get("session-id")
	wantSessionID(t, "first session", reqs[:3], first)
	if m := reqs[2].JSON["model"]; m != "other-model" {
		t.Errorf("the turn after /model used model %v", m)
	}
	second := reqs[3].Header.Get("session-id")
	if second == first || second == "" {
		t.Fatalf("/new's session id %q; want a new one (first %s)", second, first)
	}
	wantSessionID(t, "/new", reqs[3:], second)
	if m := reqs[4].JSON["model"]; m != "other-model" {
		t.Errorf("/new's turn used model %v; want the model chosen, other-model", m)
	}
}

func methods(reqs []rt.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Method)
	}
	return out
}
