package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/app"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/internal/setup"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// renameApp is an app on a fake provider in a home of its own.
func renameApp(t *testing.T, ephemeral bool) (*app.App, string) {
	t.Helper()
	return testApp(t, "model = \"model-a\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"http://127.0.0.1:9\"\n", ephemeral)
}

// testApp is an app whose home holds config.toml cfg, working in a
// directory of its own; it returns the home.
func testApp(t *testing.T, cfg string, ephemeral bool) (*app.App, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := setup.Env{Stderr: &strings.Builder{}, Getenv: func(k string) string {
		if k == "AGENT_HOME" {
			return home
		}
		return ""
	}, Sleep: func(context.Context, time.Duration) error { return nil }, Rand: func() float64 { return 0.5 }}
	a, err := app.New(t.Context(), app.Options{Env: env, Originator: "agent_cli", Cd: t.TempDir(), Ephemeral: ephemeral})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, home
}

// fakeConfig is a config on the fake server at url.
func fakeConfig(url string) string {
	return fmt.Sprintf("model = \"model-a\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = %q\n", url)
}

// checkIDs fails unless every request carries id in every place the id
// goes: session-id, thread-id, x-client-request-id, prompt_cache_key.
func checkIDs(t *testing.T, what string, reqs []rt.Request, id string) {
	t.Helper()
	for i, r := range reqs {
		key, _ := r.JSON["prompt_cache_key"].(string)
		for j, got := range []string{r.Header.Get("session-id"), r.Header.Get("thread-id"), r.Header.Get("x-client-request-id"), key} {
			if got != id {
				t.Errorf("%s: request %d carries %q as its %s; want %s", what, i+1, got,
					[]string{"session-id", "thread-id", "x-client-request-id", "prompt_cache_key"}[j], id)
			}
		}
	}
}

func runTurn(t *testing.T, s interface {
	Turn(context.Context, string, func(session.Event)) error
}, input string) {
	t.Helper()
	if err := s.Turn(t.Context(), input, func(session.Event) {}); err != nil {
		t.Fatalf("turn %q: %v", input, err)
	}
}

// TestChatSettingsDuringATurn: /approvals, /model and /status while a
// turn streams (run with -race). The turn finishes on the model it
// started with; /status reports the new settings at once; the next turn
// runs them on the same session, history whole.
func TestChatSettingsDuringATurn(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{
		rt.Stream(rt.Created("r1"), rt.Barrier("streaming"), rt.Stall(), rt.MessageDone("m1", "one"), rt.Completed("r1")),
		rt.Reply("r2", "m2", "two"),
	})
	cfg := "model = \"model-a\"\nmodel_provider = \"fake\"\napproval_policy = \"untrusted\"\n" +
		"[model_providers.fake]\nbase_url = \"" + srv.URL + "\"\n"
	a, _ := testApp(t, cfg, false)
	sess, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	sw := NewChat(a, sess)

	done := make(chan error, 1)
	go func() { done <- sw.Turn(t.Context(), "first", func(session.Event) {}) }()
	select {
	case <-srv.Reached("streaming"):
	case err := <-done:
		t.Fatalf("turn ended early: %v", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := sw.SetApprovals(tools.PolicyNever); err != nil {
			t.Error(err)
		}
	})
	wg.Go(func() {
		if err := sw.SetModel("model-b", "high"); err != nil {
			t.Error(err)
		}
	})
	wg.Go(func() { _ = sw.Status() })
	wg.Wait()
	status := strings.Join(sw.Status(), "\n")
	if n := strings.Count(status, "model: "); n != 1 {
		t.Errorf("/status names the model %d times:\n%s", n, status)
	}
	for _, want := range []string{"model: model-b (reasoning high", "approval: never", "transport: https"} {
		if !strings.Contains(status, want) {
			t.Errorf("/status lacks %q:\n%s", want, status)
		}
	}
	srv.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := sw.Turn(t.Context(), "second", func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].JSON["model"] != "model-a" || reqs[1].JSON["model"] != "model-b" {
		t.Fatalf("models = %v, %v; want model-a for the running turn, model-b after", reqs[0].JSON["model"], reqs[1].JSON["model"])
	}
	if cur := sw.Current(); cur != sess {
		t.Error("a settings change replaced the session")
	}
	in0, in1 := len(reqs[0].JSON["input"].([]any)), len(reqs[1].JSON["input"].([]any))
	if in1 != in0+3 {
		t.Errorf("second turn carries %d items; want %d (the first turn's history, its answer, the new policy's environment context, the new message)", in1, in0+3)
	}
	if body := string(reqs[1].Body); !strings.Contains(body, `approval_policy\u003enever`) && !strings.Contains(body, "approval_policy>never") {
		t.Errorf("the second turn does not tell the model the new policy:\n%s", body)
	}
	if got := sess.Settings().ApprovalPolicy; got != tools.PolicyNever {
		t.Errorf("the session's approval policy = %q", got)
	}
}

