package tui

import (
	"strings"
	"testing"
)

// TestInitialPromptStartsTheFirstTurn: `agent "PROMPT"` opens the chat
// with PROMPT sent as the first message, shown in the transcript at once.
func TestInitialPromptStartsTheFirstTurn(t *testing.T) {
	m, _ := newTestModel(t, Options{Engine: nopEngine{}, Prompt: "first words from the command line"})
	m.Init()
	if v := plain(m.View()); !strings.Contains(v, "first words from the command line") {
		t.Errorf("the initial prompt is not in the transcript:\n%s", v)
	}
	if m.turn == nil {
		t.Error("no turn is running after Init with a prompt")
	}

	m, _ = newTestModel(t, Options{Engine: nopEngine{}})
	m.Init()
	if m.turn != nil {
		t.Error("a turn started without a prompt")
	}
}
