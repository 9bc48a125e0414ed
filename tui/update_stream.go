package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// turn is the running turn. ctx is the context the engine's Turn got; it
// lives as long as the turn, and cancel ends it (interrupt).
type turn struct {
	id          int
	ctx         context.Context
	cancel      context.CancelFunc
	events      chan tea.Msg
	started     time.Time
	interrupted bool
	failed      bool               // a TurnFailed was shown
	retry       *modelclient.Retry // the retry being waited for, if any
	retryAt     time.Time          // when it will be tried
	retryNow    bool               // the user asked to retry without waiting
	retryNote   *block             // this turn's retry record in the transcript
	discarded   int                // partial items retracted by retries
	// retracted are partial items of a failed attempt, marked on screen
	// until the next attempt shows progress, which removes them; when the
	// turn fails instead, they stay, marked.
	retracted []*block
	// first is the index of the turn's first block after the user's
	// message: the blocks before it no longer change.
	first int
}

// streamMsg is one engine event of turn id.
type streamMsg struct {
	turn int
	ev   session.Event
}

// turnDoneMsg says turn id's Turn returned err. It travels the events
// channel after the last event.
type turnDoneMsg struct {
	turn int
	err  error
}

// eventBuffer lets the engine run a little ahead of the screen.
const eventBuffer = 64

// startTurn shows input and runs it as a turn.

// startTurnAs starts a turn on input that the transcript shows as shown;
// run, when set, runs it instead of the engine's Turn (a review).
func (m *Model) startTurnAs(shown, input string, run func(ctx context.Context, eng Engine, emit func(session.Event)) error) tea.Cmd {
	m.resumeAt, m.paused = time.Time{}, false
	m.leaveSide() // a turn of the conversation shows the conversation
	m.tr.add(userMsg{text: clean(shown)})
	m.follow = true
	ctx, cancel := context.WithCancel(m.ctx)
	m.turnSeq++
	t := &turn{id: m.turnSeq, ctx: ctx, cancel: cancel, events: make(chan tea.Msg, eventBuffer), started: m.now(),
		first: len(m.tr.blocks)}
	m.turn = t
	if run == nil {
		run = func(ctx context.Context, eng Engine, emit func(session.Event)) error {
			return eng.Turn(ctx, input, emit)
		}
	}
	return tea.Batch(m.runTurn(ctx, t, run), m.jobs.receive(t.events), m.startTicking())
}

// runTurn is the command that runs the engine's Turn on a goroutine owned
// by Run. Events and the end travel t.events, in order.
func (m *Model) runTurn(ctx context.Context, t *turn, run func(ctx context.Context, eng Engine, emit func(session.Event)) error) tea.Cmd {
	eng, ch, quit, id := m.engine, t.events, m.jobs.quit, t.id
	return m.jobs.cmd(func() tea.Msg {
		send := func(msg tea.Msg) {
			select {
			case ch <- msg:
			case <-quit:
			}
		}
		err := run(ctx, eng, func(ev session.Event) { send(streamMsg{turn: id, ev: ev}) })
		send(turnDoneMsg{turn: id, err: err})
		return nil
	})
}

// updateStream applies one event and re-arms the reader.
func (m *Model) updateStream(msg streamMsg) tea.Cmd {
	if m.turn == nil || msg.turn != m.turn.id {
		return nil // a stale turn's event
	}
	m.apply(msg.ev)
	return m.jobs.receive(m.turn.events)
}

