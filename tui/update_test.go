package tui

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
	"github.com/agentcli/agent/transport"
)

// keyCase is a case of TestKeys.
type keyCase struct {
	name  string
	run   func(t *testing.T, m *Model, c *clock) bool // reports quit
	check func(t *testing.T, m *Model, quit bool)
}

// keyCasesComposer are the composer's keys: enter sends, newlines, history.
func keyCasesComposer() []keyCase {
	return []keyCase{
		{
			name: "enter sends and starts a turn",
			run:  func(t *testing.T, m *Model, c *clock) bool { return isQuit(submit(m, "hello")) },
			check: func(t *testing.T, m *Model, quit bool) {
				if m.turn == nil || m.composer.Value() != "" {
					t.Fatalf("turn=%v composer=%q, want a turn and an empty composer", m.turn, m.composer.Value())
				}
				if got := plain(m.View()); !strings.Contains(got, "› hello") {
					t.Errorf("view lacks the user message:\n%s", got)
				}
				if diff := cmp.Diff([]string{"hello"}, m.hist.entries); diff != "" {
					t.Errorf("history (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "enter on an empty composer does nothing",
			run:  func(t *testing.T, m *Model, c *clock) bool { return isQuit(submit(m, "  ")) },
			check: func(t *testing.T, m *Model, quit bool) {
				if m.turn != nil || m.tr.lineCount() != 0 {
					t.Errorf("a blank message started a turn")
				}
			},
		},
		{
			name: "alt+enter and ctrl+j insert newlines",
			run: func(t *testing.T, m *Model, c *clock) bool {
				typeText(m, "a")
				send(m, press("alt+enter"))
				typeText(m, "b")
				send(m, press("ctrl+j"))
				typeText(m, "c")
				return false
			},
			check: func(t *testing.T, m *Model, quit bool) {
				if got := m.composer.Value(); got != "a\nb\nc" {
					t.Errorf("composer = %q, want %q", got, "a\nb\nc")
				}
				if m.turn != nil {
					t.Error("a newline sent the message")
				}
			},
		},
		{
			name: "up and down walk the history and restore the draft",
			run: func(t *testing.T, m *Model, c *clock) bool {
				m.hist.entries = []string{"one", "two"}
				m.hist.pos = 2
				typeText(m, "draft")
				send(m, press("up"))
				if got := m.composer.Value(); got != "two" {
					t.Fatalf("after up: %q, want two", got)
				}
				send(m, press("up"), press("up")) // the second stops at the oldest
				if got := m.composer.Value(); got != "one" {
					t.Fatalf("after up up up: %q, want one", got)
				}
				send(m, press("down"), press("down"))
				return false
			},
			check: func(t *testing.T, m *Model, quit bool) {
				if got := m.composer.Value(); got != "draft" {
					t.Errorf("after down down: %q, want the draft", got)
				}
			},
		},
	}
}

// keyCasesQuitAndInterrupt are the keys that quit, delete or interrupt.
func keyCasesQuitAndInterrupt() []keyCase {
	return []keyCase{
		{
			name: "up inside a multi-line message moves the cursor, not the history",
			run: func(t *testing.T, m *Model, c *clock) bool {
				m.hist.entries, m.hist.pos = []string{"old"}, 1
				typeText(m, "a")
				send(m, press("ctrl+j"))
				typeText(m, "b")
				send(m, press("up"))
				return false
			},
			check: func(t *testing.T, m *Model, quit bool) {
				if got := m.composer.Value(); got != "a\nb" || m.composer.Line() != 0 {
					t.Errorf("composer %q line %d, want a\\nb on line 0", got, m.composer.Line())
				}
			},
		},
		{
			name: "ctrl-d on an empty composer quits",
			run:  func(t *testing.T, m *Model, c *clock) bool { return isQuit(send(m, press("ctrl+d"))) },
			check: func(t *testing.T, m *Model, quit bool) {
				if !quit {
					t.Error("did not quit")
				}
			},
		},
		{
			name: "ctrl-d with text deletes instead",
			run: func(t *testing.T, m *Model, c *clock) bool {
				typeText(m, "ab")
				send(m, press("up")) // no history: stays; move to start
				m.composer.CursorStart()
				return isQuit(send(m, press("ctrl+d")))
			},
			check: func(t *testing.T, m *Model, quit bool) {
				if quit || m.composer.Value() != "b" {
					t.Errorf("quit=%v composer=%q, want no quit and %q", quit, m.composer.Value(), "b")
				}
			},
		},
		{
			name: "esc interrupts the turn: its ctx is cancelled",
			run: func(t *testing.T, m *Model, c *clock) bool {
				submit(m, "hello")
				send(m, press("esc"))
				return false
			},
			check: func(t *testing.T, m *Model, quit bool) {
				if m.turn == nil || m.turn.ctx.Err() == nil || !m.turn.interrupted {
					t.Fatal("the turn's ctx was not cancelled")
				}
				if !strings.Contains(m.statusLine(), "Interrupting") {
					t.Errorf("status = %q", m.statusLine())
				}
			},
		},
		{
			name: "ctrl-c interrupts without quitting",
			run: func(t *testing.T, m *Model, c *clock) bool {
				submit(m, "hello")
				send(m, press("ctrl+c"))
				return false
			},
			check: func(t *testing.T, m *Model, quit bool) {
				if m.turn.ctx.Err() == nil {
					t.Error("ctrl-c did not cancel the turn")
				}
				if !strings.Contains(plain(m.View()), "ctrl-c again to quit") {
					t.Errorf("no quit hint:\n%s", plain(m.View()))
				}
			},
		},
	}
}

// keyCasesCtrlCAndScroll are ctrl-c's timing and clearing, and scrolling.
func keyCasesCtrlCAndScroll() []keyCase {
	return []keyCase{
		{
			name: "ctrl-c twice within a second quits",
			run: func(t *testing.T, m *Model, c *clock) bool {
				submit(m, "hello")
				send(m, press("ctrl+c"))
				c.advance(900 * time.Millisecond)
				return isQuit(send(m, press("ctrl+c")))
			},
			check: func(t *testing.T, m *Model, quit bool) {
				if !quit {
					t.Error("did not quit")
				}
			},
		},
		{
			name: "ctrl-c twice a second and more apart does not quit",
			run: func(t *testing.T, m *Model, c *clock) bool {
				send(m, press("ctrl+c"))
				c.advance(1500 * time.Millisecond)
				return isQuit(send(m, press("ctrl+c")))
			},
			check: func(t *testing.T, m *Model, quit bool) {
				if quit {
					t.Error("quit")
				}
			},
		},
		{
			name: "ctrl-c clears the composer when idle",
			run: func(t *testing.T, m *Model, c *clock) bool {
				typeText(m, "draft")
				send(m, press("ctrl+c"))
				return false
			},
			check: func(t *testing.T, m *Model, quit bool) {
				if m.composer.Value() != "" {
					t.Errorf("composer = %q", m.composer.Value())
				}
			},
		},
		{
			name: "pgup scrolls back and pgdown follows again",
			run: func(t *testing.T, m *Model, c *clock) bool {
				for range 40 {
					m.info("line", nil)
				}
				send(m, press("pgup"))
				if m.follow {
					t.Fatal("pgup kept following")
				}
				send(m, press("pgdown"), press("pgdown"), press("pgdown"), press("pgdown"))
				return false
			},
			check: func(t *testing.T, m *Model, quit bool) {
				if !m.follow {
					t.Error("pgdown to the end did not follow")
				}
			},
		},
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	tests := slices.Concat(keyCasesComposer(), keyCasesQuitAndInterrupt(), keyCasesCtrlCAndScroll())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, c := newTestModel(t, Options{})
			quit := tt.run(t, m, c)
			tt.check(t, m, quit)
		})
	}
}

// streamCase is a case of TestStreamEvents.
type streamCase struct {
	name   string
	events []session.Event
	want   []string // substrings of the view, in order
	absent []string
}

// streamCasesText are the events of the model's text: deltas, retractions, escapes.
func streamCasesText() []streamCase {
	return []streamCase{
		{
			name: "deltas stream into one message, markdown when done",
			events: []session.Event{
				session.TurnStarted{},
				session.TextDelta{ItemID: "m1", Delta: "Hello "},
				session.TextDelta{ItemID: "m1", Delta: "**world**"},
				session.MessageDone{ItemID: "m1", Text: "Hello **world**"},
			},
			want:   []string{"› hi", "Hello world"},
			absent: []string{"**"},
		},
		{
			name: "escape sequences in the model's text never reach the terminal",
			events: []session.Event{
				session.TurnStarted{},
				session.TextDelta{ItemID: "m1", Delta: "see \x1b]0;pwned-title\x07\x1b]52;c;Y2xpcA==\x1b\\"},
				session.TextDelta{ItemID: "m1", Delta: "\x1b[2J\x1b[31mplain\x1b[0m end"},
			},
			want:   []string{"see plain end"},
			absent: []string{"\x1b]", "pwned-title", "Y2xpcA", "\x1b[2J", "\x07"},
		},
		{
			name: "retracted partial text is removed; the retry's text appears once",
			events: []session.Event{
				session.TextDelta{ItemID: "m1", Delta: "Partial ans"},
				session.Retracted{ItemIDs: []string{"m1"}},
				retry503(1, 2*time.Second),
				session.TextDelta{ItemID: "m2", Delta: "Full answer"},
				session.MessageDone{ItemID: "m2", Text: "Full answer"},
			},
			want:   []string{"↻ Reconnecting... 1/5 in 2.0s (503 Service Unavailable)", "partial answer was discarded", "Full answer"},
			absent: []string{"Partial ans"},
		},
		{
			name: "a fallback (no retry event) also removes the retracted text",
			events: []session.Event{
				session.TextDelta{ItemID: "m1", Delta: "Partial ans"},
				session.Retracted{ItemIDs: []string{"m1"}},
				session.Warning{Message: "Falling back from WebSockets to HTTPS transport: closed"},
				session.TextDelta{ItemID: "m2", Delta: "Full answer"},
			},
			want:   []string{"⚠ Falling back", "Full answer"},
			absent: []string{"Partial ans"},
		},
		{
			name: "when the retries run out the partial text stays, marked",
			events: []session.Event{
				session.TextDelta{ItemID: "m1", Delta: "Partial ans"},
				session.Retracted{ItemIDs: []string{"m1"}},
				session.TurnFailed{Err: &session.TurnError{Retries: 5, Outcome: modelclient.Outcome{End: modelclient.EndExhausted,
					Failure: modelclient.Failure{Kind: modelclient.KindServerError, Status: 503}}}},
			},
			want: []string{"Partial ans", "(the connection failed: this partial answer was not kept)", "✗ gave up"},
		},
		{
			name: "retracted reasoning is removed too",
			events: []session.Event{
				session.ReasoningDelta{ItemID: "r1", Delta: "thinking hard"},
				session.Retracted{ItemIDs: []string{"r1"}},
				session.ReasoningDone{ItemID: "r2", Text: "thought"},
			},
			want:   []string{"thought"},
			absent: []string{"thinking hard"},
		},
	}
}

// streamCasesOutcomes are warnings, tool calls and how a turn ends.
func streamCasesOutcomes() []streamCase {
	return []streamCase{
		{
			name:   "a web search the server ran is one line",
			events: []session.Event{session.WebSearchDone{ItemID: "ws1", Query: "weather in \x1b[31mParis"}},
			want:   []string{"🔎 Searched the web: weather in Paris"},
			absent: []string{"\x1b[31m"},
		},
		{
			name:   "warnings are shown",
			events: []session.Event{session.Warning{Message: "Falling back from WebSockets to HTTPS transport: 426"}},
			want:   []string{"⚠ Falling back from WebSockets to HTTPS transport: 426"},
		},
		{
			name: "a command shows its exit code and the head of its output",
			events: []session.Event{
				session.ToolCallBegin{Call: execCall("c1", "ls")},
				session.ToolCallEnd{Call: execCall("c1", "ls"), Result: tools.Result{
					Command: "ls", ExitCode: new(2), Status: tools.StatusFailed,
					Output: "Wall time: 0.1 seconds\nProcess exited with code 2\nOutput:\n1\n2\n3\n4\n5\n6\n7\n",
				}},
			},
			want:   []string{"$ ls  ✗ exit 2", "│ 1", "│ 5", "… +2 lines"},
			absent: []string{"Wall time", "│ 6"},
		},
		{
			name: "a patch shows its diff",
			events: []session.Event{
				session.ToolCallEnd{Call: tools.Call{ID: "p1", Name: "apply_patch"}, Result: tools.Result{
					Status: tools.StatusCompleted, Files: []string{"M a.go"},
					Diff: "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-old\n+new\n",
				}},
			},
			want: []string{"✎ Edited M a.go  ✓", "@@ -1 +1 @@", "-old", "+new"},
		},
		{
			name: "a failure says what to do",
			events: []session.Event{
				session.TurnFailed{Err: &session.TurnError{Retries: 5, Outcome: modelclient.Outcome{End: modelclient.EndExhausted,
					Failure: modelclient.Failure{Kind: modelclient.KindServerError, Status: 503}}}},
			},
			want: []string{"✗ gave up after retries: 503 Service Unavailable", "press ↑ and Enter"},
		},
		{
			name: "a cancelled turn says interrupted, not failed",
			events: []session.Event{
				session.TurnFailed{Err: &session.TurnError{Outcome: modelclient.Outcome{Failure: modelclient.Failure{Kind: modelclient.KindCanceled}}}},
			},
			want:   []string{"■ Interrupted"},
			absent: []string{"✗"},
		},
		{
			name: "a failure to save reaches the status line and stays",
			events: []session.Event{
				session.Warning{Message: "the session is no longer being saved: no space left on device", NotSaved: true},
				session.TurnCompleted{},
			},
			want: []string{"⚠ the session is no longer being saved: no space left on device", "session not saved"},
		},
		{
			name: "usage reaches the status line",
			events: []session.Event{
				session.TurnCompleted{Last: transport.Usage{TotalTokens: 12345}, Total: transport.Usage{TotalTokens: 20000}},
			},
			want: []string{"12.3k / 272k tokens"},
		},
	}
}

func TestStreamEvents(t *testing.T) {
	t.Parallel()
	tests := slices.Concat(streamCasesText(), streamCasesOutcomes())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, _ := newTestModel(t, Options{ContextWindow: 272000})
			submit(m, "hi")
			emit(t, m, tt.events...)
			got := plain(m.View())
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("view lacks %q (in order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("view has %q:\n%s", a, got)
				}
			}
		})
	}
}

