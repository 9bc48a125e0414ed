package tui

import (
	"strings"
	"testing"

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
	emit(t, m, session.TurnFailed{Err: &session.TurnError{Paused: true, Exhausted: true,
		Failure: modelclient.Failure{Kind: modelclient.KindTransient, Status: 503}}})
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
