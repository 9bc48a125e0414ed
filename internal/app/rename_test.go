package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/rollout"
)

// renameApp is an app on a fake provider in a home of its own.
func renameApp(t *testing.T, ephemeral bool) (*App, string) {
	t.Helper()
	return testApp(t, "model = \"model-a\"\nmodel_provider = \"fake\"\n[model_providers.fake]\nbase_url = \"http://127.0.0.1:9\"\n", ephemeral)
}

// testApp is an app whose home holds config.toml cfg, working in a
// directory of its own; it returns the home.
func testApp(t *testing.T, cfg string, ephemeral bool) (*App, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := Env{Stderr: &strings.Builder{}, Getenv: func(k string) string {
		if k == "AGENT_HOME" {
			return home
		}
		return ""
	}, Sleep: func(context.Context, time.Duration) error { return nil }, Rand: func() float64 { return 0.5 }}
	a, err := New(t.Context(), Options{Env: env, Originator: "agent_cli", Cd: t.TempDir(), Ephemeral: ephemeral})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, home
}

// TestChatRename: /rename records the name at once (the index finds the
// session by it), /status and the resume hint show it, a bad name is
// refused, /new starts unnamed, /resume NAME brings the name back; an
// ephemeral session cannot be named.
func TestChatRename(t *testing.T) {
	a, home := renameApp(t, false)
	sess, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	chat := a.NewChat(sess)
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
	sess, err = a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.NewChat(sess).Rename("x"); err == nil || !strings.Contains(err.Error(), "not recorded") {
		t.Errorf("an ephemeral session was named: %v", err)
	}
}

// TestChatLogoutKeepsOtherCredentials: /logout with no saved login says
// so and leaves the chat able to send (its credentials are not a login's).
func TestChatLogoutKeepsOtherCredentials(t *testing.T) {
	a, _ := renameApp(t, true)
	sess, err := a.Open(t.Context(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	chat := a.NewChat(sess)
	line, err := chat.Logout(t.Context())
	if err != nil || line != "Not logged in: nothing to remove" {
		t.Errorf("Logout = %q, %v", line, err)
	}
	if _, err := chat.boundary(); err != nil {
		t.Errorf("the chat refuses turns after a /logout that removed nothing of its own: %v", err)
	}
}