func TestRetryStatusCountsDown(t *testing.T) {
	t.Parallel()
	m, c := newTestModel(t, Options{})
	submit(m, "hi")
	emit(t, m, session.TextDelta{ItemID: "m1", Delta: "Hel"}, session.Retracted{ItemIDs: []string{"m1"}},
		retry503(2, 3*time.Second))
	steps := []struct {
		after time.Duration
		want  string
	}{
		{0, "Reconnecting... 2/5 · next try in 3s · ctrl+r to retry now · esc to cancel"},
		{time.Second, "Reconnecting... 2/5 · next try in 2s · ctrl+r to retry now · esc to cancel"},
		{1500 * time.Millisecond, "Reconnecting... 2/5 · next try in 1s · ctrl+r to retry now · esc to cancel"},
		{time.Second, "Reconnecting... 2/5 · trying now · esc to cancel"},
	}
	for _, s := range steps {
		c.advance(s.after)
		send(m, tickMsg{})
		if got := plain(m.statusLine()); !strings.Contains(got, s.want) {
			t.Errorf("after +%v: status %q, want %q", s.after, got, s.want)
		}
	}
	emit(t, m, session.TextDelta{ItemID: "m2", Delta: "Hello"})
	if got := plain(m.statusLine()); strings.Contains(got, "Reconnecting") || !strings.Contains(got, "Working") {
		t.Errorf("after the retry streamed: status %q", got)
	}
}

