package app

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/session"
)

// fakeConfig is a config on the fake server at url; ws makes it offer
// WebSockets.
func fakeConfig(url string, ws bool) string {
	return fmt.Sprintf("model = \"model-a\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = %q\nsupports_websockets = %v\n", url, ws)
}

// idsOf are the session ids request r carries: its session-id, thread-id
// and x-client-request-id headers and its prompt_cache_key.
func idsOf(r rt.Request) []string {
	key, _ := r.JSON["prompt_cache_key"].(string)
	return []string{r.Header.Get("session-id"), r.Header.Get("thread-id"), r.Header.Get("x-client-request-id"), key}
}

// checkIDs fails unless every request carries id in every place the id
// goes.
func checkIDs(t *testing.T, what string, reqs []rt.Request, id string) {
	t.Helper()
	for i, r := range reqs {
		for j, got := range idsOf(r) {
			if got != id {
				t.Errorf("%s: request %d carries %q as its %s; want %s", what, i+1, got,
					[]string{"session-id", "thread-id", "x-client-request-id", "prompt_cache_key"}[j], id)
			}
		}
	}
}

func turn(t *testing.T, s interface {
	Turn(context.Context, string, func(session.Event)) error
}, input string) {
	t.Helper()
	if err := s.Turn(t.Context(), input, func(session.Event) {}); err != nil {
		t.Fatalf("turn %q: %v", input, err)
	}
}

// TestModelKeepsTheStickyFallback: after a 426 on the WebSocket handshake
// the session runs over HTTPS for good; /model changes the model of the
// next turn, not that: no second handshake, and the same id.
func TestModelKeepsTheStickyFallback(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Status(426), rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two")})
	a, _ := testApp(t, fakeConfig(srv.URL, true), false)
	first, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.End()
	turn(t, first, "one")
	if err := first.SetModel("model-b", "high"); err != nil {
		t.Fatal(err)
	}
	turn(t, first, "two")
	if n := len(srv.Handshakes()); n != 1 {
		t.Errorf("%d WebSocket handshakes; want 1 (the fallback to HTTPS is the session's, /model keeps it)", n)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[1].Method != "POST" || reqs[2].Method != "POST" {
		t.Fatalf("requests %v; want the refused handshake and two POSTs", methods(reqs))
	}
	if m, e := reqs[2].JSON["model"], reqs[2].JSON["reasoning"]; m != "model-b" || fmt.Sprint(e) != "map[effort:high]" {
		t.Errorf("turn 2 sent model %v, reasoning %v; want model-b, effort high", m, e)
	}
	checkIDs(t, "after /model", reqs[1:], first.ID)
	if got := first.Status(); !strings.Contains(strings.Join(got, "\n"), "transport: https") {
		t.Errorf("/status: %q; want transport https", got)
	}
}

func methods(reqs []rt.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Method)
	}
	return out
}

// TestSessionsAtOnce: two sessions open in one process have their own
// ids, fallback and connection, and run turns concurrently (-race): one
// falls back to HTTPS after a 426, the other keeps its WebSocket.
func TestSessionsAtOnce(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Status(426),
		rt.Stream(rt.Created("r1"), rt.Barrier("one"), rt.Stall(), rt.MessageDone("m1", "one"), rt.Completed("r1")),
		rt.Stream(rt.Created("r2"), rt.Barrier("two"), rt.Stall(), rt.MessageDone("m2", "two"), rt.Completed("r2")),
		rt.Reply("r3", "m3", "three"),
	})
	a, _ := testApp(t, fakeConfig(srv.URL, true), true)
	s1, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	s2, err := a.Open(t.Context(), Spec{Model: "model-b"})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s1.ID == s2.ID {
		t.Fatal("two sessions share an id")
	}
	// s1's handshake takes the 426 and its turn goes over HTTPS; s2's
	// handshake then opens a WebSocket. Both stream at once.
	var wg sync.WaitGroup
	wg.Go(func() { turn(t, s1, "one") })
	<-srv.Reached("one")
	wg.Go(func() { turn(t, s2, "two") })
	<-srv.Reached("two")
	st1, st2 := s1.Transport(), s2.Transport()
	srv.Release()
	wg.Wait()
	if st1 != "https" || st2 != "websocket" {
		t.Errorf("transports %s and %s; want https (fell back) and websocket (its own)", st1, st2)
	}
	turn(t, s2, "three")
	var one, two []rt.Request
	for _, r := range srv.Requests() {
		switch r.Header.Get("session-id") {
		case s1.ID:
			one = append(one, r)
		case s2.ID:
			two = append(two, r)
		}
	}
	if len(one) != 2 || one[0].Method != "GET" || one[1].Method != "POST" {
		t.Errorf("session 1: %v; want its refused handshake and one POST", methods(one))
	}
	if len(two) != 2 || two[0].Method != "WS" || two[1].Method != "WS" || two[0].Conn != two[1].Conn {
		t.Errorf("session 2: %v; want two messages on one WebSocket connection", methods(two))
	}
	checkIDs(t, "session 1", one[1:], s1.ID)
	checkIDs(t, "session 2", two, s2.ID)
	for _, r := range two {
		if r.JSON["model"] != "model-b" {
			t.Errorf("session 2 sent model %v", r.JSON["model"])
		}
	}
}

