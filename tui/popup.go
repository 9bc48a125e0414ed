package tui

import (
	"context"
	"errors"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// mentionRows is how many files the @ popup asks the index for.
const mentionRows = 50

// popupKind is what the popup under the composer offers.
type popupKind int

const (
	popupNone    popupKind = iota
	popupSlash             // commands, for a composer holding "/NAME"
	popupMention           // files, for an "@QUERY" at the cursor
)

// popup is the list under the composer: commands while the composer holds
// a slash command's name, files while the word at the cursor starts with
// "@". It follows the composer's text (refresh); Esc closes it until the
// text changes.
type popup struct {
	kind   popupKind
	list   list
	values []string // what each row inserts or runs
	text   string   // the composer text it was made for
	closed string   // the text Esc closed it for
	query  string   // the @ query shown
	chosen bool     // a row was chosen with the arrows since the text changed

	files    *fileIndex // the @ search's index (while building: the part walked); nil until the first part
	building bool
	filesCh  chan tea.Msg // the index being built sends its parts and its end here
	seq      int          // the last @ search asked for

	// Answers of files to earlier queries: a query typed again (as after
	// a backspace) is answered at once, and a longer one is searched within
	// the matches its longest prefix answered found.
	answers   map[string]*found
	answersOf *fileIndex
}

// maxAnswers is how many answers the popup keeps before it forgets them.
const maxAnswers = 64

// filesMsg is a built file index, or (partial) the part walked so far.
type filesMsg struct {
	ix      *fileIndex
	err     error
	partial bool
}

// mentionMsg is the result of @ search seq, of index ix for query.
type mentionMsg struct {
	seq   int
	paths []string
	ix    *fileIndex
	query string
	found found
}

// refreshPopup makes the popup follow the composer's text; it returns the
// command that builds the file index or searches it, if one is needed.
func (m *Model) refreshPopup() tea.Cmd {
	v := m.composer.Value()
	p := &m.pop
	if v == p.text {
		return nil
	}
	p.text, p.chosen = v, false
	was := p.kind
	p.kind = popupNone
	if v == p.closed {
		return nil
	}
	p.closed = ""
	if name, ok := slashName(v); ok {
		p.kind = popupSlash
		m.slashRows(name)
		return nil
	}
	q, ok := m.mentionQuery()
	if !ok {
		return nil
	}
	p.kind, p.query = popupMention, q
	var cmds []tea.Cmd
	if was != popupMention && !p.building {
		cmds = append(cmds, m.indexFiles()) // refreshed each time the popup opens
	}
	if p.files != nil {
		cmds = append(cmds, m.searchFiles(q))
	} else {
		p.list.set(nil)
		p.list.empty = "indexing files…"
	}
	return tea.Batch(cmds...)
}

// slashName is the command name v holds ("/mo" → "mo"), if v is only that.
func slashName(v string) (string, bool) {
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \t\n") || strings.Contains(v[1:], "/") {
		return "", false // a path or URL is a message, not a command
	}
	return v[1:], true
}

// slashRows lists the commands that match name.
func (m *Model) slashRows(name string) {
	cmds := m.commands()
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = strings.TrimPrefix(c.name, "/")
	}
	p := &m.pop
	p.values = p.values[:0]
	var rows []listRow
	for _, i := range rank(name, names, 0) {
		c := cmds[i]
		label := c.name
		if c.args != "" {
			label += " " + c.args
		}
		rows = append(rows, listRow{label: label, detail: c.help})
		p.values = append(p.values, c.name)
	}
	p.list.set(rows)
	p.list.empty = "no command matches"
}

// mentionQuery is the query of the "@word" the cursor ends, if it does.
func (m *Model) mentionQuery() (string, bool) {
	line := m.cursorLine()
	i := strings.LastIndexAny(line, " \t")
	word := line[i+1:]
	if !strings.HasPrefix(word, "@") {
		return "", false
	}
	return word[1:], true
}

// cursorLine is the text of the cursor's line, up to the cursor.
func (m *Model) cursorLine() string {
	lines := strings.Split(m.composer.Value(), "\n")
	row := m.composer.Line()
	if row >= len(lines) {
		return ""
	}
	li := m.composer.LineInfo()
	rs := []rune(lines[row])
	return string(rs[:min(len(rs), li.StartColumn+li.ColumnOffset)])
}

// indexFiles builds the file index on a goroutine of its own; its parts
// arrive as it grows (the search answers from the first files found) and
// its end last, on pop.filesCh.
func (m *Model) indexFiles() tea.Cmd {
	m.pop.building = true
	root, ctx, quit := m.opts.Dir, m.ctx, m.jobs.quit
	if root == "" {
		root = "."
	}
	ch := make(chan tea.Msg, 1)
	m.pop.filesCh = ch
	build := m.jobs.cmd(func() tea.Msg {
		ix, err := buildFileIndex(ctx, root, func(part *fileIndex) {
			select {
			case ch <- filesMsg{ix: part, partial: true}:
			default: // the last part is not read yet: a later one will be
			}
		})
		end := filesMsg{ix: ix, err: err}
		for {
			select {
			case ch <- end:
				return nil
			case <-ch: // a part not read yet: the end replaces it
			case <-quit:
				return nil
			}
		}
	})
	return tea.Batch(build, m.jobs.receive(ch))
}

