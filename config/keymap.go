package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Keymap is Codex's [tui.keymap] (its keymap, in config.toml): by context
// ("global", "composer", "editor", ...), the keys of each action, in
// Codex's canonical spelling ("ctrl-t", "alt-enter", "page-down"). An
// action bound to no key ([] in the file) has an empty, non-nil list. An
// entry the file gets wrong is left out with a warning naming the file
// and line, so the action keeps its default.
type Keymap map[string]map[string][]string

// keymapActions are Codex 0.171's [tui.keymap] contexts and their actions.
func keymapActions() map[string][]string {
	return map[string][]string{
		"global": {"open_transcript", "open_external_editor", "copy", "edit_previous_message",
			"confirm_edit_previous_message", "submit", "queue", "toggle_shortcuts"},
		"chat":     {"edit_previous_message", "confirm_edit_previous_message"},
		"composer": {"submit", "queue", "toggle_shortcuts"},
		"editor": {"insert_newline", "move_left", "move_right", "move_up", "move_down", "move_word_left",
			"move_word_right", "move_line_start", "move_line_end", "delete_backward", "delete_forward",
			"delete_backward_word", "delete_forward_word", "kill_line_start", "kill_line_end", "yank"},
		"pager": {"scroll_up", "scroll_down", "page_up", "page_down", "half_page_up", "half_page_down",
			"jump_top", "jump_bottom", "close", "close_transcript", "edit_previous_message",
			"edit_next_message", "confirm_edit_message"},
		"list":       {"move_up", "move_down", "accept", "cancel"},
		"approval":   {"open_fullscreen", "approve", "approve_for_session", "approve_for_prefix", "decline", "cancel"},
		"onboarding": {"move_up", "move_down", "select_first", "select_second", "select_third", "confirm", "cancel", "quit", "toggle_animation"},
	}
}

// keymap checks the raw [tui.keymap] table and returns what it binds;
// each entry it cannot read is a warning at its line and is left out.
func (c checker) keymap(raw map[string]any) Keymap {
	out := Keymap{}
	actions := keymapActions()
	for _, ctx := range slices.Sorted(maps.Keys(raw)) {
		path := []string{"tui", "keymap", ctx}
		if ctx == "preset" {
			if s, ok := raw[ctx].(string); !ok || s != "latest" && s != "v1" {
				c.warns.add(c.src, path, `expected "latest" or "v1"; ignored`)
			}
			continue
		}
		known, ok := actions[ctx]
		table, isTable := raw[ctx].(map[string]any)
		switch {
		case !ok:
			c.warns.add(c.src, path, "unknown keymap context (expected one of: "+strings.Join(slices.Sorted(maps.Keys(actions)), ", ")+"); ignored")
			continue
		case !isTable:
			c.warns.add(c.src, path, "expected a table of actions; ignored")
			continue
		}
		for _, action := range slices.Sorted(maps.Keys(table)) {
			at := append(slices.Clip(path), action)
			if !slices.Contains(known, action) {
				c.warns.add(c.src, at, "unknown action of [tui.keymap."+ctx+"]"+hintNames(action, known)+"; the default stays")
				continue
			}
			keys, err := keySpecs(table[action])
			if err != nil {
				c.warns.add(c.src, at, err.Error()+"; the default stays")
				continue
			}
			if out[ctx] == nil {
				out[ctx] = map[string][]string{}
			}
			out[ctx][action] = keys
		}
	}
	return out
}

// keySpecs reads an action's value: a key, or a list of keys ([] unbinds
// it), each normalized as Codex does.
func keySpecs(v any) ([]string, error) {
	var raw []any
	switch v := v.(type) {
	case string:
		raw = []any{v}
	case []any:
		raw = v
	default:
		return nil, fmt.Errorf("expected a key (\"ctrl-a\") or a list of keys, got %s", typeName(v))
	}
	out := []string{}
	for _, r := range raw {
		s, ok := r.(string)
		if !ok {
			return nil, fmt.Errorf("expected a key (\"ctrl-a\") or a list of keys, got %s in the list", typeName(r))
		}
		k, err := normalizeKey(s)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// normalizeKey turns a key as written in [tui.keymap] into Codex's
// canonical spelling: modifiers first, as ctrl-alt-shift-, then the key,
// with Codex's aliases (escape is esc, pgdn is page-down, ...). Keys are
// a printable ASCII character, f1 to f12, or one of enter, tab,
// backspace, esc, delete, up, down, left, right, home, end, page-up,
// page-down and space.
func normalizeKey(raw string) (string, error) {
	lower := strings.ToLower(strings.TrimSpace(raw))
	if lower == "" {
		return "", fmt.Errorf("a key cannot be empty (use values like \"ctrl-a\" or \"shift-enter\")")
	}
	mods := map[string]bool{}
	var rest []string
	for _, seg := range strings.Split(lower, "-") {
		if seg == "" {
			continue
		}
		m := map[string]string{"ctrl": "ctrl", "control": "ctrl", "alt": "alt", "option": "alt", "shift": "shift"}[seg]
		switch {
		case m != "" && len(rest) == 0:
			if mods[m] {
				return "", fmt.Errorf("key %q repeats a modifier", raw)
			}
			mods[m] = true
		case m != "":
			return "", fmt.Errorf("key %q: modifiers come before the key (for example \"ctrl-a\")", raw)
		default:
			rest = append(rest, seg)
		}
	}
	if strings.HasSuffix(lower, "--") || lower == "-" {
		rest = append(rest, "-") // "ctrl--": the minus key is not one Codex takes
	}
	if len(rest) == 0 {
		return "", fmt.Errorf("key %q has no key after its modifiers (add one like \"a\", \"enter\" or \"page-down\")", raw)
	}
	key, err := keyName(strings.Join(rest, "-"), raw)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, m := range []string{"ctrl", "alt", "shift"} {
		if mods[m] {
			b.WriteString(m + "-")
		}
	}
	return b.String() + key, nil
}

// keyName checks one key name, with Codex's aliases.
func keyName(k, raw string) (string, error) {
	if a, ok := map[string]string{"escape": "esc", "return": "enter", "spacebar": "space", "pgup": "page-up",
		"pageup": "page-up", "pgdn": "page-down", "pagedown": "page-down", "del": "delete"}[k]; ok {
		k = a
	}
	if len(k) == 1 && k[0] > ' ' && k[0] < 0x7f && k != "-" {
		return k, nil
	}
	switch k {
	case "enter", "tab", "backspace", "esc", "delete", "up", "down", "left", "right", "home", "end", "page-up", "page-down", "space":
		return k, nil
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(k, "f")); err == nil && strings.HasPrefix(k, "f") && n >= 1 && n <= 12 {
		return k, nil
	}
	return "", fmt.Errorf("unknown key %q in %q (a printable character, f1-f12, or one of: enter, tab, backspace, esc, delete, arrows, home, end, page-up, page-down, space)", k, raw)
}
