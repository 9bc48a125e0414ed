package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
)

// pickItem is one choice of a picker.
type pickItem struct {
	listRow
	// value is what choosing it passes on (a model name, a session id).
	value string
	// search is what typing filters on; "" means the label.
	search string
}

// picker chooses one item from a list, in place of the composer: typing
// filters (prefix, then fuzzy), Up/Down move, Enter chooses, Esc closes;
// Tab does what toggle does when it is set (named in tabHint). It is a
// plain struct of the model; pickers whose items take IO to find open
// empty and are filled by a pickerItemsMsg.
type picker struct {
	id      int // which picker a pickerItemsMsg is for
	title   string
	items   []pickItem
	query   []rune
	list    list
	order   []int // the item shown in each row
	tabHint string
	choose  func(m *Model, it pickItem) tea.Cmd
	toggle  func(m *Model) tea.Cmd
}

// pickerItemsMsg fills picker id with items (or says why it cannot).
type pickerItemsMsg struct {
	id    int
	items []pickItem
	err   error
}

// openPicker shows p in place of the composer.
func (m *Model) openPicker(p *picker) {
	m.pickSeq++
	p.id = m.pickSeq
	if p.list.empty == "" {
		p.list.empty = "nothing to choose"
	}
	p.refilter()
	m.picker = p
}

// loadPicker opens p empty ("loading…") and fills it with what load
// returns, from a goroutine of its own.
func (m *Model) loadPicker(p *picker, load func(ctx context.Context) ([]pickItem, error)) tea.Cmd {
	p.list.empty = "loading…"
	m.openPicker(p)
	id, ctx := p.id, m.ctx
	return m.jobs.cmd(func() tea.Msg {
		items, err := load(ctx)
		return pickerItemsMsg{id: id, items: items, err: err}
	})
}

// pickerItems fills the picker the message is for, if it is still open.
func (m *Model) pickerItems(msg pickerItemsMsg) tea.Cmd {
	p := m.picker
	if p == nil || p.id != msg.id {
		return nil
	}
	if msg.err != nil {
		m.picker = nil
		m.tr.add(&notice{level: levelError, text: clean(msg.err.Error())})
		return nil
	}
	p.items, p.list.empty = msg.items, "nothing to choose"
	p.refilter()
	return nil
}

// refilter shows the items that match the query, best first; with no
// query, every item in its order, the marked one selected.
func (p *picker) refilter() {
	names := make([]string, len(p.items))
	for i, it := range p.items {
		names[i] = it.search
		if names[i] == "" {
			names[i] = it.label
		}
	}
	order := rank(string(p.query), names, 0)
	rows := make([]listRow, len(order))
	sel := 0
	for i, j := range order {
		rows[i] = p.items[j].listRow
		if rows[i].mark && len(p.query) == 0 {
			sel = i
		}
	}
	p.list.set(rows)
	p.list.move(sel)
	p.order = order
}

// pickerKey handles a key while a picker is open.
func (m *Model) pickerKey(k tea.KeyMsg) tea.Cmd {
	p := m.picker
	switch k.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		m.picker = nil
	case tea.KeyUp, tea.KeyCtrlP:
		p.list.move(-1)
	case tea.KeyDown, tea.KeyCtrlN:
		p.list.move(1)
	case tea.KeyTab:
		if p.toggle != nil {
			return p.toggle(m)
		}
	case tea.KeyEnter:
		i := p.list.selected()
		if i < 0 {
			return nil
		}
		m.picker = nil
		return p.choose(m, p.items[p.order[i]])
	case tea.KeyBackspace:
		if len(p.query) > 0 {
			p.query = p.query[:len(p.query)-1]
			p.refilter()
		}
	case tea.KeyRunes, tea.KeySpace:
		if k.Type == tea.KeySpace {
			p.query = append(p.query, ' ')
		} else if !k.Alt {
			p.query = append(p.query, k.Runes...)
		}
		p.refilter()
	}
	return nil
}

// Render draws the picker: its title, the filter, the rows and the keys.
func (p *picker) Render(width int, l *look) []string {
	out := []string{l.bold.Render(truncate(p.title, width))}
	if len(p.query) > 0 {
		out = append(out, truncate("  filter: "+string(p.query), width))
	}
	out = append(out, p.list.Render(width, l)...)
	hint := "  ↑/↓ move · enter choose · esc close · type to filter"
	if p.tabHint != "" {
		hint += " · tab " + p.tabHint
	}
	return append(out, l.dim.Render(truncate(hint, width)))
}