// apply shows one event.
func (m *Model) apply(ev session.Event) {
	switch ev.(type) {
	case session.Retracted, session.TurnFailed, session.TurnStarted:
	default: // anything else means another attempt is under way
		m.dropRetracted()
	}
	switch ev := ev.(type) {
	case session.TextDelta, session.ReasoningDelta, session.MessageDone, session.ReasoningDone:
		m.turn.retry = nil
		m.applyText(ev)
	case session.Retracted:
		m.retract(ev.ItemIDs)
	case session.Retry:
		m.retrying(ev.Retry)
	case session.ProviderSwitch:
		m.tr.add(&notice{level: levelWarn, text: clean(ev.Notice())})
	case session.ReviewStarted:
		m.tr.add(&notice{level: levelInfo, text: "review: " + clean(ev.Target)})
	case session.WebSearchDone:
		m.tr.add(&notice{level: levelInfo, text: "🔎 Searched the web: " + clean(ev.Query)})
	case session.Warning:
		m.tr.add(&notice{level: levelWarn, text: clean(ev.Message)})
		m.unsaved = m.unsaved || ev.NotSaved
	case session.HookRun:
		lv := levelInfo
		if ev.Notable() {
			lv = levelWarn
		}
		m.tr.add(&notice{level: lv, text: clean(ev.Notice())})
	case session.PlanProposed:
		m.proposed = ev.Plan
	case session.GoalUpdated:
		m.goalLimited = ev.Goal.Status == session.GoalUsageLimited
		if ev.Message != "" {
			text := ev.Message
			switch st := ev.Goal.Status; {
			case st == session.GoalUsageLimited && !m.resumeAt.IsZero():
				text += " (it goes on by itself at the reset, " + m.resumeAt.Local().Format("15:04:05") + "; /goal resume continues it now)"
			case st == session.GoalUsageLimited || st == session.GoalPaused:
				text += " (/goal resume continues it)"
			}
			m.tr.add(&notice{level: levelInfo, text: clean(text)})
		}
	case session.HookStopped:
		m.tr.add(&notice{level: levelWarn, text: clean(ev.Notice())})
	case session.ToolCallBegin:
		m.turn.retry = nil
		b := m.tool(ev.Call)
		for _, p := range m.approvals { // the request can overtake the event
			if p.req.CallID == ev.Call.ID {
				b.c.(*toolBlock).awaiting = true
			}
		}
	case session.ToolCallEnd:
		m.turn.retry = nil
		b := m.tool(ev.Call)
		tb := b.c.(*toolBlock)
		res := ev.Result
		tb.res, tb.awaiting = &res, false
		m.tr.touch(b)
		delete(m.items, "call:"+ev.Call.ID)
	case session.TurnCompleted:
		m.turn.retry = nil
		m.last, m.total, m.cost = ev.Last, ev.Total, ev.TotalCost
	case session.TurnFailed:
		m.turn.retry = nil
		m.turn.failed = true
		m.failed(ev.Err)
	}
}

// applyText shows streamed or completed text.
func (m *Model) applyText(ev session.Event) {
	switch ev := ev.(type) {
	case session.TextDelta:
		b := m.item(ev.ItemID, func() component { return &agentMsg{} })
		if a, ok := b.c.(*agentMsg); ok && !a.done {
			a.stream.write(ev.Delta)
			m.tr.touch(b)
		}
	case session.ReasoningDelta:
		b := m.item(ev.ItemID, func() component { return &reasoningMsg{} })
		if r, ok := b.c.(*reasoningMsg); ok && !r.done {
			r.stream.write(ev.Delta)
			m.tr.touch(b)
		}
	case session.MessageDone:
		m.lastAnswer = ev.Text
		b := m.item(ev.ItemID, func() component { return &agentMsg{} })
		b.c = &agentMsg{done: true, text: clean(showPlan(ev.Text))}
		m.tr.touch(b)
		delete(m.items, ev.ItemID)
	case session.ReasoningDone:
		b := m.item(ev.ItemID, func() component { return &reasoningMsg{} })
		b.c = &reasoningMsg{done: true, text: clean(ev.Text)}
		m.tr.touch(b)
		delete(m.items, ev.ItemID)
	}
}

// item returns the streaming block for id, creating it with mk.
func (m *Model) item(id string, mk func() component) *block {
	if b, ok := m.items[id]; ok {
		return b
	}
	b := m.tr.add(mk())
	m.items[id] = b
	return b
}

