package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/agentcli/agent/tools"
)

// listenApprovals starts delivering approval requests, if there is an
// Approver.
func (m *Model) listenApprovals() tea.Cmd {
	if m.opts.Approver == nil {
		return nil
	}
	return m.opts.Approver.next(m.jobs.quit)
}

// updateApproval queues a request for the prompt and listens for the next.
// A request whose turn is over is answered AbortTurn at once.
func (m *Model) updateApproval(msg approvalMsg) tea.Cmd {
	next := m.listenApprovals()
	select {
	case <-msg.p.done:
		return tea.Batch(next, msg.p.answer(tools.Decision{Kind: tools.AbortTurn}))
	default:
	}
	if m.turn == nil || m.turn.interrupted {
		return tea.Batch(next, msg.p.answer(tools.Decision{Kind: tools.AbortTurn}))
	}
	m.approvals = append(m.approvals, msg.p)
	if b, ok := m.items["call:"+msg.p.req.CallID]; ok {
		b.c.(*toolBlock).awaiting = true
		m.tr.touch(b)
	}
	return next
}

// approvalKey answers the first request: y approves once, a approves for
// the session, n asks for a note and denies, esc or ctrl-c aborts the turn.
func (m *Model) approvalKey(k tea.KeyMsg) tea.Cmd {
	if m.noting {
		return m.noteKey(k)
	}
	// Keys by type: a single typed letter answers; text that arrives in one
	// chunk ("yes", a paste) answers nothing.
	switch k.Type {
	case tea.KeyRunes:
		if k.Paste || k.Alt || len(k.Runes) != 1 {
			return nil
		}
		switch k.Runes[0] {
		case 'y', 'Y':
			return m.answer(tools.Decision{Kind: tools.ApproveOnce})
		case 'a', 'A':
			return m.answer(tools.Decision{Kind: tools.ApproveForSession})
		case 'n', 'N':
			m.noting, m.note = true, nil
		}
	case tea.KeyEsc:
		return m.abortTurn()
	case tea.KeyCtrlC:
		m.quitArmed = m.now()
		return tea.Batch(m.abortTurn(), m.startTicking())
	}
	return nil
}

// noteKey edits the denial note: enter denies with it, esc goes back.
func (m *Model) noteKey(k tea.KeyMsg) tea.Cmd {
	switch k.Type {
	case tea.KeyEnter:
		note := strings.TrimSpace(string(m.note))
		m.noting, m.note = false, nil
		return m.answer(tools.Decision{Kind: tools.Deny, Note: note})
	case tea.KeyEsc:
		m.noting, m.note = false, nil
	case tea.KeyCtrlC:
		m.noting, m.note = false, nil
		m.quitArmed = m.now()
		return tea.Batch(m.abortTurn(), m.startTicking())
	case tea.KeyBackspace:
		if len(m.note) > 0 {
			m.note = m.note[:len(m.note)-1]
		}
	case tea.KeySpace:
		m.note = append(m.note, ' ')
	case tea.KeyRunes:
		m.note = append(m.note, []rune(strings.ReplaceAll(clean(normalizeBreaks(string(k.Runes))), "\n", " "))...)
	}
	return nil
}

// answer sends d for the first request and closes it.
func (m *Model) answer(d tools.Decision) tea.Cmd {
	p := m.approvals[0]
	m.approvals = m.approvals[1:]
	if b, ok := m.items["call:"+p.req.CallID]; ok {
		b.c.(*toolBlock).awaiting = false
		m.tr.touch(b)
	}
	return p.answer(d)
}

// abortTurn answers AbortTurn to every open request; the engine then ends
// the turn.
func (m *Model) abortTurn() tea.Cmd {
	return m.abortApprovals()
}

// abortApprovals answers AbortTurn to every open request and closes the
// prompt.
func (m *Model) abortApprovals() tea.Cmd {
	var cmds []tea.Cmd
	for len(m.approvals) > 0 {
		cmds = append(cmds, m.answer(tools.Decision{Kind: tools.AbortTurn}))
	}
	m.noting, m.note = false, nil
	return tea.Batch(cmds...)
}

// approvalView draws the prompt for the first request.
func (m *Model) approvalView() []string {
	l, req := m.look, m.approvals[0].req
	inner := max(10, m.width-4)
	var body []string
	title := "Run this command?"
	if req.Kind == "patch" {
		title = "Apply this patch?"
	}
	if n := len(m.approvals); n > 1 {
		title += fmt.Sprintf(" (1 of %d)", n)
	}
	body = append(body, l.bold.Render(title))
	if req.Kind == "patch" {
		for i, f := range req.Files {
			if i == 5 {
				body = append(body, fmt.Sprintf("  … +%d more files", len(req.Files)-i))
				break
			}
			body = append(body, truncate("  "+clean(f), inner))
		}
	} else {
		for _, ln := range wrap(clean(req.Command), inner, "  ") {
			body = append(body, l.accent.Render("$"+ln[1:]))
		}
		where := "in " + clean(req.Workdir)
		if req.Escalated {
			where += " · outside the sandbox"
		}
		body = append(body, l.dim.Render(truncate(where, inner)))
	}
	if req.Reason != "" {
		body = append(body, wrap("why: "+clean(req.Reason), inner, "")...)
	}
	body = append(body, "")
	if m.noting {
		body = append(body, "Tell the model what to do instead (enter to deny, esc to go back):")
		body = append(body, truncate("> "+string(m.note)+"█", inner))
	} else {
		k := l.key.Render
		body = append(body,
			k("y")+" approve once   "+k("a")+" approve for this session",
			k("n")+" deny with a note   "+k("esc")+" abort the turn")
	}
	box := l.r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("3")).
		Padding(0, 1).Width(m.width - 2).Render(strings.Join(body, "\n"))
	return strings.Split(box, "\n")
}