// filesIndexed adopts an index, or the part of it walked so far, and
// searches it for the query shown.
func (m *Model) filesIndexed(msg filesMsg) tea.Cmd {
	p := &m.pop
	var next tea.Cmd
	if msg.partial {
		next = m.jobs.receive(p.filesCh) // the rest is coming
	} else {
		p.building = false
	}
	if msg.err != nil && !errorsIsCanceled(msg.err) {
		p.list.empty = "cannot list the files: " + clean(msg.err.Error())
	}
	if msg.ix == nil {
		return next
	}
	p.files = msg.ix
	if p.kind == popupMention {
		return tea.Batch(next, m.searchFiles(p.query))
	}
	return next
}

// searchFiles searches the index for q on a goroutine of its own (within
// the matches of an earlier query q extends, when they are all known); only
// the answer to the last search asked is shown. A query answered before by
// this index is answered at once.
func (m *Model) searchFiles(q string) tea.Cmd {
	p := &m.pop
	p.seq++
	if p.answersOf != p.files {
		p.answers, p.answersOf = nil, p.files
	}
	if f, ok := p.answers[q]; ok {
		m.mentioned(mentionMsg{seq: p.seq, paths: f.paths})
		return nil
	}
	var prev *found
	for l := len(q) - 1; l > 0 && prev == nil; l-- {
		prev = p.answers[q[:l]]
	}
	seq, ix := p.seq, p.files
	return m.jobs.cmd(func() tea.Msg {
		f := ix.find(q, mentionRows, prev)
		return mentionMsg{seq: seq, paths: f.paths, ix: ix, query: q, found: f}
	})
}

// mentioned shows the files a search found, and keeps the answer.
func (m *Model) mentioned(msg mentionMsg) {
	p := &m.pop
	if msg.ix != nil && msg.ix == p.answersOf {
		if len(p.answers) >= maxAnswers || p.answers == nil {
			p.answers = map[string]*found{}
		}
		p.answers[msg.query] = &msg.found
	}
	if msg.seq != p.seq || p.kind != popupMention {
		return
	}
	rows := make([]listRow, len(msg.paths))
	for i, f := range msg.paths {
		rows[i] = listRow{label: f}
	}
	p.values = msg.paths
	p.list.set(rows)
	p.list.empty = "no file matches"
}

// popupKey handles the keys the open popup takes; ok is false for the
// others.
func (m *Model) popupKey(k tea.KeyMsg) (tea.Cmd, bool) {
	p := &m.pop
	if p.kind == popupNone || k.Alt || k.Paste {
		return nil, false
	}
	i := p.list.selected()
	switch k.Type {
	case tea.KeyUp, tea.KeyDown:
		if i < 0 {
			return nil, false
		}
		p.chosen = true
		if k.Type == tea.KeyUp {
			p.list.move(-1)
		} else {
			p.list.move(1)
		}
		return nil, true
	case tea.KeyEsc:
		p.closed, p.kind = m.composer.Value(), popupNone
		return nil, true
	case tea.KeyTab, tea.KeyEnter:
		if i < 0 {
			return nil, false
		}
		if p.kind == popupMention {
			m.insertMention(p.values[i])
			return nil, true
		}
		name := p.values[i]
		if k.Type == tea.KeyTab {
			m.setComposer(name + " ")
			return nil, true
		}
		// Enter runs what was typed: the row chosen with the arrows, or
		// the command the typed name is or begins; never a fuzzy match of
		// another name ("/rc" is not "/prompts:ticket").
		if typed := strings.TrimSpace(m.composer.Value()); !p.chosen && (m.known(typed) || !strings.HasPrefix(name, typed)) {
			return m.submit(), true
		}
		m.setComposer(name)
		return m.submit(), true
	}
	return nil, false
}

// insertMention replaces the "@query" before the cursor with the path.
func (m *Model) insertMention(path string) {
	_, ok := m.mentionQuery()
	if !ok {
		return
	}
	line := m.cursorLine()
	word := line[strings.LastIndexAny(line, " \t")+1:]
	for range []rune(word) {
		m.composer, _ = m.composer.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	if strings.ContainsAny(path, " \t") {
		path = `"` + path + `"`
	}
	m.composer.InsertString(path + " ")
	m.fitComposer()
}

// popupView draws the popup under the composer.
func (m *Model) popupView() []string {
	if m.pop.kind == popupNone {
		return nil
	}
	return m.pop.list.Render(m.width, m.look)
}

func errorsIsCanceled(err error) bool { return errors.Is(err, context.Canceled) }
