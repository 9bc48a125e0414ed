package tui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// twoQuestions is a request_user_input call asking for a database and a
// deploy target.
func twoQuestions() tools.UserInputRequest {
	return tools.UserInputRequest{CallID: "c1", Questions: []tools.Question{
		{ID: "db", Header: "Database", Question: "Which database should the service use?", Options: []tools.Option{
			{Label: "Postgres (Recommended)", Description: "Managed, what prod runs."},
			{Label: "SQLite", Description: "One file, no server."},
		}},
		{ID: "deploy", Header: "Deploy", Question: "Where does it run?", Options: []tools.Option{
			{Label: "Fly", Description: "Global."}, {Label: "Render", Description: "Simple."}, {Label: "Kubernetes", Description: "Ours."},
		}},
	}}
}

// openAsk starts a turn and opens the questions of req.
func openAsk(t *testing.T, m *Model, req tools.UserInputRequest) askPrompt {
	t.Helper()
	submit(m, "set up the service")
	emit(t, m, session.ToolCallBegin{Call: tools.Call{ID: req.CallID, Name: "request_user_input", Input: "{}"}})
	p := askPrompt{req: req, reply: make(chan askReply, 1), done: m.turn.ctx.Done()}
	send(m, askMsg{p: p})
	return p
}

// TestAskAnswers: the person answers the model's questions with keys;
// the answers go back by question id as Codex sends them, a note marked
// user_note, and esc ends the turn instead.
func TestAskAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		keys []string
		want askReply
	}{
		{"digits pick and go on", []string{"2", "3"},
			askReply{ok: true, answers: map[string][]string{"db": {"SQLite"}, "deploy": {"Kubernetes"}}}},
		{"arrows choose, enter goes on", []string{"down", "enter", "down", "down", "up", "enter"},
			askReply{ok: true, answers: map[string][]string{"db": {"Postgres (Recommended)"}, "deploy": {"Fly"}}}},
		{"a note with the choice", []string{"1", "down", "tab", "on", " ", "k8s", "x", "backspace", "enter"},
			askReply{ok: true, answers: map[string][]string{"db": {"Postgres (Recommended)"}, "deploy": {"Fly", "user_note: on k8s"}}}},
		{"typing starts a note", []string{"enter", "we", " ", "decide", "enter"},
			askReply{ok: true, answers: map[string][]string{"db": {}, "deploy": {"user_note: we decide"}}}},
		{"esc ends the turn", []string{"1", "esc"}, askReply{}},
		{"esc in a note goes back", []string{"tab", "x", "esc", "2", "1"},
			askReply{ok: true, answers: map[string][]string{"db": {"SQLite", "user_note: x"}, "deploy": {"Fly"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, _ := newTestModel(t, Options{})
			p := openAsk(t, m, twoQuestions())
			var last tea.Cmd
			for _, k := range tt.keys {
				if c := send(m, press(k)); c != nil {
					last = c
				}
			}
			runCmd(last)
			select {
			case got := <-p.reply:
				if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(askReply{})); diff != "" {
					t.Errorf("reply (-want +got):\n%s", diff)
				}
			default:
				t.Fatal("no answer was sent")
			}
			if len(m.asks) != 0 {
				t.Error("the questions are still open")
			}
		})
	}
}

// TestAskShowsQuestion: the shown question, its choices with their
// descriptions, where it is among the questions and the keys; the next
// question after a choice.
func TestAskShowsQuestion(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	openAsk(t, m, twoQuestions())
	view := plain(m.View())
	for _, want := range []string{"Question 1/2 (2 unanswered)", "Database", "Which database should the service use?",
		"( ) 1. Postgres (Recommended)  Managed, what prod runs.", "( ) 2. SQLite  One file, no server.", "enter next", "esc interrupt"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	send(m, press("down"))
	if view := plain(m.View()); !strings.Contains(view, "(•) 1. Postgres") {
		t.Errorf("the chosen option is not marked:\n%s", view)
	}
	send(m, press("enter"))
	view = plain(m.View())
	for _, want := range []string{"Question 2/2 (1 unanswered)", "Where does it run?", "3. Kubernetes", "enter submit"} {
		if !strings.Contains(view, want) {
			t.Errorf("second question: view lacks %q:\n%s", want, view)
		}
	}
}

// TestAskWithoutTurnIsCancelled: questions that arrive with no turn
// running, or when the turn ends, are answered as cancelled.
func TestAskWithoutTurnIsCancelled(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	p := askPrompt{req: twoQuestions(), reply: make(chan askReply, 1)}
	runCmd(send(m, askMsg{p: p}))
	if got := <-p.reply; got.ok {
		t.Errorf("reply = %+v, want cancelled", got)
	}
	p = openAsk(t, m, twoQuestions())
	runCmd(done(t, m, nil))
	if got := <-p.reply; got.ok || len(m.asks) != 0 {
		t.Errorf("after the turn ended: reply %+v, %d open", got, len(m.asks))
	}
}

// TestApproverAsksUser: AskUser delivers the questions to the chat and
// returns its answers; a cancelled ctx returns at once.
func TestApproverAsksUser(t *testing.T) {
	t.Parallel()
	a := NewApprover()
	type result struct {
		answers map[string][]string
		ok      bool
	}
	got := make(chan result)
	go func() {
		ans, ok := a.AskUser(context.Background(), twoQuestions())
		got <- result{ans, ok}
	}()
	msg := a.next(make(chan struct{}))().(askMsg)
	msg.p.send(askReply{ok: true, answers: map[string][]string{"db": {"SQLite"}}})()
	if r := <-got; !r.ok || r.answers["db"][0] != "SQLite" {
		t.Errorf("AskUser = %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := a.AskUser(ctx, twoQuestions()); ok {
		t.Error("AskUser with an ended ctx answered ok")
	}
}

// TestAskCallInTranscript: the call shows its question while it waits
// for the answer, then the answers given, one line per question.
func TestAskCallInTranscript(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	req := twoQuestions()
	in := `{"questions":[{"id":"db","header":"Database","question":"Which database should the service use?","options":[{"label":"Postgres (Recommended)","description":"d"}]},` +
		`{"id":"deploy","header":"Deploy","question":"Where does it run?","options":[{"label":"Fly","description":"e"}]}]}`
	submit(m, "set up the service")
	call := tools.Call{ID: req.CallID, Name: "request_user_input", Input: in}
	emit(t, m, session.ToolCallBegin{Call: call})
	send(m, askMsg{p: askPrompt{req: req, reply: make(chan askReply, 1), done: m.turn.ctx.Done()}})
	if view := plain(m.View()); !strings.Contains(view, "? Which database should the service use? (+1 more)  awaiting your answer") {
		t.Errorf("the waiting call is not shown with its question:\n%s", view)
	}
	send(m, press("1"), press("tab"), press("on k8s"), press("enter"))
	emit(t, m, session.ToolCallEnd{Call: call, Result: tools.Result{Status: tools.StatusCompleted,
		Output: `{"answers":{"db":{"answers":["Postgres (Recommended)"]},"deploy":{"answers":["user_note: on k8s"]}}}`}})
	view := plain(m.View())
	for _, want := range []string{"│ Database: Postgres (Recommended)", "│ Deploy: note: on k8s"} {
		if !strings.Contains(view, want) {
			t.Errorf("transcript lacks %q:\n%s", want, view)
		}
	}
}
