package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tools"
)

// fillTranscript adds settled turns (a question, a markdown answer, a
// command) until the transcript has at least lines lines, and renders it.
func fillTranscript(tb testing.TB, m *Model, lines int) {
	tb.Helper()
	answer := "Here is the plan:\n\n1. read the **retry** package;\n2. run `go test ./...`;\n" +
		"3. fix what fails.\n\n```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n"
	code := 0
	for i := 0; m.tr.lineCount() < lines; i++ {
		m.tr.add(userMsg{text: fmt.Sprintf("question %d: what does the retry policy do?", i)})
		m.tr.add(&agentMsg{done: true, text: answer})
		m.tr.add(&toolBlock{call: execCall(fmt.Sprint(i), "go test ./..."), res: &tools.Result{
			Command: "go test ./...", ExitCode: &code, Status: tools.StatusCompleted,
			Output: "Output:\nok  a 0.1s\nok  b 0.2s\nok  c 0.3s\n",
		}})
		m.tr.layout(m.width, m.look)
	}
	_ = m.View()
}

// BenchmarkDeltaUpdateView measures one streamed delta: Update applies it
// and View draws the frame. Its cost must not grow with the transcript: the
// settled blocks are cached and only the window is drawn. Every 400 deltas
// the streaming message is retracted and a new one starts, so both
// sub-benchmarks stream messages of the same sizes whatever b.N is.
func BenchmarkDeltaUpdateView(b *testing.B) {
	for _, lines := range []int{100, 10000} {
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			m, _ := newTestModel(b, Options{ContextWindow: 272000})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			fillTranscript(b, m, lines)
			submit(m, "go on")
			_ = m.View()
			id := m.turn.id
			item := "m0"
			word := session.TextDelta{ItemID: item, Delta: "streaming "}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%400 == 399 {
					m.Update(streamMsg{turn: id, ev: session.Retracted{ItemIDs: []string{item}}})
					item = fmt.Sprintf("m%d", i)
				}
				word.ItemID = item
				word.Delta = "streaming "
				if i%12 == 11 {
					word.Delta = "words\n"
				}
				m.Update(streamMsg{turn: id, ev: word})
				_ = m.View()
			}
			b.StopTimer()
			if got := m.tr.lineCount(); got < lines {
				b.Fatalf("transcript has %d lines, want ≥ %d", got, lines)
			}
		})
	}
}

// TestDeltaCostIsFlat is a cheap guard for the benchmark's claim: a delta
// re-renders only the streaming block, whatever the transcript's length.
func TestDeltaCostIsFlat(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	fillTranscript(t, m, 2000)
	submit(m, "go on")
	_ = m.View()
	before := len(m.tr.blocks)
	emit(t, m, session.TextDelta{ItemID: "x", Delta: "hello"})
	if m.tr.dirty < before {
		t.Fatalf("a delta dirtied block %d of %d", m.tr.dirty, len(m.tr.blocks))
	}
	_ = m.View()
	for _, b := range m.tr.blocks[:before] {
		if !b.valid || b.stale {
			t.Fatal("a settled block lost its cache")
		}
	}
	if !strings.Contains(plain(m.View()), "hello") {
		t.Error("the delta is not shown")
	}
}

// BenchmarkResize measures a frame after a width change with a
// 10,000-line transcript: while the width settles (the transcript is only
// clipped) and once it has (every block is rendered again at the new
// width, once).
func BenchmarkResize(b *testing.B) {
	for _, settled := range []bool{false, true} {
		b.Run(fmt.Sprintf("settled=%v", settled), func(b *testing.B) {
			m, _ := newTestModel(b, Options{})
			fillTranscript(b, m, 10000)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				m.Update(tea.WindowSizeMsg{Width: 100 - i%2, Height: 40})
				if settled {
					m.Update(relayoutMsg{seq: m.resizeSeq})
				}
				_ = m.View()
			}
		})
	}
}
