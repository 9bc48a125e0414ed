package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/auth"
	rt "github.com/agentcli/agent/internal/responsestest"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// TestFindSession: a session is found by its id, by --last in the app's
// directory (or anywhere with all); what is not found is said with what
// to try.
func TestFindSession(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{rt.Reply("r1", "m1", "one")})
	a, _ := appWith(t, fakeProvider(srv.URL), nil)
	th, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if err := th.Turn(t.Context(), "hello", func(session.Event) {}); err != nil {
		t.Fatal(err)
	}
	th.Close()
	if ent, err := a.FindSession(t.Context(), th.ID, false, false); err != nil || ent.ID != th.ID || ent.Cwd != a.Workspace().Cwd {
		t.Errorf("by id: %+v, %v", ent, err)
	}
	if ent, err := a.FindSession(t.Context(), "", true, false); err != nil || ent.ID != th.ID {
		t.Errorf("--last: %+v, %v", ent, err)
	}
	if _, err := a.FindSession(t.Context(), "", false, false); err == nil || err.Error() != "say which session: an ID or --last" {
		t.Errorf("neither: %v", err)
	}
	if _, err := a.FindSession(t.Context(), "zzz-none", false, false); err == nil || err.Error() != `no session "zzz-none"` {
		t.Errorf("unknown id: %v", err)
	}

	// Another directory on the same home: --last finds nothing there,
	// --last --all finds the session.
	b, err := New(t.Context(), Options{Env: a.env, Originator: "agent_cli", Cd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.FindSession(t.Context(), "", true, false); err == nil || err.Error() != "no recorded session in this directory (try --all)" {
		t.Errorf("--last elsewhere: %v", err)
	}
	if ent, err := b.FindSession(t.Context(), "", true, true); err != nil || ent.ID != th.ID {
		t.Errorf("--last --all: %+v, %v", ent, err)
	}
}

// TestAmbiguousSession lists the sessions a prefix matched, named ones
// by name, at most 20 of them.
func TestAmbiguousSession(t *testing.T) {
	at := time.Date(2026, 5, 1, 9, 30, 0, 0, time.Local)
	ae := &rollout.AmbiguousError{Prefix: "019"}
	for i := range 23 {
		e := rollout.Entry{ID: fmt.Sprintf("019-%02d", i), Updated: at, Cwd: "/src/p", Title: "fix it"}
		if i == 0 {
			e.Name = "parser"
		}
		ae.Matches = append(ae.Matches, e)
	}
	msg := ambiguousSession(ae).Error()
	lines := strings.Split(msg, "\n")
	if lines[0] != `"019" matches 23 sessions; give more of the id:` || len(lines) != 22 {
		t.Fatalf("%d lines:\n%s", len(lines), msg)
	}
	if lines[1] != `  019-00  2026-05-01 09:30  /src/p  "parser"` || lines[2] != `  019-01  2026-05-01 09:30  /src/p  "fix it"` {
		t.Errorf("entries:\n%s\n%s", lines[1], lines[2])
	}
	if lines[21] != "  … and 3 more" {
		t.Errorf("last line %q", lines[21])
	}
}

// TestFirstTurns: a fork keeps the first turns' transcript, history and
// the ledger of their calls only; a compacted conversation cannot be cut.
func TestFirstTurns(t *testing.T) {
	user := func(id string) transport.Item { return transport.Item{Type: "message", Role: "user", ID: id} }
	ro := &rollout.Rollout{
		Events: []rollout.EventMsg{
			{Type: rollout.EventUserMessage, Message: "one"}, {Type: rollout.EventAgentMessage, Message: "a1"},
			{Type: rollout.EventUserMessage, Message: "two"}, {Type: rollout.EventAgentMessage, Message: "a2"},
		},
		History: []transport.Item{
			{Type: "message", Role: "user", Origin: transport.OriginContext, ID: "env"},
			user("one"), {Type: "function_call", CallID: "c1"}, {Type: "function_call_output", CallID: "c1"},
			user("two"), {Type: "function_call", CallID: "c2"},
		},
		Ledger: []rollout.LedgerEntry{{CallID: "c1", State: "done"}, {CallID: "c2", State: "started"}},
	}
	if err := firstTurns(ro, 1); err != nil {
		t.Fatal(err)
	}
	if len(ro.Events) != 2 || ro.Events[1].Message != "a1" {
		t.Errorf("events %+v", ro.Events)
	}
	if len(ro.History) != 4 || ro.History[3].CallID != "c1" {
		t.Errorf("history %+v", ro.History)
	}
	if len(ro.Ledger) != 1 || ro.Ledger[0].CallID != "c1" {
		t.Errorf("ledger %+v", ro.Ledger)
	}
	compacted := &rollout.Rollout{History: []transport.Item{{Type: "message", Role: "user", Origin: transport.OriginSummary}, user("x")}}
	if err := firstTurns(compacted, 0); err == nil || !strings.Contains(err.Error(), "compacted") {
		t.Errorf("compacted: %v", err)
	}
}

// TestAppLogout: /logout removes the saved login; when the app's
// credentials were that login, the hint says how to get others, and when
// they come from the environment, the line says they stay in use.
func TestAppLogout(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{})
	cfg := "model_provider = \"acme\"\n[model_providers.acme]\nbase_url = \"" + srv.URL + "\"\nrequires_openai_auth = true\n"

	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := auth.NewStore(home, nil).SaveAPIKey(t.Context(), "sk-saved-0000-0000"); err != nil {
		t.Fatal(err)
	}
	b, err := New(t.Context(), Options{Env: testEnv(home, nil, &strings.Builder{}), Originator: "agent_cli", Cd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	line, hint, err := b.Logout(t.Context())
	if err != nil || line != "Logged out: removed "+filepath.Join(home, "auth.json") || hint != "run `agent login`, or export AGENT_API_KEY" {
		t.Errorf("Logout of the app's own login = %q, %q, %v", line, hint, err)
	}
	if _, err := os.Stat(filepath.Join(home, "auth.json")); !os.IsNotExist(err) {
		t.Errorf("auth.json after /logout: %v", err)
	}

	env, _ := appWith(t, cfg, map[string]string{"AGENT_API_KEY": "sk-env-0000-0000"})
	line, hint, err = env.Logout(t.Context())
	if err != nil || hint != "" || line != "Not logged in: nothing to remove; this chat's credentials come from environment variable AGENT_API_KEY, which /logout does not touch" {
		t.Errorf("Logout with the environment's key = %q, %q, %v", line, hint, err)
	}
}
