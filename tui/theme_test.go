package tui

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/agentcli/agent/internal/app"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestThemeCommand: /theme opens a picker of the themes, on the one in
// use; choosing one redraws the transcript's code in its colours at once
// and saves it; /theme NAME does the same; an unknown name says so.
func TestThemeCommand(t *testing.T) {
	saved := ""
	m := newLiveModel(t, Options{Messages: []Message{{Role: "assistant", Text: "```go\nfunc f() {}\n```"}},
		Commands: Commands{SetTheme: func(name string) error { saved = name; return nil }}})
	m.look, m.opts.NoColor = newLook(nil, false, false), false
	m.look.hlStart = inProcessLexer(t)
	m.look.r.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() {
		if m.look.hl != nil {
			m.look.hl.Close()
		}
	})
	m.tr.restyle()
	if view := m.View(); !strings.Contains(view, "\x1b[38;5;170mfunc") {
		t.Fatalf("agent's keyword colour not drawn:\n%q", view)
	}
	slashRun(m, "/theme")
	if m.picker == nil || m.picker.items[m.picker.order[m.picker.list.sel]].value != agentTheme {
		t.Fatal("/theme did not open the picker on the theme in use")
	}
	typeText(m, "dracula")
	slashRun(m, "") // enter chooses
	view := m.View()
	if !strings.Contains(view, "\x1b[38;2;255;121;198mfunc") {
		t.Errorf("the code is not redrawn in dracula's keyword colour:\n%q", view)
	}
	if saved != "dracula" || !strings.Contains(plain(view), "Theme: dracula (saved as [tui] theme)") {
		t.Errorf("saved %q; view:\n%s", saved, plain(view))
	}
	slashRun(m, "/theme solarized-light")
	if saved != "solarized-light" || m.look.theme != "solarized-light" || !strings.Contains(m.View(), "\x1b[38;2;133;153;0mfunc") {
		t.Errorf("/theme solarized-light: saved %q, in use %q", saved, m.look.theme)
	}
	slashRun(m, "/theme 1337")
	if !strings.Contains(plain(m.View()), "no theme is called 1337") || saved != "solarized-light" {
		t.Errorf("an unknown theme: saved %q\n%s", saved, plain(m.View()))
	}
}

// TestThemeNoColor: with NO_COLOR the theme is taken and saved, and the
// chat stays without colours, saying so.
func TestThemeNoColor(t *testing.T) {
	t.Parallel()
	m := newLiveModel(t, Options{Messages: []Message{{Role: "assistant", Text: "```go\nfunc f() {}\n```"}}})
	slashRun(m, "/theme nord")
	view := m.View()
	if hasColour(view) || !strings.Contains(plain(view), "Theme: nord (NO_COLOR is set") {
		t.Errorf("NO_COLOR: colours %v\n%s", hasColour(view), plain(view))
	}
}

// TestThemeFromConfig: [tui] theme is the theme the chat opens with;
// one agent does not have is a warning and the default; /theme's choice
// is written to config.toml as [tui] theme.
func TestThemeFromConfig(t *testing.T) {
	srv := rt.NewServer(t, rt.Script{})
	a, home := testApp(t, fakeConfig(srv.URL)+"[tui]\ntheme = \"gruvbox-dark\"\n", false)
	first, err := a.Open(t.Context(), app.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	chat := NewChat(a, first)
	defer chat.End()
	opts := AppOptions(a, chat, io.Discard, func(string) string { return "" })
	opts.Engine = nopEngine{}
	if m, _ := newTestModel(t, opts); m.look.theme != "gruvbox-dark" {
		t.Errorf("opened with theme %q; want gruvbox-dark", m.look.theme)
	}
	if err := opts.Commands.SetTheme("nord"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "config.toml")); !strings.Contains(string(b), "[tui]\ntheme = \"nord\"\n") {
		t.Errorf("config.toml:\n%s", b)
	}
	m, _ := newTestModel(t, Options{Theme: "1337"})
	if m.look.theme != agentTheme || !strings.Contains(plain(m.View()), "[tui] theme 1337 is not one of agent's themes") {
		t.Errorf("an unknown [tui] theme: in use %q\n%s", m.look.theme, plain(m.View()))
	}
}
