package tui

import (
	"context"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// Plan mode in the chat, as Codex's /plan: the next turns plan without
// changing anything; the plan the model proposes is shown as a plan, and
// after the turn (or when the user leaves plan mode) the chat offers to
// carry it out.

// implementPrompt is what the chat sends to carry a plan out, as Codex.
const implementPrompt = "Implement the plan."

// planMode reports whether the session in use is in plan mode.
func (m *Model) planMode() bool {
	f := m.opts.Commands.Mode
	return f != nil && f() == "plan"
}

// planCmd is /plan [PROMPT]: it turns plan mode on (and sends PROMPT,
// when given, in it); in plan mode, /plan alone leaves it, offering to
// carry the last proposed plan out first.
func (m *Model) planCmd(arg string) tea.Cmd {
	c := m.opts.Commands
	if c.SetMode == nil {
		return m.unavailable("/plan")
	}
	if m.planMode() && arg == "" {
		if m.proposed != "" {
			return m.offerPlan()
		}
		return m.setMode("default", "")
	}
	return m.setMode("plan", arg)
}

// setMode switches the session to mode from its next turn on, then sends
// send (when not "").
func (m *Model) setMode(mode, send string) tea.Cmd {
	set := m.opts.Commands.SetMode
	if mode == "default" {
		m.proposed = ""
	}
	return m.hook(func(ctx context.Context) commandMsg {
		line, err := set(ctx, mode)
		return commandMsg{info: line, err: err, send: send}
	})
}

// offerPlan asks whether to carry the proposed plan out: yes leaves plan
// mode and sends [implementPrompt]; no stays in plan mode.
func (m *Model) offerPlan() tea.Cmd {
	p := &picker{title: "Implement this plan?", choose: func(m *Model, it pickItem) tea.Cmd {
		if it.value == "yes" {
			return m.setMode("default", implementPrompt)
		}
		m.info("Staying in plan mode: say what to change, or /plan to leave it.", nil)
		return nil
	}}
	p.items = []pickItem{
		{listRow: listRow{label: "Yes, implement this plan", detail: "leave plan mode and carry it out"}, value: "yes"},
		{listRow: listRow{label: "No, stay in Plan mode", detail: "keep refining the plan"}, value: "no"},
	}
	m.openPicker(p)
	return nil
}

// showPlan renders an answer's <proposed_plan> block as the plan it is:
// the tags become a heading, the plan stays as the model wrote it.
func showPlan(text string) string {
	if !strings.Contains(text, "<proposed_plan>") {
		return text
	}
	text = strings.Replace(text, "<proposed_plan>", "**Proposed plan**\n", 1)
	return strings.Replace(text, "</proposed_plan>", "", 1)
}

// goalCmd is /goal [OBJECTIVE|pause|resume|clear]; a new or resumed goal
// is pursued from the message it sends.
func (m *Model) goalCmd(arg string) tea.Cmd {
	f := m.opts.Commands.Goal
	if f == nil {
		return m.unavailable("/goal")
	}
	return m.hook(func(context.Context) commandMsg {
		info, send, err := f(arg)
		return commandMsg{info: info, send: send, err: err}
	})
}