// retryNowEngine counts the engine's RetryNow calls.
type retryNowEngine struct {
	nopEngine
	calls atomic.Int32
}

func (e *retryNowEngine) RetryNow() { e.calls.Add(1) }

// TestRetryNowKey: Ctrl+R while a retry waits asks the engine to retry
// now, once, and the status line says the retry is starting.
func TestRetryNowKey(t *testing.T) {
	t.Parallel()
	eng := &retryNowEngine{}
	m, _ := newTestModel(t, Options{Engine: eng})
	submit(m, "hi")
	emit(t, m, retry503(1, 30*time.Second))
	if got := plain(m.statusLine()); !strings.Contains(got, "next try in 30s · ctrl+r to retry now") {
		t.Fatalf("status %q does not offer to retry now", got)
	}
	send(m, press("ctrl+r"), press("ctrl+r"))
	if n := eng.calls.Load(); n != 1 {
		t.Errorf("ctrl+r twice asked the engine to retry now %d times; want 1", n)
	}
	if got := plain(m.statusLine()); !strings.Contains(got, "trying now") {
		t.Errorf("status after ctrl+r: %q", got)
	}
	if m.turn == nil || m.turn.interrupted {
		t.Error("ctrl+r ended the turn")
	}
	// A wait the server asked for (429) is not offered, and not cut.
	emit(t, m, session.Retry{Retry: modelclient.Retry{Layer: modelclient.LayerStream, Class: "rate_limit", Attempt: 2, Max: 5,
		Delay: 30 * time.Second, Failure: modelclient.Failure{Kind: modelclient.KindRateLimited, Status: 429}}})
	if got := plain(m.statusLine()); strings.Contains(got, "ctrl+r") || !strings.Contains(got, "next try in 30s") {
		t.Errorf("status for a 429 wait: %q", got)
	}
	send(m, press("ctrl+r"))
	if got := plain(m.statusLine()); strings.Contains(got, "trying now") || eng.calls.Load() != 1 {
		t.Errorf("ctrl+r cut a 429 wait: %q, %d calls", got, eng.calls.Load())
	}
}