// TestThreadLifecycle: a session opened, named, its permissions changed
// (a new sandbox: new tools, the model told), closed; found by its name
// and resumed under its id (opening it twice at once is refused); forked
// at its first turn into a new id; /logout without a login says so.
func TestThreadLifecycle(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two"),
		rt.Reply("r3", "m3", "three"), rt.Reply("r4", "m4", "four")})
	a, home := testApp(t, fakeConfig(srv.URL, false), false)
	if a.Home() != home || a.Config().Model != "model-a" || a.MCP() != nil || a.ContinuePrompt() == "" {
		t.Errorf("accessors: home %q model %q", a.Home(), a.Config().Model)
	}
	s, err := a.Open(t.Context(), Spec{Sandbox: "read-only"})
	if err != nil {
		t.Fatal(err)
	}
	id := s.ID
	turn(t, s, "one")
	if name, err := s.Rename(" fix the parser "); err != nil || name != "fix the parser" || s.Name() != name {
		t.Fatalf("Rename = %q, %v (Name %q)", name, err, s.Name())
	}
	oldTools := s.Tools()
	line, err := s.SetPermissions("never", "workspace-write")
	if err != nil || !strings.Contains(line, "approval policy: never · sandbox: workspace-write") {
		t.Fatalf("SetPermissions = %q, %v", line, err)
	}
	if s.Tools() == oldTools || s.Workspace().Sandbox.Mode != "workspace-write" {
		t.Error("a new sandbox did not bring new tools")
	}
	if _, err := s.SetPermissions("sometimes", ""); err == nil {
		t.Error("an unknown policy was taken")
	}
	if len(s.Background()) != 0 || s.Stop(-1) != 0 {
		t.Error("background commands reported where none ran")
	}
	turn(t, s, "two")
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "workspace-write") {
		t.Errorf("the turn after /permissions does not tell the model the new sandbox:\n%s", body)
	}
	status := strings.Join(s.Status(), "\n")
	for _, want := range []string{"model: model-a", "approval: never · sandbox: workspace-write", `"fix the parser" · resume with ` + "`agent resume 'fix the parser'` (session " + id + ")"} {
		if !strings.Contains(status, want) {
			t.Errorf("/status lacks %q:\n%s", want, status)
		}
	}

	ent, err := a.FindSession(t.Context(), "fix the parser", false, false)
	if err != nil || ent.ID != id {
		t.Fatalf("FindSession(name) = %+v, %v", ent, err)
	}
	if _, err := a.Open(t.Context(), Spec{From: ent.Path}); err == nil || !strings.Contains(err.Error(), "open already") {
		t.Errorf("a session open already was opened again: %v", err)
	}
	if !s.End() {
		t.Error("End removed a session with turns in it")
	}
	r, err := a.Open(t.Context(), Spec{From: ent.Path})
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != id || r.Name() != "fix the parser" {
		t.Errorf("resumed %s named %q; want %s, the name kept", r.ID, r.Name(), id)
	}
	turn(t, r, "three")
	r.Close()
	checkIDs(t, "resume", srv.Requests()[2:3], id)

	f, err := a.Open(t.Context(), Spec{From: ent.Path, Fork: true, ForkTurns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.ID == id {
		t.Fatal("the fork kept the id")
	}
	turn(t, f, "four")
	req := srv.Requests()[3]
	checkIDs(t, "fork", []rt.Request{req}, f.ID)
	if body := string(req.Body); !strings.Contains(body, `"one"`) || strings.Contains(body, `"two"`) {
		t.Errorf("the fork at turn 1 does not hold exactly the first turn:\n%s", body)
	}
	if _, err := a.Open(t.Context(), Spec{From: ent.Path, Fork: true, ForkTurns: -2}); err == nil {
		t.Error("a fork of -2 turns was made")
	}
	if _, err := a.FindSession(t.Context(), "no-such", false, false); err == nil {
		t.Error("an unknown session was found")
	}
	if line, hint, err := a.Logout(t.Context()); err != nil || hint != "" || !strings.Contains(line, "Not logged in") {
		t.Errorf("Logout = %q, %q, %v", line, hint, err)
	}
}

// TestEmptySessionLeavesNothing: a session opened and left without a
// message leaves no rollout behind (End reports none to resume).
func TestEmptySessionLeavesNothing(t *testing.T) {
	a, home := testApp(t, fakeConfig("http://127.0.0.1:9/v1", false), false)
	s, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if s.End() {
		t.Error("End kept an empty session")
	}
	if _, err := a.FindSession(t.Context(), s.ID, false, false); err == nil {
		t.Errorf("the empty session is still found in %s", home)
	}
}

// TestChatWireSaysWebSearchIsNotOffered: a setting the chat wire cannot
// carry is named, not dropped silently.
func TestChatWireSaysWebSearchIsNotOffered(t *testing.T) {
	cfg := "model = \"m\"\nmodel_provider = \"c\"\nweb_search = \"live\"\n[model_providers.c]\nbase_url = \"http://127.0.0.1:9/v1\"\nwire_api = \"chat\"\n"
	a, _ := testApp(t, cfg, true)
	if n := strings.Join(a.Notices(), "\n"); !strings.Contains(n, `web_search = "live" is not offered`) {
		t.Errorf("notices %q do not name web_search", n)
	}
	b, _ := testApp(t, fakeConfig("http://127.0.0.1:9/v1", false), true)
	if n := strings.Join(b.Notices(), "\n"); strings.Contains(n, "web_search") {
		t.Errorf("a Responses provider's notices name web_search: %q", n)
	}
}
