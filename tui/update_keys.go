package tui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/session"
)

// updateKey handles a key press. The approval prompt, when open, takes
// every key; otherwise the chat's keys come first and the rest edit the
// composer.
func (m *Model) updateKey(k tea.KeyMsg) tea.Cmd {
	if len(m.approvals) > 0 {
		return m.approvalKey(k)
	}
	if len(m.asks) > 0 {
		return m.askKey(k)
	}
	if m.pager {
		return m.pagerKey(k)
	}
	if m.picker != nil {
		return m.pickerKey(k)
	}
	if cmd, ok := m.popupKey(k); ok {
		return cmd
	}
	if m.vim != nil && !k.Paste {
		if cmd, ok := m.vimKey(k); ok {
			return cmd
		}
	}
	// Keys are matched by type: text that arrives as one chunk ("enter",
	// "up") is text, never a key.
	if k.Paste {
		return m.paste(normalizeBreaks(string(k.Runes)))
	}
	// The keys of the chat's actions, as [tui.keymap] binds them.
	if cmd, ok := m.runAction(m.keys.action(k)); ok {
		return cmd
	}
	if k.Alt {
		return m.edit(k)
	}
	switch k.Type {
	case tea.KeyRunes:
		return m.insert(string(k.Runes))
	case tea.KeySpace:
		return m.insert(" ")
	case tea.KeyCtrlC:
		return m.ctrlC()
	case tea.KeyEsc:
		return m.esc()
	case tea.KeyCtrlT: // not the transcript's key: nothing (the composer would transpose)
		return nil
	case tea.KeyCtrlV:
		return m.pasteClipboardImage()
	case tea.KeyCtrlD:
		if m.composer.Value() == "" {
			return m.quit()
		}
	case tea.KeyEnter: // not the key that sends: a new line
		return m.insert("\n")
	case tea.KeyCtrlR:
		if m.turn != nil && m.turn.retry != nil {
			m.retryNow()
			return nil
		}
		if m.paused && m.turn == nil && m.busy == nil {
			m.paused = false
			return m.startTurn(session.DefaultContinuePrompt)
		}
		return nil
	case tea.KeyUp:
		if m.composer.Line() == 0 && m.composer.LineInfo().RowOffset == 0 {
			if text, ok := m.hist.prev(m.composer.Value()); ok {
				m.setComposer(text)
			}
			return nil
		}
	case tea.KeyDown:
		if m.composer.Line() == m.composer.LineCount()-1 && m.onLastRow() {
			if text, ok := m.hist.next(); ok {
				m.setComposer(text)
			}
			return nil
		}
	case tea.KeyPgUp:
		m.scroll(-m.page())
		return nil
	case tea.KeyPgDown:
		m.scroll(m.page())
		return nil
	}
	return m.edit(k)
}

// insert puts text into the composer at the cursor, as text: it never
// reaches the composer's key bindings.
func (m *Model) insert(text string) tea.Cmd {
	m.composer.InsertString(text)
	m.fitComposer()
	return nil
}

// edit passes a control key to the composer (cursor motion, deletion).
func (m *Model) edit(k tea.KeyMsg) tea.Cmd {
	var cmd tea.Cmd
	m.composer, cmd = m.composer.Update(k)
	m.fitComposer()
	return cmd
}

// onLastRow reports whether the cursor is on the last screen row of its
// (soft-wrapped) line.
func (m *Model) onLastRow() bool {
	li := m.composer.LineInfo()
	return li.RowOffset >= li.Height-1
}

// setComposer replaces the composer's text, cursor at the end.
func (m *Model) setComposer(text string) {
	m.composer.SetValue(text)
	m.fitComposer()
}

// ctrlC interrupts the running turn (or clears the composer); a second
// Ctrl-C within quitWindow quits.
func (m *Model) ctrlC() tea.Cmd {
	now := m.now()
	if !m.quitArmed.IsZero() && now.Sub(m.quitArmed) <= quitWindow {
		return m.quit()
	}
	m.quitArmed = now
	var cmd tea.Cmd
	switch {
	case m.turn != nil:
		cmd = m.interrupt()
	case m.busy != nil:
		m.busy.cancel()
	default:
		m.composer.Reset()
		m.fitComposer()
	}
	return tea.Batch(cmd, m.startTicking())
}