func TestStaleTurnEventsAreIgnored(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	submit(m, "hi")
	old := m.turn.id
	if cmd := send(m, streamMsg{turn: old + 7, ev: session.TextDelta{ItemID: "x", Delta: "ghost"}}); cmd != nil {
		t.Error("a stale event re-armed the reader")
	}
	if strings.Contains(plain(m.View()), "ghost") {
		t.Error("a stale event was shown")
	}
}

func TestInterruptKeepsPartialTextMarked(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	submit(m, "hi")
	emit(t, m, session.TextDelta{ItemID: "m1", Delta: "half an answ"})
	send(m, press("esc"))
	emit(t, m, session.Retracted{ItemIDs: []string{"m1"}},
		session.TurnFailed{Err: &session.TurnError{Outcome: modelclient.Outcome{Failure: modelclient.Failure{Kind: modelclient.KindCanceled}}}})
	done(t, m, context.Canceled)
	got := plain(m.View())
	for _, w := range []string{"half an answ", "not kept", "■ Interrupted"} {
		if !strings.Contains(got, w) {
			t.Errorf("view lacks %q:\n%s", w, got)
		}
	}
	if strings.Count(got, "Interrupted") != 1 {
		t.Errorf("interrupted shown %d times:\n%s", strings.Count(got, "Interrupted"), got)
	}
}

