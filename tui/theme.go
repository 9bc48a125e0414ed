package tui

import (
	"context"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/tui/highlight"
)

// theme is a colour theme of the chat (/theme, [tui] theme, as Codex's
// syntax themes): the colours of rendered Markdown and of code by class
// (package highlight), for a dark or a light background.
type theme struct {
	name  string
	light bool
	// accent colours headings; code and codeBG inline code; link links.
	accent, code, codeBG, link string
	// syntax is each class's colour, in highlight.Class order: plain,
	// keyword, type, function, string, number, comment, tag, attribute,
	// inserted, deleted, heading.
	syntax [highlight.Heading + 1]string
}

// agentTheme and agentLight are agent's own colours, for dark and light
// backgrounds: the themes the chat has without [tui] theme.
const (
	agentTheme = "agent"
	agentLight = "agent-light"
)

// themes are the chat's themes: agent's own, then those of Codex's
// syntax themes it draws (in 256 colours or true colour, as the terminal
// takes them).
func themes() []theme {
	hex := func(name string, light bool, bg string, s ...string) theme {
		t := theme{name: name, light: light, accent: s[11], code: s[7], codeBG: bg, link: s[3]}
		copy(t.syntax[:], s)
		return t
	}
	return []theme{
		{name: agentTheme, accent: "39", code: "203", codeBG: "236", link: "30",
			syntax: [...]string{"252", "170", "81", "75", "114", "215", "244", "204", "180", "114", "203", "75"}},
		{name: agentLight, light: true, accent: "27", code: "203", codeBG: "254", link: "36",
			syntax: [...]string{"236", "127", "31", "26", "28", "130", "245", "161", "94", "28", "160", "26"}},
		{name: "ansi", accent: "4", code: "1", link: "4",
			syntax: [...]string{"", "5", "3", "4", "2", "3", "8", "1", "3", "2", "1", "4"}},
		hex("base16-ocean-dark", false, "#343d46", "#c0c5ce", "#b48ead", "#ebcb8b", "#8fa1b3", "#a3be8c", "#d08770", "#65737e", "#bf616a", "#d08770", "#a3be8c", "#bf616a", "#8fa1b3"),
		hex("catppuccin-latte", true, "#ccd0da", "#4c4f69", "#8839ef", "#df8e1d", "#1e66f5", "#40a02b", "#fe640b", "#8c8fa1", "#d20f39", "#df8e1d", "#40a02b", "#d20f39", "#1e66f5"),
		hex("catppuccin-mocha", false, "#313244", "#cdd6f4", "#cba6f7", "#f9e2af", "#89b4fa", "#a6e3a1", "#fab387", "#7f849c", "#f38ba8", "#f9e2af", "#a6e3a1", "#f38ba8", "#89b4fa"),
		hex("dracula", false, "#44475a", "#f8f8f2", "#ff79c6", "#8be9fd", "#50fa7b", "#f1fa8c", "#bd93f9", "#6272a4", "#ff79c6", "#50fa7b", "#50fa7b", "#ff5555", "#bd93f9"),
		hex("github", true, "#f6f8fa", "#24292e", "#d73a49", "#6f42c1", "#6f42c1", "#032f62", "#005cc5", "#6a737d", "#22863a", "#6f42c1", "#22863a", "#b31d28", "#005cc5"),
		hex("gruvbox-dark", false, "#3c3836", "#ebdbb2", "#fb4934", "#fabd2f", "#8ec07c", "#b8bb26", "#d3869b", "#928374", "#83a598", "#fabd2f", "#b8bb26", "#fb4934", "#83a598"),
		hex("gruvbox-light", true, "#ebdbb2", "#3c3836", "#9d0006", "#b57614", "#427b58", "#79740e", "#8f3f71", "#928374", "#076678", "#b57614", "#79740e", "#9d0006", "#076678"),
		hex("monokai-extended", false, "#3e3d32", "#f8f8f2", "#f92672", "#66d9ef", "#a6e22e", "#e6db74", "#ae81ff", "#75715e", "#f92672", "#a6e22e", "#a6e22e", "#f92672", "#66d9ef"),
		hex("nord", false, "#3b4252", "#d8dee9", "#81a1c1", "#8fbcbb", "#88c0d0", "#a3be8c", "#b48ead", "#616e88", "#81a1c1", "#8fbcbb", "#a3be8c", "#bf616a", "#88c0d0"),
		hex("one-half-dark", false, "#313640", "#dcdfe4", "#c678dd", "#e5c07b", "#61afef", "#98c379", "#e5c07b", "#5c6370", "#e06c75", "#e5c07b", "#98c379", "#e06c75", "#61afef"),
		hex("one-half-light", true, "#f0f0f0", "#383a42", "#a626a4", "#c18401", "#0184bc", "#50a14f", "#c18401", "#a0a1a7", "#e45649", "#c18401", "#50a14f", "#e45649", "#0184bc"),
		hex("solarized-dark", false, "#073642", "#839496", "#859900", "#b58900", "#268bd2", "#2aa198", "#d33682", "#586e75", "#268bd2", "#93a1a1", "#859900", "#dc322f", "#cb4b16"),
		hex("solarized-light", true, "#eee8d5", "#657b83", "#859900", "#b58900", "#268bd2", "#2aa198", "#d33682", "#93a1a1", "#268bd2", "#586e75", "#859900", "#dc322f", "#cb4b16"),
		hex("two-dark", false, "#2c313a", "#abb2bf", "#c678dd", "#e5c07b", "#61afef", "#98c379", "#d19a66", "#5c6370", "#e06c75", "#d19a66", "#98c379", "#e06c75", "#61afef"),
		hex("zenburn", false, "#4f4f4f", "#dcdccc", "#f0dfaf", "#7cb8bb", "#93e0e3", "#cc9393", "#8cd0d3", "#7f9f7f", "#e3ceab", "#dfdfbf", "#7f9f7f", "#cc9393", "#f0dfaf"),
	}
}

