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
	case tea.KeyUp:
		m.scrollApproval(-1)
	case tea.KeyDown:
		m.scrollApproval(1)
	case tea.KeyPgUp:
		m.scrollApproval(-max(1, m.height/2))
	case tea.KeyPgDown:
		m.scrollApproval(max(1, m.height/2))
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
	m.approvalTop = 0
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
	for len(m.asks) > 0 {
		cmds = append(cmds, m.closeAsk(askReply{}))
	}
	m.noting, m.note = false, nil
	return tea.Batch(cmds...)
}

// approvalView draws the prompt for the first request: a command once,
// wrapped, with where it runs; a patch with its files and its coloured
// diff, scrolled with Up, Down, PgUp and PgDn.
func (m *Model) approvalView() []string {
	l, req := m.look, m.approvals[0].req
	inner := max(10, m.width-4)
	var body []string
	title := "Run this command?"
	switch req.Kind {
	case "patch":
		title = "Apply this patch?"
		if n := len(req.Files); n > 1 {
			title = fmt.Sprintf("Apply this patch to %d files?", n)
		}
	case "mcp":
		title = "Call this tool?"
	}
	if n := len(m.approvals); n > 1 {
		title += fmt.Sprintf(" (1 of %d)", n)
	}
	body = append(body, l.bold.Render(title))
	var tail []string
	if req.Reason != "" {
		tail = append(tail, wrap("why: "+clean(req.Reason), inner, "")...)
	}
	tail = append(tail, "")
	if m.noting {
		tail = append(tail, "Tell the model what to do instead (enter to deny, esc to go back):")
		tail = append(tail, truncate("> "+string(m.note)+"█", inner))
	} else {
		k := l.key.Render
		tail = append(tail,
			k("y")+" approve once   "+k("a")+" approve for this session",
			k("n")+" deny with a note   "+k("esc")+" abort the turn")
	}
	if req.Kind == "patch" {
		if len(req.Files) > 1 {
			for i, f := range req.Files {
				if i == 5 {
					body = append(body, fmt.Sprintf("  … +%d more files", len(req.Files)-i))
					break
				}
				body = append(body, truncate("  "+clean(f), inner))
			}
		}
		if req.Escalated {
			body = append(body, l.dim.Render("writes outside the sandbox's writable roots"))
		}
		body = append(body, m.approvalDiff(req, inner, len(body)+len(tail))...)
	} else {
		for i, ln := range wrap(clean(req.Command), inner, "  ") {
			if i == 0 {
				ln = "$" + ln[1:]
			}
			body = append(body, l.accent.Render(ln))
		}
		if req.Workdir != "" {
			where := "in " + clean(req.Workdir)
			if req.Escalated {
				where += " · outside the sandbox"
			}
			body = append(body, l.dim.Render(truncate(where, inner)))
		}
	}
	body = append(body, tail...)
	box := l.r.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("3")).
		Padding(0, 1).Width(m.width - 2).Render(strings.Join(body, "\n"))
	return strings.Split(box, "\n")
}

// approvalDiff is the window of the patch's diff that fits the screen next
// to the prompt's other lines (used), with a line saying where it is.
func (m *Model) approvalDiff(req tools.ApprovalRequest, width, used int) []string {
	if strings.TrimSpace(req.Diff) == "" {
		if len(req.Files) == 1 {
			return []string{truncate("  "+clean(req.Files[0]), width)}
		}
		return nil
	}
	lines := diffView(clean(req.Diff), width, 0, m.look)
	// Leave the status line, the box's border and a few transcript lines.
	rows := max(3, m.height-used-2-1-3-1)
	if len(lines) <= rows {
		m.approvalTop = 0
		return lines
	}
	m.approvalTop = max(0, min(m.approvalTop, len(lines)-rows))
	out := append([]string(nil), lines[m.approvalTop:m.approvalTop+rows]...)
	return append(out, m.look.dim.Render(fmt.Sprintf("lines %d–%d of %d · ↑ ↓ PgUp PgDn scroll",
		m.approvalTop+1, m.approvalTop+rows, len(lines))))
}

// scrollApproval moves the patch diff's window by n lines (clamped when
// drawn).
func (m *Model) scrollApproval(n int) {
	m.approvalTop = max(0, m.approvalTop+n)
}
