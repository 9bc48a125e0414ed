package tui

import (
	"strings"
	"testing"
)

func TestHooksAndSkillsCommands(t *testing.T) {
	var trusted string
	m, _ := newTestModel(t, Options{Commands: Commands{
		Hooks: func(arg string) (string, []string, error) {
			trusted = arg
			return "Hooks", []string{`PreToolUse "Bash" [user, untrusted]`, "  key: /h/hooks.json:pre_tool_use:0:0"}, nil
		},
		Skills: func() ([]string, []string) {
			return []string{"skill-installer"}, []string{"$skill-installer  Install Codex skills"}
		},
	}})
	m.slash("/hooks trust all")
	if trusted != "trust all" {
		t.Fatalf("/hooks passed %q", trusted)
	}
	m.slash("/skills")
	view := plain(m.View())
	for _, want := range []string{`PreToolUse "Bash" [user, untrusted]`, "$skill-installer  Install Codex skills"} {
		if !strings.Contains(view, want) {
			t.Errorf("screen lacks %q:\n%s", want, view)
		}
	}
	m.slash("/skills skill-installer")
	if got := m.composer.Value(); got != "$skill-installer " {
		t.Fatalf("composer %q", got)
	}
}
