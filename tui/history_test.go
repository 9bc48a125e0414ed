package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/session"
)

func TestHistoryFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "agent", "history.jsonl")
	if got, err := readHistory(path, historyTail); err != nil || got != nil {
		t.Fatalf("missing file: %q, %v", got, err)
	}
	if err := appendHistory(path, 0, historyEntry{TS: 1, Text: "one"}, historyEntry{TS: 2, Text: "two\nlines"}); err != nil {
		t.Fatal(err)
	}
	// A torn line (a crash mid-write elsewhere) and a repeat are skipped.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"ts":3,"te` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := appendHistory(path, 0, historyEntry{TS: 4, Text: "two\nlines"}, historyEntry{TS: 5, Text: "three"}); err != nil {
		t.Fatal(err)
	}
	got, err := readHistory(path, historyTail)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"one", "two\nlines", "three"}, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, %v; want 0600", st.Mode().Perm(), err)
	}
	// Reading only the tail drops the cut first line.
	got, err = readHistory(path, int64(len(`{"session_id":"","ts":5,"text":"three"}`)+3))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"three"}, got); diff != "" {
		t.Errorf("tail (-want +got):\n%s", diff)
	}
}

func TestHistoryLoadsBeforeWhatWasSent(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	submit(m, "typed early")
	send(m, historyMsg{entries: []string{"old1", "old2"}})
	if diff := cmp.Diff([]string{"old1", "old2", "typed early"}, m.hist.entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	runCmd(done(t, m, nil))
	send(m, press("up"))
	if got := m.composer.Value(); got != "typed early" {
		t.Errorf("up recalls %q", got)
	}
}

func TestHistoryWritesAreOrdered(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	m := newLiveModel(t, Options{HistoryPath: path})
	first := submit(m, "first") // the write is in flight
	submit(m, "second")         // waits for it
	submit(m, "third")
	pending := runCmd(first)
	for len(pending) > 0 {
		msg := pending[0]
		pending = pending[1:]
		if _, ok := msg.(historySavedMsg); ok {
			pending = append(pending, runCmd(send(m, msg))...)
		}
	}
	got, err := readHistory(path, historyTail)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first", "second", "third"}, got); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
}

func TestViewFitsTheScreen(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}, {40, 10}, {20, 5}} {
		m, _ := newTestModel(t, Options{})
		send(m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		submit(m, strings.Repeat("a long question ", 20))
		emit(t, m, session.TextDelta{ItemID: "m", Delta: strings.Repeat("word ", 200)})
		lines := strings.Split(m.View(), "\n")
		if len(lines) != size[1] {
			t.Errorf("%v: %d lines", size, len(lines))
		}
		for _, ln := range lines {
			if w := ansi.StringWidth(ln); w > size[0] {
				t.Errorf("%v: a line is %d wide: %q", size, w, ln)
			}
		}
	}
}

func TestResizeSettlesBeforeRelayout(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	fillTranscript(t, m, bigTranscript)
	send(m, tea.WindowSizeMsg{Width: 60, Height: 24})
	if m.layoutWidth != 80 {
		t.Fatalf("a long transcript was laid out at once for %d", m.layoutWidth)
	}
	for _, ln := range strings.Split(m.View(), "\n") {
		if ansi.StringWidth(ln) > 60 {
			t.Fatalf("a line is wider than the screen while settling: %q", ln)
		}
	}
	stale := m.resizeSeq
	send(m, tea.WindowSizeMsg{Width: 70, Height: 24})
	send(m, relayoutMsg{seq: stale})
	if m.layoutWidth != 80 {
		t.Error("a stale relayout applied")
	}
	send(m, relayoutMsg{seq: m.resizeSeq})
	if m.layoutWidth != 70 {
		t.Errorf("layout width %d after settling, want 70", m.layoutWidth)
	}
}