func TestQueue(t *testing.T) {
	t.Parallel()
	failure := &session.TurnError{Retries: 5, Outcome: modelclient.Outcome{End: modelclient.EndExhausted,
		Failure: modelclient.Failure{Kind: modelclient.KindServerError, Status: 503}}}
	tests := []struct {
		name      string
		end       func(t *testing.T, m *Model)
		wantTurn  string // the input of the turn running after the end; "" for none
		composer  string
		wantQueue int
	}{
		{
			name: "sent after the turn completes",
			end: func(t *testing.T, m *Model) {
				emit(t, m, session.TurnCompleted{})
				done(t, m, nil)
			},
			wantTurn: "second",
		},
		{
			name: "survives a failure and is sent after it",
			end: func(t *testing.T, m *Model) {
				emit(t, m, session.TurnFailed{Err: failure})
				done(t, m, failure)
			},
			wantTurn: "second",
		},
		{
			name: "survives an engine error without events",
			end: func(t *testing.T, m *Model) {
				done(t, m, errors.New("engine broke"))
			},
			wantTurn: "second",
		},
		{
			name: "goes back to the composer after an interrupt",
			end: func(t *testing.T, m *Model) {
				send(m, press("esc"))
				done(t, m, context.Canceled)
			},
			composer: "second",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, _ := newTestModel(t, Options{})
			submit(m, "first")
			first := m.turn.id
			submit(m, "second")
			if diff := cmp.Diff([]string{"second"}, m.queue); diff != "" {
				t.Fatalf("queue (-want +got):\n%s", diff)
			}
			if !strings.Contains(plain(m.View()), "↳ queued: second") {
				t.Fatalf("queued message not shown:\n%s", plain(m.View()))
			}
			tt.end(t, m)
			switch {
			case tt.wantTurn != "":
				if m.turn == nil || m.turn.id == first {
					t.Fatal("the queued message did not start a turn")
				}
				if !strings.Contains(plain(m.View()), "› "+tt.wantTurn) {
					t.Errorf("view lacks the sent message:\n%s", plain(m.View()))
				}
			default:
				if m.turn != nil {
					t.Error("a turn started")
				}
			}
			if got := m.composer.Value(); got != tt.composer {
				t.Errorf("composer = %q, want %q", got, tt.composer)
			}
			if len(m.queue) != tt.wantQueue {
				t.Errorf("queue = %q", m.queue)
			}
		})
	}
}

