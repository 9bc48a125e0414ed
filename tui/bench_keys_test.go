package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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

// mentionTyping are the @ queries of BenchmarkMentionKeystrokes, as typed
// one key at a time ("<" is a backspace).
var mentionTyping = []string{"handler<", "srvcfg<", "auth/tok<", "Session<", "usrprfl<"}

// BenchmarkMentionKeystrokes types @ queries one key at a time into the
// composer over a 2,000-file and a 100,000-file repository (genTree),
// alternating between them query by query: each key's Update, the search it starts (run
// at once, as its goroutine would), the answer's Update and the frame.
// Reported: µs per key for each, the search's share, and the ratios
// (issue 44: the 100,000-file keystroke ≤ 2× the 2,000-file one); and
// where the thread's CPU time is known, the same in CPU time (cpu-…),
// which the machine's other work does not add to.
func BenchmarkMentionKeystrokes(b *testing.B) {
	runtime.LockOSThread() // threadCPU is this goroutine's
	defer runtime.UnlockOSThread()
	sizes := []int{2000, 100_000}
	paths := genTree(sizes[1])
	var models [2]*Model
	for k, n := range sizes {
		m, _ := newTestModel(b, Options{ContextWindow: 272000})
		m.jobs = newJobs() // the test model's jobs are stopped: searches must run
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m.pop.files, m.pop.building = indexOf(paths[:n]), true // indexed; no walk
		models[k] = m
	}
	var keyTime, searchTime, keyCPU, searchCPU [2]time.Duration
	keys := 0
	b.ResetTimer()
	for range b.N {
		for _, typed := range mentionTyping {
			for k, m := range models { // alternating, so both see the same load
				m.setComposer("see ")
				m.pop.answersOf = nil // a popup opened anew: nothing answered yet
				for _, r := range "@" + typed {
					key := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}
					if r == '<' {
						key = tea.KeyMsg{Type: tea.KeyBackspace}
					}
					start, startCPU := time.Now(), cpuNow()
					_, cmd := m.Update(key)
					s, sCPU := time.Now(), cpuNow()
					msgs := runCmd(cmd)
					searchTime[k] += time.Since(s)
					searchCPU[k] += cpuNow() - sCPU
					for _, msg := range msgs {
						m.Update(msg)
					}
					_ = m.View()
					keyTime[k] += time.Since(start)
					keyCPU[k] += cpuNow() - startCPU
					if k == 0 {
						keys++
					}
				}
			}
		}
	}
	b.StopTimer()
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(keys) }
	b.ReportMetric(us(keyTime[0]), "µs/key-2k")
	b.ReportMetric(us(keyTime[1]), "µs/key-100k")
	b.ReportMetric(us(searchTime[0]), "search-µs/key-2k")
	b.ReportMetric(us(searchTime[1]), "search-µs/key-100k")
	b.ReportMetric(float64(keyTime[1])/float64(keyTime[0]), "key-ratio")
	b.ReportMetric(float64(searchTime[1])/float64(searchTime[0]), "search-ratio")
	if _, ok := threadCPU(); ok {
		b.ReportMetric(us(keyCPU[0]), "cpu-µs/key-2k")
		b.ReportMetric(us(keyCPU[1]), "cpu-µs/key-100k")
		b.ReportMetric(us(searchCPU[0]), "cpu-search-µs/key-2k")
		b.ReportMetric(us(searchCPU[1]), "cpu-search-µs/key-100k")
		b.ReportMetric(float64(keyCPU[1])/float64(keyCPU[0]), "cpu-key-ratio")
	}
}

// cpuNow is threadCPU's time (0 where it is not known).
func cpuNow() time.Duration {
	d, _ := threadCPU()
	return d
}
