package tui

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentcli/agent/internal/subagent"
	"github.com/agentcli/agent/rollout"
)

// TestAgentsCommand: a line per change of a subagent in the transcript,
// /agents lists them, /agents N shows one's conversation from its
// recording.
func TestAgentsCommand(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	r, err := rollout.Create(t.Context(), home, rollout.SessionMeta{ID: rollout.NewID(), Cwd: home}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []rollout.EventMsg{{Type: rollout.EventUserMessage, Message: "count the files"},
		{Type: rollout.EventAgentMessage, Message: "there are 12 files"}} {
		if err := r.AppendEvent(ev); err != nil {
			t.Fatal(err)
		}
	}
	path := r.Path()
	r.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	tree := &subagent.Tree{}
	n := NewNotifier()
	m := newLiveModel(t, Options{Notices: n, Commands: Commands{Agents: tree.List, WatchAgents: tree.Watch}})
	child := subagent.Info{ID: "0199-child", Parent: "p", Nickname: "Euclid", Role: "explorer", Status: subagent.Running,
		Task: "count the files", Path: path}
	tree.Update(child)
	child.Status, child.Message = subagent.Completed, "there are 12 files"
	tree.Update(child)
	m.Update(n.next(make(chan struct{}))())
	view := plain(m.View())
	for _, want := range []string{"agent Euclid (explorer) working: count the files", "agent Euclid (explorer) done: there are 12 files"} {
		if !strings.Contains(view, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, view)
		}
	}
	slashRun(m, "/agents")
	if view := plain(m.View()); !strings.Contains(view, "1  Euclid (explorer)  completed · count the files") {
		t.Errorf("/agents:\n%s", view)
	}
	slashRun(m, "/agents 1")
	view = plain(m.View())
	if !strings.Contains(view, "agent Euclid (explorer) · completed · session 0199-child") ||
		!strings.Contains(view, "assistant there are 12 files") {
		t.Errorf("/agents 1 does not show the conversation:\n%s", view)
	}
}