func TestMouseWheelScrolls(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	for range 40 {
		m.info("line", nil)
	}
	send(m, tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if m.follow {
		t.Fatal("the wheel did not scroll back")
	}
	for range 20 {
		send(m, tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	}
	if !m.follow {
		t.Error("scrolling to the end did not follow")
	}
}

// TestPatchRowNamesFiles: an apply_patch call's row names the files it
// edits, running and failed, never the raw JSON of the call.
func TestPatchRowNamesFiles(t *testing.T) {
	t.Parallel()
	patch := "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Add File: b.go\n+z\n*** End Patch"
	in, _ := json.Marshal(map[string]string{"input": patch})
	for _, c := range []tools.Call{
		{ID: "p1", Name: "apply_patch", Input: string(in)},
		{ID: "p2", Name: "apply_patch", Input: patch, Custom: true},
	} {
		b := &toolBlock{call: c}
		m, _ := newTestModel(t, Options{})
		got := ansi.Strip(strings.Join(b.Render(80, m.look), "\n"))
		if !strings.Contains(got, "✎ Editing a.go, b.go") || strings.Contains(got, "Begin Patch") || strings.Contains(got, "{") {
			t.Errorf("running: %q", got)
		}
		b.res = &tools.Result{Status: tools.StatusFailed, Output: "a.go: context not found"}
		got = ansi.Strip(strings.Join(b.Render(80, m.look), "\n"))
		if !strings.Contains(got, "✎ Editing a.go, b.go") || !strings.Contains(got, "✗ failed") || !strings.Contains(got, "context not found") || strings.Contains(got, "Begin Patch") {
			t.Errorf("failed: %q", got)
		}
	}
}

// TestStatusShowsAutoCompact: the status line says how close the context
// is to automatic compaction.
func TestStatusShowsAutoCompact(t *testing.T) {
	m, _ := newTestModel(t, Options{ContextWindow: 272000, AutoCompact: 244800})
	m.last = transport.Usage{TotalTokens: 122400}
	if got := m.tokens(); got != "122k / 272k tokens (50% of auto-compact)" {
		t.Errorf("status tokens = %q; want the share of auto-compact", got)
	}
}

// TestStatusShowsCost: a completed turn's session cost is on the status
// line; an unknown one is not shown, never guessed.
func TestStatusShowsCost(t *testing.T) {
	m, _ := newTestModel(t, Options{ContextWindow: 272000, AutoCompact: 244800})
	m.turn = &turn{}
	usd := 0.4212
	m.apply(session.TurnCompleted{Last: transport.Usage{TotalTokens: 122400}, Total: transport.Usage{TotalTokens: 200000}, TotalCost: &usd})
	if got := m.tokens(); got != "122k / 272k tokens (50% of auto-compact) · $0.42" {
		t.Errorf("status tokens = %q; want the session's cost", got)
	}
	m.turn = &turn{}
	m.apply(session.TurnCompleted{Last: transport.Usage{TotalTokens: 122400}})
	if got := m.tokens(); strings.Contains(got, "$") {
		t.Errorf("status tokens = %q; an unknown cost is shown", got)
	}
}

// TestStatusCommandShowsCost: /status lists the session's cost once a
// priced turn completed, and a status line command reads it as Claude
// Code's statusLine does (cost.total_cost_usd); an unknown cost is in
// neither.
func TestStatusCommandShowsCost(t *testing.T) {
	m := newLiveModel(t, Options{Model: "gpt-x", ContextWindow: 272000})
	m.turn = &turn{}
	m.apply(session.TurnCompleted{Last: transport.Usage{TotalTokens: 1500}, Total: transport.Usage{TotalTokens: 3000}})
	slashRun(m, "/status")
	if view := plain(m.View()); !strings.Contains(view, "tokens this session") || strings.Contains(view, "cost this session") {
		t.Errorf("/status of an unpriced session:\n%s", view)
	}
	var in map[string]any
	_ = json.Unmarshal([]byte(m.userStatusJSON()), &in)
	if _, ok := in["cost"]; ok {
		t.Errorf("the status line command reads a cost nobody knows: %v", in)
	}

	usd := 0.4212
	m.turn = &turn{}
	m.apply(session.TurnCompleted{Last: transport.Usage{TotalTokens: 1500}, Total: transport.Usage{TotalTokens: 3000}, TotalCost: &usd})
	slashRun(m, "/status")
	if view := plain(m.View()); !strings.Contains(view, "cost this session: $0.4212") {
		t.Errorf("/status lacks the session's cost:\n%s", view)
	}
	in = nil
	_ = json.Unmarshal([]byte(m.userStatusJSON()), &in)
	if c, _ := in["cost"].(map[string]any); c["total_cost_usd"] != usd {
		t.Errorf("the status line command reads %v; want cost.total_cost_usd %v", in["cost"], usd)
	}
}

// TestModelSwitchTakesItsWindow: /model NAME shows the new model's
// context window and automatic compaction limit (the catalogue's), not
// the configured model's.
func TestModelSwitchTakesItsWindow(t *testing.T) {
	hooks := Commands{Model: func(context.Context, string, string) (Engine, error) { return nil, nil }}
	windows := map[string]int64{"gpt-x": 272000, "local-7b": 32000}
	m := newLiveModel(t, Options{Commands: hooks, Model: "gpt-x", ContextWindow: 272000, AutoCompact: 244800,
		Window: func(model string) (int64, int64) { return windows[model], windows[model] * 9 / 10 }})
	m.last = transport.Usage{TotalTokens: 14400}
	slashRun(m, "/model local-7b")
	if got := m.tokens(); got != "14.4k / 32k tokens (50% of auto-compact)" {
		t.Errorf("status tokens after /model local-7b = %q; want local-7b's window and limit", got)
	}
	slashRun(m, "/model unknown-model")
	if got := m.tokens(); got != "14.4k tokens" {
		t.Errorf("status tokens after /model of a model without a known window = %q; want no window", got)
	}
}
