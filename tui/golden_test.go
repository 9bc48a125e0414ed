package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// scenario plays events into a model, taking snapshots of the view.
type scenario struct {
	name string
	play func(t *testing.T, m *Model, c *clock, snap func(label string))
}

func scenarios() []scenario {
	return []scenario{
		{"streamed_answer", playStreamedAnswer},
		{"reconnect_503", playReconnect503},
		{"approval_modal", playApprovalModal},
		{"failed_with_queue", playFailedWithQueue},
	}
}

func playStreamedAnswer(t *testing.T, m *Model, c *clock, snap func(string)) {
	submit(m, "Explain the retry policy")
	c.advance(2 * time.Second)
	emit(t, m, session.TurnStarted{},
		session.ReasoningDelta{ItemID: "r1", Delta: "Reading the retry package"},
		session.ReasoningDone{ItemID: "r1", Text: "Reading the retry package and its two budgets."},
		session.TextDelta{ItemID: "m1", Delta: "The policy has **two budgets**:\n\n1. HTTP retries"})
	snap("streaming")
	text := "The policy has **two budgets**:\n\n1. HTTP retries before the stream opens;\n" +
		"2. stream retries after it broke.\n\nUse `/status` to see how many were spent."
	c.advance(3 * time.Second)
	emit(t, m, session.TextDelta{ItemID: "m1", Delta: " before the stream opens;\n2. stream"},
		session.MessageDone{ItemID: "m1", Text: text},
		session.TurnCompleted{Last: transport.Usage{TotalTokens: 5321}, Total: transport.Usage{TotalTokens: 5321}})
	runCmd(done(t, m, nil))
	snap("done")
}

func playReconnect503(t *testing.T, m *Model, c *clock, snap func(string)) {
	submit(m, "hello")
	emit(t, m, session.TurnStarted{}, session.TextDelta{ItemID: "m1", Delta: "Hel"})
	snap("partial")
	// The engine retracts the failed attempt's text, then announces the retry.
	emit(t, m, session.Retracted{ItemIDs: []string{"m1"}})
	snap("retracted")
	emit(t, m, retry503(1, 3*time.Second))
	snap("reconnecting")
	c.advance(time.Second)
	send(m, tickMsg{})
	snap("countdown")
	c.advance(2 * time.Second)
	emit(t, m, session.TextDelta{ItemID: "m2", Delta: "Hello! How can I help?"},
		session.MessageDone{ItemID: "m2", Text: "Hello! How can I help?"},
		session.TurnCompleted{Last: transport.Usage{TotalTokens: 812}})
	runCmd(done(t, m, nil))
	snap("answered")
	if n := strings.Count(plain(m.View()), "Hello!"); n != 1 {
		t.Errorf("the answer appears %d times, want once:\n%s", n, plain(m.View()))
	}
}

func playApprovalModal(t *testing.T, m *Model, c *clock, snap func(string)) {
	submit(m, "clean the build directory")
	emit(t, m, session.ToolCallBegin{Call: execCall("c1", "rm -rf build")})
	send(m, approvalMsg{p: approvalPrompt{
		req: tools.ApprovalRequest{CallID: "c1", Kind: "command", Command: "rm -rf build",
			Workdir: "/work/project", Escalated: true, Reason: "remove stale artifacts"},
		reply: make(chan tools.Decision, 1), done: m.turn.ctx.Done()}})
	snap("prompt")
	send(m, press("n"), press("keep"), press(" "), press("the"), press(" "), press("cache"))
	snap("note")
}

func playFailedWithQueue(t *testing.T, m *Model, c *clock, snap func(string)) {
	submit(m, "run the tests")
	emit(t, m, session.TurnStarted{})
	submit(m, "then fix what fails")
	emit(t, m, retry503(5, 8*time.Second))
	c.advance(8 * time.Second)
	te := &session.TurnError{Retries: 5, Outcome: modelclient.Outcome{End: modelclient.EndExhausted,
		Failure: modelclient.Failure{Kind: modelclient.KindServerError, Status: 503}}}
	emit(t, m, session.TurnFailed{Err: te})
	snap("failed")
	done(t, m, te)
	snap("queued message sent")
}

func TestGoldenViews(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios() {
		for _, width := range []int{80, 120} {
			name := fmt.Sprintf("%s_%d", sc.name, width)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				m, c := newTestModel(t, Options{ContextWindow: 272000})
				send(m, tea.WindowSizeMsg{Width: width, Height: 24})
				var b strings.Builder
				sc.play(t, m, c, func(label string) {
					fmt.Fprintf(&b, "──── %s ────\n%s\n", label, plain(m.View()))
				})
				golden(t, name, b.String())
			})
		}
	}
}

// hasColour reports whether s sets a foreground or background colour
// (bold, faint, italic and resets are not colours).
func hasColour(s string) bool {
	sgr := regexp.MustCompile(`\x1b\[([0-9;]*)m`) // one SGR (style) sequence
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.Split(m[1], ";") {
			n, err := strconv.Atoi(p)
			if err == nil && (n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 97 || n >= 100 && n <= 107) {
				return true
			}
		}
	}
	return false
}

func TestNoColor(t *testing.T) {
	t.Parallel()
	for _, noColor := range []bool{true, false} {
		var views strings.Builder
		for _, sc := range scenarios() {
			m, c := newTestModel(t, Options{})
			if !noColor {
				m.look = newLook(nil, false, false)
				m.look.r.SetColorProfile(termenv.ANSI256)
				m.composer = newComposer(m.look)
				m.resize(80, 24)
			}
			sc.play(t, m, c, func(string) { views.WriteString(m.View()) })
		}
		if got := hasColour(views.String()); got == noColor {
			t.Errorf("NoColor=%v: the views set colours = %v", noColor, got)
		}
	}
}