// TestChatRename: /rename records the name at once (the index finds the
// session by it), /status and the resume hint show it, a bad name is
// refused, /new starts unnamed, /resume NAME brings the name back; an
// ephemeral session cannot be named.
func TestChatRename(t *testing.T) {
	a, home := renameApp(t, false)
	sess, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	chat := NewChat(a, sess)
	if name, err := chat.Rename("  fix the parser "); err != nil || name != "fix the parser" {
		t.Fatalf("Rename = %q, %v", name, err)
	}
	if e, err := rollout.Find(t.Context(), home, "fix the parser"); err != nil || e.ID != sess.ID {
		t.Errorf("Find(name) = %+v, %v; want session %s", e, err, sess.ID)
	}
	want := `"fix the parser" · resume with ` + "`agent resume 'fix the parser'` (session " + sess.ID + ")"
	if status := strings.Join(chat.Status(), "\n"); !strings.Contains(status, want) {
		t.Errorf("/status lacks %q:\n%s", want, status)
	}
	if _, err := chat.Rename("two\nlines"); err == nil || chat.Name() != "fix the parser" {
		t.Errorf("a two-line name: %v, name now %q", err, chat.Name())
	}
	if err := chat.New(t.Context()); err != nil {
		t.Fatal(err)
	}
	if chat.Name() != "" || !strings.HasPrefix(chat.ResumeHint(), "resume with `agent resume "+chat.Current().ID+"`") {
		t.Errorf("after /new: name %q, hint %q", chat.Name(), chat.ResumeHint())
	}
	if _, err := chat.Resume(t.Context(), "fix the parser"); err != nil || chat.Name() != "fix the parser" || chat.Current().ID != sess.ID {
		t.Errorf("/resume NAME: %v, name %q, session %s", err, chat.Name(), chat.Current().ID)
	}

	a, _ = renameApp(t, true)
	sess, err = a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewChat(a, sess).Rename("x"); err == nil || !strings.Contains(err.Error(), "not recorded") {
		t.Errorf("an ephemeral session was named: %v", err)
	}
}

// TestChatLogoutKeepsOtherCredentials: /logout with no saved login says
// so and leaves the chat able to send (its credentials are not a login's).
func TestChatLogoutKeepsOtherCredentials(t *testing.T) {
	a, _ := renameApp(t, true)
	sess, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	chat := NewChat(a, sess)
	line, err := chat.Logout(t.Context())
	if err != nil || line != "Not logged in: nothing to remove" {
		t.Errorf("Logout = %q, %v", line, err)
	}
	if _, err := chat.inUse(); err != nil {
		t.Errorf("the chat refuses turns after a /logout that removed nothing of its own: %v", err)
	}
}

// TestNewSendsItsOwnID: /new's session carries its own id on every
// header and as the prompt cache key, not the first session's.
func TestNewSendsItsOwnID(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two")})
	a, _ := testApp(t, fakeConfig(srv.URL), false)
	first, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	firstID := first.ID
	chat := NewChat(a, first)
	defer chat.End()
	runTurn(t, chat, "one")
	if err := chat.New(t.Context()); err != nil {
		t.Fatal(err)
	}
	second := chat.Current().ID
	if second == firstID {
		t.Fatal("/new kept the session id")
	}
	runTurn(t, chat, "two")
	reqs := srv.Requests()
	checkIDs(t, "first session", reqs[:1], firstID)
	checkIDs(t, "/new", reqs[1:], second)
}

// TestResumeSendsTheResumedID: a resumed session (the chat's /resume, and
// App.Open of a recording as agent resume and exec resume do) carries the
// resumed session's id everywhere; a fork its own new one.
func TestResumeSendsTheResumedID(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two"),
		rt.Reply("r3", "m3", "three"), rt.Reply("r4", "m4", "four"), rt.Reply("r5", "m5", "five")})
	a, home := testApp(t, fakeConfig(srv.URL), false)
	s1, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	id1 := s1.ID
	runTurn(t, s1, "one")
	s1.Close()
	ent, err := rollout.Find(t.Context(), home, id1)
	if err != nil {
		t.Fatal(err)
	}

	// As agent resume and exec resume open it.
	r, err := a.Open(t.Context(), app.Spec{From: ent.Path})
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != id1 || r.Recorded == nil {
		t.Fatalf("resumed id %s (recording %v); want %s", r.ID, r.Recorded != nil, id1)
	}
	runTurn(t, r, "two")
	r.Close()
	checkIDs(t, "resume", srv.Requests()[1:2], id1)

	// The chat's /resume ID, from another session.
	other, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	chat := NewChat(a, other)
	defer chat.End()
	if _, err := chat.Resume(t.Context(), id1); err != nil {
		t.Fatal(err)
	}
	runTurn(t, chat, "three")
	checkIDs(t, "/resume", srv.Requests()[2:3], id1)
	if _, err := chat.Resume(t.Context(), id1); err == nil {
		t.Error("/resume of the session in use did not say so")
	}

	// A fork is a session of its own.
	if _, err := chat.Fork(t.Context(), app.AllTurns); err != nil {
		t.Fatal(err)
	}
	forked := chat.Current().ID
	if forked == id1 {
		t.Fatal("the fork kept the id")
	}
	runTurn(t, chat, "four")
	req := srv.Requests()[3]
	checkIDs(t, "/fork", []rt.Request{req}, forked)
	if n := len(req.JSON["input"].([]any)); n < 7 {
		t.Errorf("the fork's first request carries %d items; want the three turns before it and the new message", n)
	}
}