// esc interrupts what runs; otherwise it returns to the end of the
// transcript.
func (m *Model) esc() tea.Cmd {
	switch {
	case m.turn != nil:
		return m.interrupt()
	case m.busy != nil:
		m.busy.cancel()
	case !m.resumeAt.IsZero():
		m.resumeAt = time.Time{} // stop waiting; Ctrl+R still continues
		m.tr.add(&notice{level: levelInfo, text: "Not waiting for the reset; Ctrl+R continues the turn."})
	case m.composer.Value() == "" && m.side != nil:
		m.leaveSide()
	default: // on an empty composer, edit_previous_message (keymap.go)
		m.follow = true
	}
	return nil
}

// quit ends the program. Run cancels the turn and waits for it.
func (m *Model) quit() tea.Cmd {
	if m.turn != nil {
		m.turn.interrupted = true
		m.turn.cancel()
	}
	if m.busy != nil {
		m.busy.cancel()
	}
	return tea.Batch(m.abortApprovals(), tea.Quit)
}

// submit sends the composer's text: a slash command runs, a message starts
// a turn, or waits in the queue while one runs.
func (m *Model) submit() tea.Cmd {
	text := m.composer.Value()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	slash := isSlashCommand(text)
	if slash {
		if name := strings.Fields(text)[0]; m.side != nil && m.known(name) {
			m.composer.Reset()
			m.fitComposer()
			return m.sideSlash(name, text)
		} else if !m.known(name) {
			// As Codex: one line, nothing sent, the text kept to fix.
			m.tr.add(&notice{level: levelInfo, text: "Unrecognized command '" + name + `'. Type "/" for a list of supported commands.`})
			m.follow = true
			return nil
		}
	}
	m.composer.Reset()
	m.fitComposer()
	m.hist.add(text)
	save := m.saveHistory(text)
	if m.side != nil && !slash {
		return tea.Batch(save, m.askSide(text))
	}
	if slash {
		return tea.Batch(save, m.slash(text))
	}
	return tea.Batch(save, m.sendMessage(text))
}

// isSlashCommand reports whether text is a slash command line rather than
// a message: it starts with "/" and its first word holds no other slash
// (so "/usr/bin/env is where?" and "/https://x" are messages, as in Codex).
func isSlashCommand(text string) bool {
	if !strings.HasPrefix(text, "/") {
		return false
	}
	return !strings.Contains(strings.Fields(text)[0][1:], "/")
}

// sendMessage starts a turn with text, or queues it while one runs.
func (m *Model) sendMessage(text string) tea.Cmd {
	if m.turn != nil || m.busy != nil {
		m.queue = append(m.queue, text)
		return nil
	}
	return m.startTurn(text)
}

// restoreQueue moves the queued messages back into the composer, before
// whatever is being typed, so none is lost and none is sent unasked.
func (m *Model) restoreQueue() {
	parts := append([]string(nil), m.queue...)
	if d := m.composer.Value(); d != "" {
		parts = append(parts, d)
	}
	m.queue = nil
	m.setComposer(strings.Join(parts, "\n\n"))
}

// page is how far PgUp and PgDn scroll.
func (m *Model) page() int {
	return max(1, m.transcriptHeight()-2)
}

// transcriptHeight is the number of lines the transcript gets.
func (m *Model) transcriptHeight() int {
	return max(0, m.height-len(m.bottomPane()))
}

// scroll moves the transcript window by n lines; reaching the end follows
// it again.
func (m *Model) scroll(n int) {
	h := m.transcriptHeight()
	m.tr.layout(m.layoutWidth, m.look)
	last := max(0, m.tr.lineCount()-h)
	top := m.windowTop(h) + n
	if top >= last {
		m.follow = true
		return
	}
	m.follow, m.top = false, max(0, top)
}
