package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/agentcli/agent/tools"
)

// askPrompt is one pending request_user_input call. reply has room for
// one answer, so answering never blocks; done is the turn's ctx.Done().
type askPrompt struct {
	req   tools.UserInputRequest
	reply chan askReply
	done  <-chan struct{}
}

// askReply is the person's answers by question id, or ok false: the turn
// was ended instead.
type askReply struct {
	answers map[string][]string
	ok      bool
}

// askMsg delivers a request to Update.
type askMsg struct{ p askPrompt }

// askState is the chat's state of one request: the question shown, the
// choice and note of each question.
type askState struct {
	p      askPrompt
	at     int      // the question shown
	choice []int    // per question: the chosen option, -1 none
	notes  [][]rune // per question: the note typed
	noting bool     // typing the shown question's note
}

// updateAsk queues a request for the prompt and listens for the next. A
// request whose turn is over is answered as cancelled at once.
func (m *Model) updateAsk(msg askMsg) tea.Cmd {
	next := m.listenApprovals()
	select {
	case <-msg.p.done:
		return tea.Batch(next, msg.p.send(askReply{}))
	default:
	}
	if m.turn == nil || m.turn.interrupted {
		return tea.Batch(next, msg.p.send(askReply{}))
	}
	n := len(msg.p.req.Questions)
	st := &askState{p: msg.p, choice: make([]int, n), notes: make([][]rune, n)}
	for i := range st.choice {
		st.choice[i] = -1
	}
	m.asks = append(m.asks, st)
	m.awaiting(msg.p.req.CallID, true)
	return next
}

// send returns a command that sends r to the engine; a second answer is
// dropped.
func (p askPrompt) send(r askReply) tea.Cmd {
	return func() tea.Msg {
		select {
		case p.reply <- r:
		default:
		}
		return nil
	}
}

// awaiting marks the tool call's block as waiting for the person, or not.
func (m *Model) awaiting(callID string, on bool) {
	if b, ok := m.items["call:"+callID]; ok {
		if tb, ok := b.c.(*toolBlock); ok {
			tb.awaiting = on
			m.tr.touch(b)
		}
	}
}

// closeAsk sends r for the first request and closes it.
func (m *Model) closeAsk(r askReply) tea.Cmd {
	st := m.asks[0]
	m.asks = m.asks[1:]
	m.awaiting(st.p.req.CallID, false)
	return st.p.send(r)
}

// answers are the person's answers by question id, as Codex sends them:
// the chosen option's label, then the note marked [tools.NotePrefix].
func (st *askState) answers() map[string][]string {
	out := map[string][]string{}
	for i, q := range st.p.req.Questions {
		a := []string{}
		if c := st.choice[i]; c >= 0 && c < len(q.Options) {
			a = append(a, q.Options[c].Label)
		}
		if note := strings.TrimSpace(string(st.notes[i])); note != "" {
			a = append(a, tools.NotePrefix+note)
		}
		out[q.ID] = a
	}
	return out
}

// askKey answers the shown question: up and down choose, a digit chooses
// and goes on, enter goes on (submitting after the last question), tab or
// typing adds a note, ctrl+p and ctrl+n move between questions, esc ends
// the turn.
func (m *Model) askKey(k tea.KeyMsg) tea.Cmd {
	st := m.asks[0]
	if st.noting {
		return m.askNoteKey(st, k)
	}
	opts := len(st.p.req.Questions[st.at].Options)
	switch k.Type {
	case tea.KeyUp:
		st.choice[st.at] = (max(st.choice[st.at], 0) + opts - 1) % opts
	case tea.KeyDown:
		st.choice[st.at] = (st.choice[st.at] + 1) % opts
	case tea.KeyEnter:
		return m.askNext(st)
	case tea.KeyTab:
		st.noting = true
	case tea.KeyCtrlP:
		st.at = max(0, st.at-1)
	case tea.KeyCtrlN:
		st.at = min(len(st.choice)-1, st.at+1)
	case tea.KeyEsc:
		return m.abortTurn()
	case tea.KeyCtrlC:
		m.quitArmed = m.now()
		return tea.Batch(m.abortTurn(), m.startTicking())
	case tea.KeyRunes, tea.KeySpace:
		r := k.Runes
		if k.Type == tea.KeySpace {
			r = []rune{' '}
		}
		if !k.Paste && len(r) == 1 && r[0] >= '1' && r[0] <= '9' && int(r[0]-'1') < opts {
			st.choice[st.at] = int(r[0] - '1')
			return m.askNext(st)
		}
		st.noting = true // typing starts a note, as in Codex
		return m.askNoteKey(st, k)
	}
	return nil
}

