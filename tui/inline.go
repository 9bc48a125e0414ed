package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// printedMsg says the blocks of the last print went into the scrollback.
type printedMsg struct{}

// settled is the number of leading blocks that no longer change: all of
// them between turns, those before the running turn's output during one,
// none newer than what is printed while a command works.
func (m *Model) settled() int {
	switch {
	case m.turn != nil:
		return min(m.turn.first, len(m.tr.blocks))
	case m.busy != nil:
		return m.printed
	}
	return len(m.tr.blocks)
}

// printSettled prints the settled blocks not yet printed above the chat,
// into the terminal's scrollback (inline mode). One print is in flight at
// a time, so they arrive in order; the next waits for printedMsg.
func (m *Model) printSettled() tea.Cmd {
	if !m.opts.Inline || m.printing || m.pager {
		return nil
	}
	end := m.settled()
	if end <= m.printed {
		return nil
	}
	m.tr.layout(m.layoutWidth, m.look)
	from := m.tr.starts[m.printed]
	lines := m.tr.window(from, m.tr.starts[end]-from)
	m.printed = end
	if len(lines) == 0 {
		return nil
	}
	m.printing = true
	text := strings.Join(lines, "\n")
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// inlineView is the screen in inline mode: the blocks not yet printed (the
// last h lines of them) over the bottom pane, no taller than needed.
func (m *Model) inlineView(h int, bottom []string) string {
	from := m.tr.starts[min(m.printed, len(m.tr.blocks))]
	lines := m.tr.window(from, m.tr.lineCount()-from)
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	for i, ln := range lines {
		lines[i] = truncate(ln, m.width)
	}
	return strings.Join(append(lines, bottom...), "\n")
}
