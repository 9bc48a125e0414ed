package tui

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// BenchmarkKeystroke measures one typed character: Update inserts it and
// View draws the frame, with an empty transcript and with 10,000 lines.
// The cost must not grow with the transcript: a key touches the composer
// and the popup only. Every 40 characters the composer is emptied, so both
// sub-benchmarks type into composers of the same sizes whatever b.N is.
func BenchmarkKeystroke(b *testing.B) {
	for _, lines := range []int{0, 10000} {
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			m, _ := newTestModel(b, Options{ContextWindow: 272000})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			if lines > 0 {
				fillTranscript(b, m, lines)
			}
			_ = m.View()
			key := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'a'}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%40 == 39 {
					m.setComposer("")
				}
				key.Runes[0] = rune('a' + i%26)
				m.Update(key)
				_ = m.View()
			}
		})
	}
}

// BenchmarkMentionSearch measures the @ search of a built index of
// 100,000 paths for a query typed so far (the first results the popup
// shows): it must stay well under 100 ms.
func BenchmarkMentionSearch(b *testing.B) {
	ix := &fileIndex{}
	for i := range 100_000 {
		p := fmt.Sprintf("pkg%03d/sub%02d/file_%05d_handler.go", i%500, i%37, i)
		ix.paths, ix.lower = append(ix.paths, p), append(ix.lower, p)
	}
	for _, q := range []string{"pkg123/sub", "hndlr", "file_0999"} {
		b.Run("q="+q, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if len(ix.search(q, mentionRows)) == 0 {
					b.Fatal("no match")
				}
			}
		})
	}
}
