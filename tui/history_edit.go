package tui

import (
	"context"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// escWindow is how soon a second Esc must follow the first, on an empty
// composer, to step back to an earlier message.
const escWindow = time.Second

// userMessages are the messages the user sent in this conversation, in
// order, as the transcript shows them.
func (m *Model) userMessages() []string {
	var out []string
	for _, b := range m.tr.blocks {
		if u, ok := b.c.(userMsg); ok {
			out = append(out, u.text)
		}
	}
	return out
}

// forkCmd is /fork: a picker of "at the latest message" and this
// conversation's earlier messages (latest first); the new session holds
// the conversation up to the end of the turn chosen.
func (m *Model) forkCmd(string) tea.Cmd {
	if m.opts.Commands.Fork == nil {
		return m.unavailable("/fork")
	}
	p := &picker{title: "Fork this conversation into a new session", choose: func(m *Model, it pickItem) tea.Cmd {
		keep, _ := strconv.Atoi(it.value)
		return m.fork(keep, "")
	}}
	p.items = append(p.items, pickItem{listRow: listRow{label: "at the latest message", detail: "the whole conversation"}, value: "-1"})
	msgs := m.userMessages()
	for k := len(msgs) - 1; k >= 0; k-- {
		p.items = append(p.items, pickItem{listRow: listRow{label: firstLine(msgs[k]), detail: "up to its answer"},
			value: strconv.Itoa(k + 1)})
	}
	m.openPicker(p)
	return nil
}

// escEmpty handles Esc on an empty composer with nothing running: a
// second Esc within escWindow opens the picker of earlier messages to
// edit one.
func (m *Model) escEmpty() tea.Cmd {
	now := m.now()
	if m.escArmed.IsZero() || now.Sub(m.escArmed) > escWindow {
		m.escArmed = now // the placeholder says what a second Esc does
		return nil
	}
	m.escArmed = time.Time{}
	msgs := m.userMessages()
	if len(msgs) == 0 || m.opts.Commands.Fork == nil {
		return nil
	}
	p := &picker{title: "Edit an earlier message (the conversation forks before it)", choose: func(m *Model, it pickItem) tea.Cmd {
		k, _ := strconv.Atoi(it.value)
		return m.fork(k, msgs[k])
	}}
	for k := len(msgs) - 1; k >= 0; k-- {
		p.items = append(p.items, pickItem{listRow: listRow{label: firstLine(msgs[k])}, value: strconv.Itoa(k)})
	}
	m.openPicker(p)
	return nil
}

// fork starts a new session holding the first keep turns of this one
// (all, for -1); edit, when not empty, goes into the composer to be
// edited and sent again.
func (m *Model) fork(keep int, edit string) tea.Cmd {
	f := m.opts.Commands.Fork
	return m.exclusive("Forking", func(ctx context.Context) commandMsg {
		r, err := f(ctx, keep)
		info := "Forked into a new session."
		if edit != "" {
			info = "Forked before that message: edit it and press enter."
		}
		return commandMsg{engine: r.Engine, reset: true, resume: r.Messages, info: info, edit: edit, err: err}
	})
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

// pagerKey handles a key while the transcript pager (Ctrl+T) is open.
func (m *Model) pagerKey(k tea.KeyMsg) tea.Cmd {
	h := max(1, m.height-1)
	switch {
	case m.keys.closesPager(k):
		m.pager = false
	case k.Type == tea.KeyUp || k.Type == tea.KeyRunes && string(k.Runes) == "k":
		m.pagerTop--
	case k.Type == tea.KeyDown || k.Type == tea.KeyRunes && string(k.Runes) == "j":
		m.pagerTop++
	case k.Type == tea.KeyPgUp:
		m.pagerTop -= h - 1
	case k.Type == tea.KeyPgDown || k.Type == tea.KeySpace:
		m.pagerTop += h - 1
	case k.Type == tea.KeyHome || k.Type == tea.KeyRunes && string(k.Runes) == "g":
		m.pagerTop = 0
	case k.Type == tea.KeyEnd || k.Type == tea.KeyRunes && string(k.Runes) == "G":
		m.pagerTop = m.tr.lineCount()
	}
	m.pagerTop = min(max(0, m.pagerTop), max(0, m.tr.lineCount()-h))
	return nil
}

// openPager shows the whole transcript full screen, at its end.
func (m *Model) openPager() {
	m.pager = true
	m.tr.layout(m.layoutWidth, m.look)
	m.pagerTop = max(0, m.tr.lineCount()-(m.height-1))
}

// pagerView draws the pager: a screen of the transcript and a line of keys.
func (m *Model) pagerView() string {
	h := max(1, m.height-1)
	m.tr.layout(m.layoutWidth, m.look)
	lines := m.tr.window(m.pagerTop, h)
	for len(lines) < h {
		lines = append(lines, "")
	}
	end := min(m.tr.lineCount(), m.pagerTop+h)
	hint := "transcript " + strconv.Itoa(end) + "/" + strconv.Itoa(m.tr.lineCount()) +
		" · ↑/↓ pgup/pgdn g/G scroll · q or esc close"
	return strings.Join(append(lines, m.look.dim.Render(truncate(hint, m.width))), "\n")
}
