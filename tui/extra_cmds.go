package tui

import (
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
)

// extraCommands are Codex's commands that agent has beyond the everyday
// ones: /fast, /title and /statusline.
func extraCommands() []command {
	return []command{
		{name: "/fast", args: "[on|off]", help: "fast mode: the priority service tier (faster answers, at a higher price)", run: (*Model).fastCmd},
		{name: "/title", args: "[TEXT]", help: "set the terminal's title (none: the terminal's own)", run: (*Model).titleCmd},
		{name: "/side", args: "[QUESTION]", help: "a side conversation: ask with this one as context, nothing enters it (esc returns)", run: (*Model).sideCmd},
		{name: "/vim", help: "toggle Vim mode for the composer (normal and insert modes)", run: (*Model).vimCmd},
		{name: "/keymap", help: "the chat's key bindings and the file of Codex's keymap ([tui.keymap]) they come from", run: (*Model).keymapCmd},
		{name: "/theme", args: "[NAME]", help: "choose the colour theme of text and code (saved as [tui] theme)", run: (*Model).themeCmd},
		{name: "/statusline", args: "[COMMAND|off]", help: "draw the status line with COMMAND (the session as JSON on its stdin)", run: (*Model).statuslineCmd},
	}
}

// fastTier is the service tier of fast mode, as Codex asks for it.
const fastTier = "priority"

// fastCmd is /fast [on|off]: without an argument it toggles fast mode, the
// priority service tier of the requests from the next turn on (and of the
// sessions /new opens); off goes back to the provider's default tier.
func (m *Model) fastCmd(arg string) tea.Cmd {
	c := m.opts.Commands
	if c.SetServiceTier == nil || c.ServiceTier == nil {
		return m.unavailable("/fast")
	}
	on := c.ServiceTier() != fastTier
	switch strings.ToLower(arg) {
	case "":
	case "on":
		on = true
	case "off":
		on = false
	default:
		m.tr.add(&notice{level: levelWarn, text: "usage: /fast [on|off]"})
		m.follow = true
		return nil
	}
	line := "Fast mode off: the provider's default service tier from the next turn."
	tier := ""
	if on {
		tier = fastTier
		line = "Fast mode on: requests ask for the priority service tier (faster, billed higher) from the next turn."
	}
	c.SetServiceTier(tier)
	m.tr.add(&notice{level: levelInfo, text: line})
	m.follow = true
	return nil
}

// maxTitle caps a terminal title.
const maxTitle = 80

// titleCmd is /title [TEXT]: the terminal's window title (OSC 2) becomes
// TEXT, its control characters dropped; without TEXT it is emptied, which
// terminals show as their own.
func (m *Model) titleCmd(arg string) tea.Cmd {
	title := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, arg)
	if r := []rune(title); len(r) > maxTitle {
		title = string(r[:maxTitle])
	}
	line := "Terminal title cleared."
	if title != "" {
		line = "Terminal title: " + title
	}
	m.tr.add(&notice{level: levelInfo, text: line})
	m.follow = true
	return tea.SetWindowTitle(title)
}
