package tui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
)

// TestPausedTurnRetryNow: a turn that ran out of its auto-continue
// schedule says so, and Ctrl+R continues it with the continuation prompt.
func TestPausedTurnRetryNow(t *testing.T) {
	m, _ := newTestModel(t, Options{})
	send(m, press("ctrl+r"))
	if m.turn != nil {
		t.Fatal("Ctrl+R started a turn with nothing paused")
	}
	m.setComposer("long task")
	send(m, press("enter"))
	emit(t, m, session.TurnFailed{Err: &session.TurnError{Outcome: modelclient.Outcome{End: modelclient.EndPaused,
		Failure: modelclient.Failure{Kind: modelclient.KindServerError, Status: 503}}}})
	done(t, m, nil)
	if v := m.View(); !strings.Contains(v, "Ctrl+R continues it now") {
		t.Errorf("no retry-now hint:\n%s", v)
	}
	send(m, tea.KeyMsg{Type: tea.KeyCtrlR})
	if m.turn == nil {
		t.Fatal("Ctrl+R did not continue the paused turn")
	}
	if !strings.Contains(m.View(), session.DefaultContinuePrompt[:30]) {
		t.Errorf("the continuation was not sent:\n%s", m.View())
	}
	if m.paused {
		t.Error("still marked paused")
	}
}

// TestPausedUntilTheServersTime: a turn the server paused until a time
// counts down to it in the status line and continues by itself when it
// comes; Esc stops waiting, and a queued message replaces the wait.
func TestPausedUntilTheServersTime(t *testing.T) {
	m, c := newTestModel(t, Options{})
	m.setComposer("long task")
	send(m, press("enter"))
	until := c.now().Add(time.Hour)
	emit(t, m, session.TurnFailed{Err: &session.TurnError{Outcome: modelclient.Outcome{End: modelclient.EndWait, Until: until,
		Failure: modelclient.Failure{Kind: modelclient.KindRateLimited, Status: 429}}}})
	done(t, m, nil)
	if m.turn != nil {
		t.Fatal("a turn started before the server's time")
	}
	v := m.View()
	for _, want := range []string{"continuing in 60m00s", "ctrl+r to continue now", "continues by itself at " + until.Local().Format("15:04:05")} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	c.advance(59 * time.Minute)
	send(m, tickMsg{})
	if m.turn != nil {
		t.Fatal("continued a minute early")
	}
	if v := m.View(); !strings.Contains(v, "continuing in 1m00s") {
		t.Errorf("countdown a minute before:\n%s", v)
	}
	c.advance(time.Minute)
	send(m, tickMsg{})
	if m.turn == nil {
		t.Fatal("the turn did not continue at the server's time")
	}
	if !strings.Contains(m.View(), session.DefaultContinuePrompt[:30]) {
		t.Errorf("the continuation was not sent:\n%s", m.View())
	}
	done(t, m, nil)

	// Esc stops the wait: time passing starts nothing.
	m, c = newTestModel(t, Options{})
	m.setComposer("task")
	send(m, press("enter"))
	emit(t, m, session.TurnFailed{Err: &session.TurnError{Outcome: modelclient.Outcome{End: modelclient.EndWait, Until: c.now().Add(time.Minute),
		Failure: modelclient.Failure{Kind: modelclient.KindRateLimited}}}})
	done(t, m, nil)
	send(m, tea.KeyMsg{Type: tea.KeyEsc})
	c.advance(2 * time.Minute)
	send(m, tickMsg{})
	if m.turn != nil {
		t.Error("the turn continued after Esc stopped the wait")
	}
}

// TestUsageLimitedGoalResumesAtTheReset: a goal a usage limit paused says
// it goes on by itself at the reset, and when the reset comes the chat
// resumes the goal (/goal resume), not a bare continuation.
func TestUsageLimitedGoalResumesAtTheReset(t *testing.T) {
	var calls []string
	c := newClock()
	ctx, cancel := context.WithCancel(context.Background())
	j := newJobs() // live: the /goal hook runs
	t.Cleanup(func() { cancel(); j.stop() })
	m := newModel(ctx, Options{Engine: nopEngine{}, Now: c.now, NoColor: true, Model: "gpt-test", Commands: Commands{Goal: func(arg string) (string, string, error) {
		calls = append(calls, arg)
		return "Goal active: ship it", "Continue working toward the goal.", nil
	}}}, j)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.setComposer("ship it")
	send(m, press("enter"))
	until := c.now().Add(time.Hour)
	emit(t, m, session.TurnFailed{Err: &session.TurnError{Outcome: modelclient.Outcome{End: modelclient.EndWait, Until: until,
		Failure: modelclient.Failure{Kind: modelclient.KindUsageLimit, Status: 429}}}},
		session.GoalUpdated{Goal: session.Goal{Objective: "ship it", Status: session.GoalUsageLimited}, Message: "Goal paused: the usage limit was reached"})
	done(t, m, nil)
	if v := plain(m.View()); !strings.Contains(v, "it goes on by itself at the reset,") || !strings.Contains(v, until.Local().Format("15:04:05")+"; /goal resume continues it now") {
		t.Errorf("the goal's pause does not say it goes on at the reset:\n%s", v)
	}
	c.advance(time.Hour)
	send(m, runCmd(send(m, tickMsg{}))...)
	if !slices.Equal(calls, []string{"resume"}) {
		t.Fatalf("goal commands at the reset: %q; want resume", calls)
	}
	if m.turn == nil || !strings.Contains(plain(m.View()), "Continue working toward the goal.") {
		t.Errorf("the goal did not resume at the reset:\n%s", plain(m.View()))
	}
}
