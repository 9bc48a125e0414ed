package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// BenchmarkMentionFirstResults: from the start of the walk of a
// 100,000-file tree to the first @ results (the first part of the index
// searched), and to the whole index, as reported metrics (issue 44: first
// results ≤ 500 ms).
func BenchmarkMentionFirstResults(b *testing.B) {
	root := b.TempDir()
	for d := range 500 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 200 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file_%03d_handler.go", f)), nil, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	var first, whole time.Duration
	for range b.N {
		start := time.Now()
		var got bool
		ix, err := buildFileIndex(context.Background(), root, func(p *fileIndex) {
			if !got && len(p.search("hndlr", mentionRows)) > 0 {
				got = true
				first += time.Since(start)
			}
		})
		if err != nil || len(ix.paths) != 100_000 || !got {
			b.Fatalf("index of %d files, %v, first results %v", len(ix.paths), err, got)
		}
		whole += time.Since(start)
	}
	b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "ms-first-results")
	b.ReportMetric(float64(whole.Milliseconds())/float64(b.N), "ms-whole-index")
}