// askNoteKey edits the shown question's note: enter goes on, esc stops
// editing it.
func (m *Model) askNoteKey(st *askState, k tea.KeyMsg) tea.Cmd {
	note := &st.notes[st.at]
	switch k.Type {
	case tea.KeyEnter:
		st.noting = false
		return m.askNext(st)
	case tea.KeyEsc:
		st.noting = false
	case tea.KeyCtrlC:
		st.noting = false
		m.quitArmed = m.now()
		return tea.Batch(m.abortTurn(), m.startTicking())
	case tea.KeyBackspace:
		if len(*note) > 0 {
			*note = (*note)[:len(*note)-1]
		}
	case tea.KeySpace:
		*note = append(*note, ' ')
	case tea.KeyRunes:
		*note = append(*note, []rune(strings.ReplaceAll(clean(normalizeBreaks(string(k.Runes))), "\n", " "))...)
	}
	return nil
}

// askNext shows the next question, or sends the answers after the last.
func (m *Model) askNext(st *askState) tea.Cmd {
	if st.at+1 < len(st.choice) {
		st.at++
		return nil
	}
	return m.closeAsk(askReply{answers: st.answers(), ok: true})
}

// askView draws the shown question: its header and text, the choices
// with their descriptions, the note, and the keys.
func (m *Model) askView() []string {
	l, st := m.look, m.asks[0]
	q := st.p.req.Questions[st.at]
	inner := max(10, m.width-4)
	unanswered := 0
	for i := range st.choice {
		if st.choice[i] < 0 && strings.TrimSpace(string(st.notes[i])) == "" {
			unanswered++
		}
	}
	title := fmt.Sprintf("Question %d/%d (%d unanswered)", st.at+1, len(st.choice), unanswered)
	body := []string{l.dim.Render(title)}
	if h := clean(q.Header); h != "" {
		body = append(body, l.bold.Render(truncate(h, inner)))
	}
	body = append(body, wrap(clean(q.Question), inner, "")...)
	body = append(body, "")
	for i, o := range q.Options {
		mark := "( )"
		if st.choice[st.at] == i {
			mark = "(•)"
		}
		line := fmt.Sprintf("%s %d. %s", mark, i+1, clean(o.Label))
		if d := clean(o.Description); d != "" {
			line += "  " + d
		}
		line = truncate(line, inner)
		if st.choice[st.at] == i {
			line = l.accent.Render(line)
		}
		body = append(body, line)
	}
	if st.noting || len(st.notes[st.at]) > 0 {
		cursor := ""
		if st.noting {
			cursor = "█"
		}
		body = append(body, "", truncate("note: "+string(st.notes[st.at])+cursor, inner))
	}
	k := l.key.Render
	next := "next"
	if st.at+1 == len(st.choice) {
		next = "submit"
	}
	body = append(body, "", k("↑/↓")+" choose   "+k("1-9")+" pick   "+k("tab")+" add a note   "+
		k("enter")+" "+next+"   "+k("esc")+" interrupt")
	box := l.r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("6")).
		Padding(0, 1).Width(m.width - 2).Render(strings.Join(body, "\n"))
	return strings.Split(box, "\n")
}
