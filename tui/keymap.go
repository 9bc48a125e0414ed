package tui

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
)

// keyAction is one of the chat's actions Codex's keymap ([tui.keymap])
// can rebind: its name, the config keys that set it (the first one set
// wins, as Codex's context-over-global precedence) and its default keys.
type keyAction struct {
	name     string
	from     []string // "composer.submit", "global.submit"
	defaults []string
}

// keyActions are the actions agent applies from [tui.keymap], in the
// order a key bound to two of them is matched.
func keyActions() []keyAction {
	return []keyAction{
		{"submit", []string{"composer.submit", "global.submit"}, []string{"enter"}},
		{"insert_newline", []string{"editor.insert_newline"}, []string{"alt-enter", "ctrl-j"}},
		{"open_transcript", []string{"global.open_transcript"}, []string{"ctrl-t"}},
		{"edit_previous_message", []string{"chat.edit_previous_message", "global.edit_previous_message"}, []string{"esc"}},
		{"close_pager", []string{"pager.close"}, []string{"q", "ctrl-c"}},
		{"close_transcript", []string{"pager.close_transcript"}, []string{"ctrl-t"}},
	}
}

// keymap is the chat's key bindings: each action's keys, from the
// defaults and [tui.keymap].
type keymap struct {
	keys map[string][]string // action → keys
	from map[string]string   // action → the config key that set it ("" default)
	// conflicts say which keys two chat actions share (the first wins).
	conflicts []string
}

// newKeymap resolves cfg ([tui.keymap], by context and action) over the
// defaults.
func newKeymap(cfg map[string]map[string][]string) *keymap {
	km := &keymap{keys: map[string][]string{}, from: map[string]string{}}
	owner := map[string]string{}
	for _, a := range keyActions() {
		km.keys[a.name] = a.defaults
		for _, f := range a.from {
			ctx, action, _ := strings.Cut(f, ".")
			if keys, ok := cfg[ctx][action]; ok {
				km.keys[a.name], km.from[a.name] = keys, f
				break
			}
		}
		if a.name == "close_pager" || a.name == "close_transcript" {
			continue // the pager's keys are matched only in the pager
		}
		for _, k := range km.keys[a.name] {
			if o, ok := owner[k]; ok {
				km.conflicts = append(km.conflicts, fmt.Sprintf("%s is bound to both %s and %s: %s wins", k, o, a.name, o))
				continue
			}
			owner[k] = a.name
		}
	}
	return km
}

// action is the chat action k is bound to, outside the pager; "" for none.
func (km *keymap) action(k tea.KeyMsg) string {
	spec := keySpec(k)
	for _, a := range keyActions() {
		if a.name != "close_pager" && a.name != "close_transcript" && slices.Contains(km.keys[a.name], spec) {
			return a.name
		}
	}
	return ""
}

// closesPager reports whether k closes the transcript pager: esc, or a
// key of pager.close, pager.close_transcript or global.open_transcript.
func (km *keymap) closesPager(k tea.KeyMsg) bool {
	spec := keySpec(k)
	return k.Type == tea.KeyEsc || slices.Contains(km.keys["close_pager"], spec) ||
		slices.Contains(km.keys["close_transcript"], spec) || slices.Contains(km.keys["open_transcript"], spec)
}

// keySpec is k in Codex's keymap spelling: "ctrl-t", "alt-enter", "a",
// "shift-a", "page-down", "space".
func keySpec(k tea.KeyMsg) string {
	alt := ""
	if k.Alt {
		alt = "alt-"
	}
	switch {
	case k.Type == tea.KeyRunes && len(k.Runes) != 1:
		return "" // text, never a key
	case k.Type == tea.KeyRunes:
		r := k.Runes[0]
		if unicode.IsUpper(r) {
			return alt + "shift-" + string(unicode.ToLower(r))
		}
		return alt + string(r)
	case k.Type == tea.KeySpace:
		return alt + "space"
	}
	s := strings.TrimPrefix(k.String(), "alt+")
	for from, to := range map[string]string{"pgup": "page-up", "pgdown": "page-down"} {
		s = strings.Replace(s, from, to, 1)
	}
	return alt + strings.ReplaceAll(s, "+", "-")
}

// runAction runs the chat action name for k; ok is false when it does not
// apply now (the key then keeps its usual meaning).
func (m *Model) runAction(name string) (cmd tea.Cmd, ok bool) {
	switch name {
	case "submit":
		return m.submit(), true
	case "insert_newline":
		return m.insert("\n"), true
	case "open_transcript":
		m.openPager()
		return nil, true
	case "edit_previous_message":
		if m.turn != nil || m.busy != nil || m.side != nil || !m.resumeAt.IsZero() || m.composer.Value() != "" {
			return nil, false
		}
		m.follow = true
		return m.escEmpty(), true
	}
	return nil, false
}

// keymapCmd is /keymap: the chat's bindings, where they come from, and
// what is wrong with the keymap in the config file.
func (m *Model) keymapCmd(string) tea.Cmd {
	path := m.opts.KeymapPath
	if path == "" {
		path = "config.toml"
	}
	var body []string
	for _, a := range keyActions() {
		src := "default"
		if f := m.keys.from[a.name]; f != "" {
			src = f
		}
		keys := strings.Join(m.keys.keys[a.name], ", ")
		if keys == "" {
			keys = "(unbound)"
		}
		body = append(body, fmt.Sprintf("  %-22s %-18s %s", a.name, keys, src))
	}
	var hint []string // wrapped, unlike body
	for _, c := range m.keys.conflicts {
		hint = append(hint, "⚠ "+c)
	}
	for _, w := range m.opts.KeymapWarnings {
		hint = append(hint, "⚠ "+clean(w))
	}
	hint = append(hint, "Codex's other keymap actions (editor motions, list, approval, ...) are read and not applied by agent; "+
		"restart agent after editing the file")
	m.tr.add(&notice{level: levelInfo, text: "Keymap: [tui.keymap] in " + path, body: body, hint: hint})
	m.follow = true
	return nil
}
