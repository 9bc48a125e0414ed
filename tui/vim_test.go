package tui

import (
	"strings"
	"testing"
)

// keys presses each of keys (see press) in turn.
func keys(m *Model, keys ...string) {
	for _, k := range keys {
		send(m, press(k))
	}
}

// TestVimMode: /vim turns the composer's Vim mode on, in normal mode
// (shown in the status line), where letters move and edit instead of
// typing: i a A o insert, esc returns, h l w b 0 $ j k move, x and dd
// delete; enter sends; /vim again turns it off.
func TestVimMode(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	runCmd(submit(m, "/vim"))
	if view := plain(m.View()); !strings.Contains(view, "Vim mode on") || !strings.Contains(m.statusLine(), "NORMAL") {
		t.Fatalf("/vim did not turn normal mode on:\n%s", view)
	}
	typeText(m, "q") // a normal-mode key that is not a command types nothing
	keys(m, "i", "hello big world")
	if !strings.Contains(m.statusLine(), "INSERT") {
		t.Errorf("status line %q lacks INSERT", m.statusLine())
	}
	keys(m, "esc", "0", "x", "w", "x") // ello ig world
	if got := m.composer.Value(); got != "ello ig world" {
		t.Fatalf("after 0 x w x: %q", got)
	}
	keys(m, "$", "b", "x", "0", "l", "l", "x", "h", "x") // ello ig orld → elo ig orld → eo ig orld
	if got := m.composer.Value(); got != "eo ig orld" {
		t.Fatalf("after $ b x 0 l l x h x: %q", got)
	}
	keys(m, "A", "!", "esc", "o", "second", "esc", "O", "middle", "esc", "k", "a", "+", "esc")
	if got := m.composer.Value(); got != "eo ig o+rld!\nmiddle\nsecond" {
		t.Fatalf("after A o O k a: %q", got)
	}
	keys(m, "j", "d", "d")
	if got := m.composer.Value(); got != "eo ig o+rld!\nsecond" {
		t.Fatalf("after j dd: %q", got)
	}
	keys(m, "I", "> ", "esc")
	if got := m.composer.Value(); got != "eo ig o+rld!\n> second" {
		t.Fatalf("after I: %q", got)
	}
	send(m, press("enter"))
	if m.turn == nil || m.composer.Value() != "" {
		t.Fatalf("enter in normal mode did not send (composer %q)", m.composer.Value())
	}
	runCmd(submit(m, "/vim"))
	typeText(m, "x")
	if m.composer.Value() != "x" || strings.Contains(m.statusLine(), "NORMAL") {
		t.Errorf("/vim again: composer %q, status %q", m.composer.Value(), m.statusLine())
	}
}

// TestVimModeDefault: [tui] vim_mode_default starts the composer in
// normal mode.
func TestVimModeDefault(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{VimMode: true})
	typeText(m, "x")
	if m.composer.Value() != "" || !strings.Contains(m.statusLine(), "NORMAL") {
		t.Errorf("composer %q, status %q; want normal mode", m.composer.Value(), m.statusLine())
	}
}