// themeNamed is the theme called name.
func themeNamed(name string) (theme, bool) {
	all := themes()
	i := slices.IndexFunc(all, func(t theme) bool { return t.name == name })
	if i < 0 {
		return theme{}, false
	}
	return all[i], true
}

// startTheme is the theme the chat opens with: [tui] theme when agent
// has it (else a warning, and the default), agent's own for the
// background otherwise.
func startTheme(opts Options) (t theme, warn string) {
	def := agentTheme
	if opts.LightBackground {
		def = agentLight
	}
	if opts.Theme == "" {
		t, _ = themeNamed(def)
		return t, ""
	}
	if t, ok := themeNamed(opts.Theme); ok {
		return t, ""
	}
	t, _ = themeNamed(def)
	return t, "[tui] theme " + clean(opts.Theme) + " is not one of agent's themes; /theme lists them"
}

// themeCmd is /theme [NAME]: the theme picker, or NAME at once. The
// choice takes effect now and is saved as [tui] theme.
func (m *Model) themeCmd(arg string) tea.Cmd {
	if arg != "" {
		return m.setTheme(arg)
	}
	var items []pickItem
	for _, t := range themes() {
		detail := "dark background"
		if t.light {
			detail = "light background"
		}
		items = append(items, pickItem{listRow: listRow{label: t.name, detail: detail, mark: t.name == m.look.theme}, value: t.name})
	}
	m.openPicker(&picker{title: "Select a theme", items: items,
		choose: func(m *Model, it pickItem) tea.Cmd { return m.setTheme(it.value) }})
	return nil
}

// setTheme draws the chat in the theme called name from now on and saves
// the choice.
func (m *Model) setTheme(name string) tea.Cmd {
	t, ok := themeNamed(name)
	if !ok {
		m.tr.add(&notice{level: levelWarn, text: "no theme is called " + clean(name) + " (/theme lists them)"})
		m.follow = true
		return nil
	}
	m.look.setTheme(t)
	m.tr.restyle()
	if s := m.side; s != nil {
		s.main.restyle()
	}
	line := "Theme: " + name
	if m.opts.NoColor {
		line += " (NO_COLOR is set: the chat stays without colours)"
	}
	save := m.opts.Commands.SetTheme
	if save == nil {
		m.info(line, nil)
		return nil
	}
	return m.hook(func(context.Context) commandMsg {
		if err := save(name); err != nil {
			return commandMsg{warn: line + ", for this session only: " + err.Error()}
		}
		return commandMsg{info: line + " (saved as [tui] theme)"}
	})
}