// TestChatCompactTooShort: /compact on a one-turn conversation says there
// is nothing to compact (it once printed "4 items → 4") and sends no
// request; after a second turn it compacts, fewer items than before.
func TestChatCompactTooShort(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "answer one"), rt.Reply("r2", "m2", "answer two"), rt.Reply("r3", "m3", "the summary")})
	a, _ := testApp(t, fakeConfig(srv.URL+"/v1"), true)
	sess, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	chat := NewChat(a, sess)
	runTurn(t, sess, "first question")
	line, err := chat.Compact(t.Context())
	if err != nil || !strings.HasPrefix(line, "Nothing to compact") || len(srv.Requests()) != 1 {
		t.Errorf("/compact = %q, %v after %d requests; want nothing to compact, one request", line, err, len(srv.Requests()))
	}
	runTurn(t, sess, "second question")
	before := len(sess.History())
	line, err = chat.Compact(t.Context())
	if err != nil || line != fmt.Sprintf("history summarised locally: %d items → %d", before, before-1) {
		t.Errorf("/compact = %q, %v; want %d items → %d", line, err, before, before-1)
	}
}

// TestNewSendsSessionStartClear: the SessionStart hook of the chat's first
// session hears source "startup"; the session /new (and /clear) opens
// hears "clear", as Codex sends it.
func TestNewSendsSessionStartClear(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one"), rt.Reply("r2", "m2", "two")})
	home := t.TempDir()
	log := filepath.Join(t.TempDir(), "starts")
	hooksJSON := fmt.Sprintf(`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"cat >> %s; echo >> %s","timeout":20}]}]}}`, log, log)
	if err := os.WriteFile(filepath.Join(home, "hooks.json"), []byte(hooksJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(fakeConfig(srv.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := setup.Env{Stderr: &strings.Builder{}, Getenv: func(k string) string {
		if k == "AGENT_HOME" {
			return home
		}
		return ""
	}, Sleep: func(context.Context, time.Duration) error { return nil }, Rand: func() float64 { return 0.5 }}
	a, err := app.New(t.Context(), app.Options{Env: env, Originator: "agent_cli", Cd: t.TempDir(), Flags: setup.Flags{BypassHookTrust: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	first, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	chat := NewChat(a, first)
	defer chat.End()
	runTurn(t, chat, "one")
	if err := chat.New(t.Context()); err != nil {
		t.Fatal(err)
	}
	runTurn(t, chat, "two")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var in struct {
			Source string `json:"source"`
		}
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("hook stdin %q: %v", line, err)
		}
		sources = append(sources, in.Source)
	}
	if strings.Join(sources, ",") != "startup,clear" {
		t.Fatalf("SessionStart sources %q, want startup then clear", sources)
	}
}

// TestChatWindowFromCatalogue: the chat's context indicator and its
// automatic compaction limit are the catalogue's window of the model
// (config's [models."NAME"] here), and those of the model /model picks.
func TestChatWindowFromCatalogue(t *testing.T) {
	a, _ := testApp(t, "model = \"local-7b\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"http://127.0.0.1:9\"\n"+
		"[models.\"local-7b\"]\nlimit = { context = 32000 }\n", true)
	sess, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	o := AppOptions(a, NewChat(a, sess), &strings.Builder{}, func(string) string { return "" })
	if o.ContextWindow != 32000 || o.AutoCompact != 28800 {
		t.Errorf("window %d, auto-compact %d; want local-7b's 32000 and 90%% of it", o.ContextWindow, o.AutoCompact)
	}
	if w, ac := o.Window("claude-sonnet-4-5"); w != 200000 || ac != 180000 {
		t.Errorf("claude-sonnet-4-5's window %d, auto-compact %d; want the snapshot's 200000 and 180000", w, ac)
	}
}
