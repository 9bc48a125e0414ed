package tui

import (
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/internal/app"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestKeymapRebinds: Codex's [tui.keymap] rebinds the chat's keys:
// composer.submit over global.submit, editor.insert_newline, the
// transcript's key (which also closes it); keys no longer bound lose
// their action; /keymap lists the bindings, where each comes from and the
// file.
func TestKeymapRebinds(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{KeymapPath: "/h/config.toml", Keymap: map[string]map[string][]string{
		"composer": {"submit": {"ctrl-s"}},
		"global":   {"submit": {"enter"}, "open_transcript": {"ctrl-o"}},
		"editor":   {"insert_newline": {"enter", "shift-tab"}},
	}})
	typeText(m, "hello")
	send(m, press("enter"))
	if m.turn != nil || m.composer.Value() != "hello\n" {
		t.Fatalf("enter: turn %v, composer %q; want a new line", m.turn != nil, m.composer.Value())
	}
	send(m, press("ctrl+t"))
	if m.pager {
		t.Error("ctrl+t still opens the transcript")
	}
	send(m, tea.KeyMsg{Type: tea.KeyCtrlO})
	if !m.pager {
		t.Fatal("ctrl+o does not open the transcript")
	}
	send(m, tea.KeyMsg{Type: tea.KeyCtrlO})
	if m.pager {
		t.Fatal("ctrl+o does not close the transcript")
	}
	send(m, tea.KeyMsg{Type: tea.KeyCtrlS})
	if m.turn == nil {
		t.Fatal("ctrl+s does not send")
	}
	done(t, m, nil)
	runCmd(submitWith(m, "/keymap", tea.KeyCtrlS))
	view := plain(m.View())
	for _, want := range []string{"Keymap: [tui.keymap] in /h/config.toml", "ctrl-s", "composer.submit",
		"enter, shift-tab", "ctrl-o", "global.open_transcript", "default"} {
		if !strings.Contains(view, want) {
			t.Errorf("/keymap lacks %q:\n%s", want, view)
		}
	}
}

// submitWith types s and presses the key of type k.
func submitWith(m *Model, s string, k tea.KeyType) tea.Cmd {
	typeText(m, s)
	return send(m, tea.KeyMsg{Type: k})
}

// TestKeymapFromConfig: the chat takes [tui.keymap] from config.toml; a
// bad entry keeps its action's default and /keymap names the file and
// line.
func TestKeymapFromConfig(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{})
	a, home := testApp(t, fakeConfig(srv.URL)+"[tui.keymap.global]\nopen_transcript = \"ctrl-o\"\nsubmit = \"hyper-s\"\n", false)
	first, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	chat := NewChat(a, first)
	defer chat.End()
	opts := AppOptions(a, chat, io.Discard, func(string) string { return "" })
	opts.Engine = nopEngine{}
	m, _ := newTestModel(t, opts)
	send(m, tea.KeyMsg{Type: tea.KeyCtrlO})
	if !m.pager {
		t.Fatal("ctrl+o from config.toml does not open the transcript")
	}
	send(m, press("esc"))
	runCmd(submit(m, "/keymap")) // enter still sends: the bad binding kept the default
	view := plain(m.View())
	for _, want := range []string{"[tui.keymap] in " + home + "/config.toml", home + "/config.toml:7: tui.keymap.global.submit: unknown key \"hyper-s\""} {
		if !strings.Contains(strings.Join(strings.Fields(view), " "), want) {
			t.Errorf("/keymap lacks %q:\n%s", want, view)
		}
	}
}