// tool returns the block of call, creating it.
func (m *Model) tool(call tools.Call) *block {
	return m.item("call:"+call.ID, func() component { return &toolBlock{call: call} })
}

// retract marks the partial text of the listed items as not kept. When
// the next attempt starts (a retry, a fallback, new output) they are
// removed, so nothing appears twice; when the turn ends instead (the user
// interrupted, or the retries ran out), they stay, marked.
func (m *Model) retract(ids []string) {
	why := "the connection failed"
	if m.turn.interrupted {
		why = "interrupted"
	}
	for _, id := range ids {
		b, ok := m.items[id]
		if !ok {
			continue
		}
		delete(m.items, id)
		switch c := b.c.(type) {
		case *agentMsg:
			c.discarded = why
		case *reasoningMsg:
			c.discarded = why
		}
		m.tr.touch(b)
		if !m.turn.interrupted {
			m.turn.retracted = append(m.turn.retracted, b)
		}
	}
}

// dropRetracted removes the marked partial items: another attempt runs.
func (m *Model) dropRetracted() {
	t := m.turn
	if len(t.retracted) == 0 {
		return
	}
	for _, b := range t.retracted {
		m.tr.remove(b)
	}
	t.discarded += len(t.retracted)
	t.retracted = nil
	m.noteRetries()
}

// retrying records a retry: the status line counts down to it, and the
// turn's retry record in the transcript says what happened.
func (m *Model) retrying(r modelclient.Retry) {
	t := m.turn
	t.retry = &r
	t.retryAt = m.now().Add(r.Delay)
	t.retryNow = false
	m.retries++
	m.noteRetries()
}

// noteRetries updates the turn's retry record.
func (m *Model) noteRetries() {
	t := m.turn
	if t.retry == nil && t.retryNote == nil {
		return
	}
	if t.retryNote == nil {
		t.retryNote = m.tr.add(&notice{level: levelRetry})
	}
	n := t.retryNote.c.(*notice)
	if t.retry != nil {
		n.text = clean(session.RetryNotice(*t.retry, t.retry.Delay))
	}
	if t.discarded > 0 {
		n.hint = []string{"the partial answer was discarded; the retry streams it again"}
	}
	m.tr.touch(t.retryNote)
}

// failed shows why the turn failed and what to do about it.
func (m *Model) failed(err *session.TurnError) {
	if err == nil {
		m.tr.add(&notice{level: levelError, text: "the turn failed"})
		return
	}
	if err.Failure.Kind == modelclient.KindCanceled {
		m.tr.add(&notice{level: levelInterrupted, text: "Interrupted"})
		return
	}
	m.paused = err.Paused()
	if until := err.ContinueAt(); !until.IsZero() {
		m.resumeAt = until
	}
	text := err.Error()
	switch {
	case err.Retries == 1:
		text += " (1 retry)"
	case err.Retries > 1:
		text += fmt.Sprintf(" (%d retries)", err.Retries)
	}
	m.tr.add(&notice{level: levelError, text: text, hint: failureHints(err, len(m.queue))})
}

// failureHints says what the user can do after a failure.
func failureHints(err *session.TurnError, queued int) []string {
	var h []string
	switch {
	case !err.ContinueAt().IsZero():
		h = append(h, "It continues by itself at "+err.ContinueAt().Local().Format("15:04:05")+
			" (the status line counts down); Ctrl+R continues it now, Esc stops waiting.")
	case err.Paused():
		h = append(h, "The turn is paused with its history kept: Ctrl+R continues it now.")
	}
	switch err.Failure.Kind {
	case modelclient.KindContextWindow:
		h = append(h, "/compact shrinks the conversation; /new starts over.")
	case modelclient.KindAuth:
		h = append(h, "Run `agent login` (or fix the API key), then send the message again.")
	case modelclient.KindQuota, modelclient.KindUsageLimit:
		h = append(h, "/status shows the provider in use.")
	case modelclient.KindInvalidRequest, modelclient.KindPermanent, modelclient.KindUpgradeRequired:
		h = append(h, "/status shows the provider and transport in use.")
	default:
		h = append(h, "Check the network, then press ↑ and Enter to send your message again.")
	}
	switch {
	case queued == 1:
		h = append(h, "Your queued message will be sent now.")
	case queued > 1:
		h = append(h, fmt.Sprintf("Your %d queued messages will be sent now, one turn each.", queued))
	}
	return h
}

