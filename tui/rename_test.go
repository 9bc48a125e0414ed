package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRenameCommand: /rename NAME names the session through the hook and
// says how to resume it by name (quoted for the shell); a refused name is
// the hook's error; /rename alone puts "/rename " in the composer.
func TestRenameCommand(t *testing.T) {
	t.Parallel()
	var names []string
	m := newLiveModel(t, Options{Commands: Commands{Rename: func(_ context.Context, name string) (string, error) {
		if strings.Contains(name, "bad") {
			return "", errors.New("a session name is one line")
		}
		names = append(names, name)
		return name, nil
	}}})
	slashRun(m, "/rename fix the parser")
	if view := plain(m.View()); !strings.Contains(view, "session named \"fix the parser\" · `agent resume 'fix the parser'` reopens it") {
		t.Errorf("/rename's line:\n%s", view)
	}
	slashRun(m, "/rename bad")
	if view := plain(m.View()); !strings.Contains(view, "rename: a session name is one line") {
		t.Errorf("a refused name is not shown:\n%s", view)
	}
	if len(names) != 1 || names[0] != "fix the parser" {
		t.Errorf("the hook got %q", names)
	}
	slashRun(m, "/rename")
	if got := m.composer.Value(); got != "/rename " {
		t.Errorf("/rename alone left the composer %q", got)
	}
}

// TestLogoutCommand: /logout shows the hook's line, or its error.
func TestLogoutCommand(t *testing.T) {
	t.Parallel()
	fail := false
	m := newLiveModel(t, Options{Commands: Commands{Logout: func(context.Context) (string, error) {
		if fail {
			return "", errors.New("the keyring is locked")
		}
		return "Logged out: removed /h/auth.json", nil
	}}})
	slashRun(m, "/logout")
	if view := plain(m.View()); !strings.Contains(view, "Logged out: removed /h/auth.json") {
		t.Errorf("/logout's line:\n%s", view)
	}
	fail = true
	slashRun(m, "/logout")
	if view := plain(m.View()); !strings.Contains(view, "logout: the keyring is locked") {
		t.Errorf("/logout's error:\n%s", view)
	}
}
