package tui

import (
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
)

// vimState is the composer's Vim mode (/vim, [tui] vim_mode_default, as
// Codex's): in normal mode keys move and edit (h j k l w b 0 $ x dd, i a
// A I o O enter insert mode), in insert mode they type, Esc returning to
// normal mode. Enter sends in both; control keys keep their meaning.
type vimState struct {
	normal bool
	// pending is the first key of a two-key command (the d of dd).
	pending rune
}

// vimCmd is /vim: Vim mode on (in normal mode) or off.
func (m *Model) vimCmd(string) tea.Cmd {
	line := "Vim mode off: keys type into the composer."
	if m.vim == nil {
		m.vim = &vimState{normal: true}
		line = "Vim mode on: normal mode (i, a, A or o insert; esc returns to normal mode; enter sends)."
	} else {
		m.vim = nil
	}
	m.tr.add(&notice{level: levelInfo, text: line})
	m.follow = true
	return nil
}

// vimMode is the mode the status line shows: "" when Vim mode is off.
func (m *Model) vimMode() string {
	switch {
	case m.vim == nil:
		return ""
	case m.vim.normal:
		return "NORMAL"
	}
	return "INSERT"
}

// vimKey handles k in Vim mode; ok is false for a key that keeps its
// usual meaning (enter, control keys, esc in normal mode).
func (m *Model) vimKey(k tea.KeyMsg) (cmd tea.Cmd, ok bool) {
	v := m.vim
	if !v.normal {
		if k.Type == tea.KeyEsc {
			v.normal = true
			return nil, true
		}
		return nil, false
	}
	pending := v.pending
	v.pending = 0
	switch {
	case k.Type == tea.KeySpace:
		return nil, true
	case k.Type != tea.KeyRunes || k.Alt || len(k.Runes) != 1:
		return nil, false
	}
	r := k.Runes[0]
	if r == 'd' {
		if pending == 'd' {
			m.vimDeleteLine()
		} else {
			v.pending = 'd'
		}
		return nil, true
	}
	m.vimNormal(r)
	m.fitComposer()
	return nil, true
}

// vimNormal runs the normal-mode command r; an unknown one does nothing
// (it never types).
func (m *Model) vimNormal(r rune) {
	ta := &m.composer
	move := func(t tea.KeyType, alt bool) { *ta, _ = ta.Update(tea.KeyMsg{Type: t, Alt: alt}) }
	switch r {
	case 'h':
		if ta.LineInfo().ColumnOffset > 0 {
			move(tea.KeyLeft, false)
		}
	case 'l':
		if li := ta.LineInfo(); li.ColumnOffset < li.CharWidth-1 {
			move(tea.KeyRight, false)
		}
	case 'j':
		ta.CursorDown()
	case 'k':
		ta.CursorUp()
	case 'w', 'b':
		m.vimWord(r == 'w')
	case '0':
		ta.CursorStart()
	case '$':
		ta.CursorEnd()
	case 'x':
		move(tea.KeyDelete, false)
	case 'i':
		m.vim.normal = false
	case 'a':
		move(tea.KeyRight, false)
		m.vim.normal = false
	case 'A', 'I':
		if r == 'A' {
			ta.CursorEnd()
		} else {
			ta.CursorStart()
		}
		m.vim.normal = false
	case 'o', 'O':
		if r == 'o' {
			ta.CursorEnd()
			ta.InsertString("\n")
		} else {
			ta.CursorStart()
			ta.InsertString("\n")
			ta.CursorUp()
		}
		m.vim.normal = false
	}
}

// vimDeleteLine is dd: the cursor's line removed, the cursor at the start
// of the line that takes its place.
func (m *Model) vimDeleteLine() {
	lines := strings.Split(m.composer.Value(), "\n")
	row := min(m.composer.Line(), len(lines)-1)
	lines = append(lines[:row], lines[row+1:]...)
	m.composer.SetValue(strings.Join(lines, "\n"))
	target := min(row, max(0, len(lines)-1))
	for i := 0; m.composer.Line() > target && i < len(lines)+m.composer.Length(); i++ {
		m.composer.CursorUp()
	}
	m.composer.CursorStart()
	m.fitComposer()
}

// vimWord is w (forward) and b: the cursor to the start of the next, or
// of this or the previous, word of its line (words are runs of non-blank
// characters).
func (m *Model) vimWord(forward bool) {
	ta := &m.composer
	lines := strings.Split(ta.Value(), "\n")
	line := []rune(lines[min(ta.Line(), len(lines)-1)])
	li := ta.LineInfo()
	col := min(li.StartColumn+li.ColumnOffset, len(line))
	blank := func(i int) bool { return unicode.IsSpace(line[i]) }
	if forward {
		for col < len(line) && !blank(col) {
			col++
		}
		for col < len(line) && blank(col) {
			col++
		}
	} else {
		for col > 0 && blank(col-1) {
			col--
		}
		for col > 0 && !blank(col-1) {
			col--
		}
	}
	ta.SetCursor(col)
}
