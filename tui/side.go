package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/transport"
)

// sideConv is a side conversation (/side, as Codex's): questions asked
// aside from the conversation, with its history as context, whose
// exchanges enter neither the history nor the recording. It has a
// transcript of its own, shown in place of the conversation's until Esc
// returns to it.
type sideConv struct {
	main        *transcript // the conversation's transcript, shown again on leaving
	mainFollow  bool
	mainTop     int
	mainPrinted int
	// earlier are the side's exchanges so far, sent with the next question.
	earlier []transport.Item
}

// sideAnswer is a side question's answer, for commandDone.
type sideAnswer struct {
	text     string
	exchange []transport.Item
}

// sideCmd is /side [QUESTION]: it opens the side conversation (if not
// open) and asks QUESTION there.
func (m *Model) sideCmd(arg string) tea.Cmd {
	if m.opts.Commands.Side == nil {
		return m.unavailable("/side")
	}
	if m.side == nil {
		if m.turn != nil || m.busy != nil {
			m.tr.add(&notice{level: levelWarn, text: "wait for the current turn to end (esc interrupts it), then try /side again"})
			m.follow = true
			return nil
		}
		m.enterSide()
	}
	if arg == "" {
		return nil
	}
	return m.askSide(arg)
}

// enterSide shows the side conversation's transcript in place of the
// conversation's.
func (m *Model) enterSide() {
	m.side = &sideConv{main: m.tr, mainFollow: m.follow, mainTop: m.top, mainPrinted: m.printed}
	m.tr, m.printed, m.follow = newTranscript(), 0, true
	m.tr.add(&notice{level: levelInfo, text: "Side conversation",
		body: []string{"  Asked with the conversation as context; nothing said here enters it or its recording."},
		hint: []string{"esc (empty composer) returns to the conversation"}})
}

// leaveSide shows the conversation's transcript again; the side's
// exchanges are dropped.
func (m *Model) leaveSide() {
	s := m.side
	if s == nil {
		return
	}
	m.side = nil
	m.tr, m.follow, m.top, m.printed = s.main, s.mainFollow, s.mainTop, s.mainPrinted
}

// askSide sends question to the side conversation.
func (m *Model) askSide(question string) tea.Cmd {
	c := m.opts.Commands
	if m.turn != nil || m.busy != nil {
		m.tr.add(&notice{level: levelWarn, text: "wait for the answer (esc cancels it), then ask again"})
		return nil
	}
	m.tr.add(userMsg{text: clean(question)})
	m.follow = true
	earlier := append([]transport.Item(nil), m.side.earlier...)
	return m.exclusive("Asking aside", func(ctx context.Context) commandMsg {
		text, ex, err := c.Side(ctx, earlier, question)
		return commandMsg{side: &sideAnswer{text: text, exchange: ex}, err: err}
	})
}

// sideAnswered shows a side question's answer and keeps the exchange.
func (m *Model) sideAnswered(a *sideAnswer) {
	if m.side == nil { // left meanwhile
		return
	}
	m.side.earlier = append(m.side.earlier, a.exchange...)
	m.tr.add(&agentMsg{done: true, text: clean(a.text)})
	m.follow = true
}

// sideSlash runs a slash command typed in the side conversation: /side
// asks, /help, /quit and /exit work as anywhere; the others wait until
// the conversation is back.
func (m *Model) sideSlash(name, text string) tea.Cmd {
	switch name {
	case "/side", "/help", "/quit", "/exit":
		return m.slash(text)
	}
	m.tr.add(&notice{level: levelInfo, text: name + " works in the conversation: esc (empty composer) returns to it"})
	m.follow = true
	return nil
}