// turnDone ends the turn: pending prompts close, and the next queued
// message is sent (after a failure too). After an interrupt the queued
// messages go back to the composer instead: the user stopped on purpose.
func (m *Model) turnDone(msg turnDoneMsg) tea.Cmd {
	t := m.turn
	if t == nil || msg.turn != t.id {
		return nil
	}
	t.cancel()
	m.turn = nil
	m.items = map[string]*block{}
	cmd := m.abortApprovals()
	canceled := t.interrupted || errors.Is(msg.err, context.Canceled)
	if msg.err != nil && !t.failed {
		var te *session.TurnError
		if errors.As(msg.err, &te) {
			m.failed(te)
		} else if !canceled {
			m.tr.add(&notice{level: levelError, text: clean(msg.err.Error())})
		} else {
			m.tr.add(&notice{level: levelInterrupted, text: "Interrupted"})
		}
	}
	if canceled && len(m.queue) > 0 {
		m.restoreQueue()
		return cmd
	}
	if msg.err == nil && m.proposed != "" && len(m.queue) == 0 && m.planMode() {
		return tea.Batch(cmd, m.offerPlan()) // as Codex: carry the plan out?
	}
	if !m.resumeAt.IsZero() && len(m.queue) == 0 {
		return tea.Batch(cmd, m.startTicking()) // count down to the reset
	}
	return tea.Batch(cmd, m.sendQueued())
}

// sendQueued starts the first queued message, if nothing runs.
func (m *Model) sendQueued() tea.Cmd {
	if m.turn != nil || m.busy != nil || len(m.queue) == 0 {
		return nil
	}
	next := m.queue[0]
	m.queue = m.queue[1:]
	return m.startTurn(next)
}

// interrupt cancels the running turn. Its end arrives as usual.
func (m *Model) interrupt() tea.Cmd {
	if m.turn == nil || m.turn.interrupted {
		return nil
	}
	m.turn.interrupted = true
	m.turn.retry = nil
	m.turn.cancel()
	return m.abortApprovals()
}

// startTicking starts the redraw ticks if they are not running.
func (m *Model) startTicking() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return m.jobs.tick(tickInterval)
}

// updateTick redraws (the view reads the clock) and keeps ticking while
// something runs or a quit is armed.
func (m *Model) updateTick() tea.Cmd {
	armed := !m.quitArmed.IsZero() && m.now().Sub(m.quitArmed) <= quitWindow
	if !m.resumeAt.IsZero() && m.turn == nil && m.busy == nil && !m.now().Before(m.resumeAt) {
		// The server's time has come: the paused turn goes on, or the goal
		// a usage limit paused resumes.
		m.ticking = false
		if m.goalLimited && m.opts.Commands.Goal != nil {
			m.goalLimited = false
			return m.goalCmd("resume")
		}
		return m.startTurn(session.DefaultContinuePrompt)
	}
	if m.turn == nil && m.busy == nil && !armed && m.resumeAt.IsZero() {
		m.ticking = false
		return nil
	}
	return m.jobs.tick(tickInterval)
}

// retryNow ends the wait of the turn's pending retry: the next attempt
// starts at once.
func (m *Model) retryNow() {
	t := m.turn
	if t == nil || t.retry == nil || t.retryNow || !session.RetryNowAllowed(*t.retry) {
		return
	}
	t.retryNow = true
	m.engine.RetryNow()
}
