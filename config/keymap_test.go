package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentcli/agent/config"
)

// TestTUIKeymap: Codex's [tui.keymap] is read (a key or a list, [] to
// unbind, Codex's aliases and modifier order); a bad entry is a warning
// naming the file, line and key, and is left out, so its action keeps its
// default; [tui] theme and vim_mode_default are read without a warning.
func TestTUIKeymap(t *testing.T) {
	file := "[tui]\ntheme = \"dracula\"\nvim_mode_default = true\n\n" +
		"[tui.keymap]\npreset = \"latest\"\n\n" +
		"[tui.keymap.global]\nopen_transcript = \"Control-Escape\"\nsubmit = [\"enter\", \"shift-ctrl-s\"]\n\n" +
		"[tui.keymap.composer]\nqueue = []\nsubmti = \"enter\"\n\n" +
		"[tui.keymap.editor]\ninsert_newline = \"hyper-j\"\nmove_left = 3\n"
	home := writeHome(t, file)
	c, err := config.Load(config.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if c.Theme != "dracula" || !c.VimModeDefault {
		t.Errorf("Theme %q, VimModeDefault %v", c.Theme, c.VimModeDefault)
	}
	want := config.Keymap{
		"global":   {"open_transcript": {"ctrl-esc"}, "submit": {"enter", "ctrl-shift-s"}},
		"composer": {"queue": {}},
	}
	if !reflect.DeepEqual(c.Keymap, want) {
		t.Errorf("Keymap = %v; want %v", c.Keymap, want)
	}
	var got []string
	for _, w := range c.Warnings {
		got = append(got, w.String())
	}
	for _, want := range []string{
		home + "/config.toml:14: tui.keymap.composer.submti: unknown action of [tui.keymap.composer] (did you mean \"submit\"?)",
		home + "/config.toml:17: tui.keymap.editor.insert_newline: unknown key \"hyper-j\"",
		home + "/config.toml:18: tui.keymap.editor.move_left: expected a key",
	} {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, want)
		}
		if !found {
			t.Errorf("no warning %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 3 {
		t.Errorf("%d warnings; want 3:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// TestSetTUITheme: the theme is written as [tui] theme, in the [tui]
// table when there is one (replacing the line), every other line kept.
func TestSetTUITheme(t *testing.T) {
	for _, tc := range []struct{ before, after string }{
		{"", "[tui]\ntheme = \"nord\"\n"},
		{"model = \"m\" # mine\n", "model = \"m\" # mine\n\n[tui]\ntheme = \"nord\"\n"},
		{"[tui]\nalternate_screen = \"never\"\n\n[history]\nmax_bytes = 10\n", "[tui]\ntheme = \"nord\"\nalternate_screen = \"never\"\n\n[history]\nmax_bytes = 10\n"},
		{"[tui]\ntheme = \"dracula\"\n", "[tui]\ntheme = \"nord\"\n"},
	} {
		home := writeHome(t, tc.before)
		if err := config.SetTUITheme(home, "nord"); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(home, config.FileName))
		if string(got) != tc.after {
			t.Errorf("from %q: got %q; want %q", tc.before, got, tc.after)
		}
		if c, err := config.Load(config.Options{Home: home}); err != nil || c.Theme != "nord" {
			t.Errorf("from %q: Theme %q, %v", tc.before, c.Theme, err)
		}
	}
	home := writeHome(t, "tui = { theme = \"x\" }\n")
	if err := config.SetTUITheme(home, "nord"); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("an inline [tui]: %v; want an error saying to set it by hand", err)
	}
}
