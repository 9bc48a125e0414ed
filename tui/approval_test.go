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

// askToRemoveBuild starts a turn whose command, rm -rf build, asks for
// approval, and returns the open prompt.
func askToRemoveBuild(t *testing.T, m *Model) approvalPrompt {
	t.Helper()
	submit(m, "clean up")
	emit(t, m, session.ToolCallBegin{Call: execCall("c1", "rm -rf build")})
	p := approvalPrompt{req: tools.ApprovalRequest{CallID: "c1", Kind: "command", Command: "rm -rf build"},
		reply: make(chan tools.Decision, 1), done: m.turn.ctx.Done()}
	send(m, approvalMsg{p: p})
	return p
}

func TestApprovalAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		keys []string
		want tools.Decision
	}{
		{"y approves once", []string{"y"}, tools.Decision{Kind: tools.ApproveOnce}},
		{"a approves for the session", []string{"a"}, tools.Decision{Kind: tools.ApproveForSession}},
		{"n denies with a note", []string{"n", "use", " ", "make", "x", "backspace", "enter"},
			tools.Decision{Kind: tools.Deny, Note: "use make"}},
		{"esc aborts the turn", []string{"esc"}, tools.Decision{Kind: tools.AbortTurn}},
		{"ctrl-c aborts the turn", []string{"ctrl+c"}, tools.Decision{Kind: tools.AbortTurn}},
		{"esc in the note goes back", []string{"n", "x", "esc", "y"}, tools.Decision{Kind: tools.ApproveOnce}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, _ := newTestModel(t, Options{})
			p := askToRemoveBuild(t, m)
			if !strings.Contains(plain(m.View()), "awaiting approval") {
				t.Errorf("the call is not shown as awaiting approval:\n%s", plain(m.View()))
			}
			var last tea.Cmd
			for _, k := range tt.keys {
				if c := send(m, press(k)); c != nil {
					last = c
				}
			}
			runCmd(last)
			select {
			case got := <-p.reply:
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("decision (-want +got):\n%s", diff)
				}
			default:
				t.Fatal("no answer was sent")
			}
			if len(m.approvals) != 0 {
				t.Error("the prompt is still open")
			}
		})
	}
}

func TestApprovalWithoutTurnIsAborted(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	p := approvalPrompt{req: tools.ApprovalRequest{Kind: "command"}, reply: make(chan tools.Decision, 1)}
	runCmd(send(m, approvalMsg{p: p}))
	if got := <-p.reply; got.Kind != tools.AbortTurn {
		t.Errorf("decision = %v, want AbortTurn", got.Kind)
	}
}

func TestTurnEndClosesApprovals(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	submit(m, "hi")
	p := approvalPrompt{req: tools.ApprovalRequest{Kind: "patch", Files: []string{"a.go"}},
		reply: make(chan tools.Decision, 1), done: m.turn.ctx.Done()}
	send(m, approvalMsg{p: p})
	runCmd(done(t, m, nil))
	if got := <-p.reply; got.Kind != tools.AbortTurn {
		t.Errorf("decision = %v, want AbortTurn", got.Kind)
	}
	if len(m.approvals) != 0 {
		t.Error("prompt still open")
	}
}

func TestApproverUnblocksOnCancel(t *testing.T) {
	t.Parallel()
	a := NewApprover()
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan tools.Decision)
	go func() { got <- a.Approve(ctx, tools.ApprovalRequest{Kind: "command"}) }()
	p := <-a.reqs // the chat received it
	cancel()
	if d := <-got; d.Kind != tools.AbortTurn {
		t.Errorf("decision = %v, want AbortTurn", d.Kind)
	}
	_ = p
}

func TestApproverDeliversAnswer(t *testing.T) {
	t.Parallel()
	a := NewApprover()
	got := make(chan tools.Decision)
	go func() { got <- a.Approve(context.Background(), tools.ApprovalRequest{Kind: "command"}) }()
	msg := a.next(make(chan struct{}))().(approvalMsg)
	msg.p.answer(tools.Decision{Kind: tools.ApproveForSession})()
	if d := <-got; d.Kind != tools.ApproveForSession {
		t.Errorf("decision = %v, want ApproveForSession", d.Kind)
	}
}

// openApproval starts a turn and opens the prompt for req.
func openApproval(t *testing.T, m *Model, req tools.ApprovalRequest) approvalPrompt {
	t.Helper()
	submit(m, "go")
	emit(t, m, session.ToolCallBegin{Call: execCall(req.CallID, "x")})
	p := approvalPrompt{req: req, reply: make(chan tools.Decision, 1), done: m.turn.ctx.Done()}
	send(m, approvalMsg{p: p})
	return p
}

// TestApprovalShowsWrappedCommandOnce: a long command is one command,
// wrapped, with its working directory.
func TestApprovalShowsWrappedCommandOnce(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	cmd := "find . -name '*.go' -newer go.mod -exec grep -l 'TODO' {} + | xargs -r sed -i 's/TODO/DONE/g' && git status --short && echo finished"
	openApproval(t, m, tools.ApprovalRequest{CallID: "c1", Kind: "command", Command: cmd, Workdir: "/src/proj"})
	view := plain(m.View())
	if n := strings.Count(view, "│ $ "); n != 1 {
		t.Errorf("the command is shown with %d \"$ \" prompts, want 1:\n%s", n, view)
	}
	joined := strings.Join(strings.Fields(strings.NewReplacer("│", " ").Replace(view)), " ")
	if !strings.Contains(joined, strings.Join(strings.Fields(cmd), " ")) {
		t.Errorf("the whole command is not shown:\n%s", view)
	}
	if !strings.Contains(view, "in /src/proj") {
		t.Errorf("the working directory is not shown:\n%s", view)
	}
}

// TestApprovalShowsPatchDiff: a patch approval lists the files and shows
// the diff, scrolled with Down and PgDn.
func TestApprovalShowsPatchDiff(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	var diff strings.Builder
	diff.WriteString("--- a/main.go\n+++ b/main.go\n@@ -1,2 +1,2 @@\n-old line\n+new line\n")
	diff.WriteString("--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1,40 @@\n")
	for i := range 40 {
		diff.WriteString("+note " + string(rune('a'+i%26)) + strings.Repeat("x", i) + "\n")
	}
	openApproval(t, m, tools.ApprovalRequest{CallID: "p1", Kind: "patch", Files: []string{"main.go", "notes.txt"}, Diff: diff.String()})
	view := plain(m.View())
	for _, want := range []string{"Apply this patch to 2 files?", "  main.go", "  notes.txt", "-old line", "+new line", "lines 1–"} {
		if !strings.Contains(view, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "note n") {
		t.Errorf("the whole diff fits an 80x24 screen?\n%s", view)
	}
	send(m, press("down"))
	if view = plain(m.View()); !strings.Contains(view, "lines 2–") {
		t.Errorf("Down did not scroll the diff:\n%s", view)
	}
	for range 10 {
		send(m, press("pgdown"))
	}
	view = plain(m.View())
	if !strings.Contains(view, "of 48 ·") || !strings.Contains(view, "–48 of 48") || !strings.Contains(view, "+note n"+strings.Repeat("x", 39)) {
		t.Errorf("PgDn does not reach the end of the diff:\n%s", view)
	}
	if len(m.approvals) != 1 {
		t.Error("scrolling answered the prompt")
	}
}
