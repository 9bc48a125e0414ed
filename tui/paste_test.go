package tui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/syncbuf"
	"github.com/agentcli/agent/tools"
)

// TestKeyWordsInOneChunkAreText: the names of keys arriving as one chunk
// of text (no bracketed paste) are typed, never pressed.
func TestKeyWordsInOneChunkAreText(t *testing.T) {
	t.Parallel()
	for _, word := range []string{"enter", "up", "down", "esc", "ctrl+c", "ctrl+d", "backspace", "pgup", "ctrl+j", "alt+enter"} {
		t.Run(word, func(t *testing.T) {
			t.Parallel()
			m, _ := newTestModel(t, Options{})
			submit(m, "earlier") // something for "up" to recall
			done(t, m, nil)
			typeText(m, "say ")
			cmd := send(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(word)})
			if isQuit(cmd) || m.turn != nil {
				t.Fatalf("%q acted as a key (quit=%v, turn=%v)", word, isQuit(cmd), m.turn != nil)
			}
			if got := m.composer.Value(); got != "say "+word {
				t.Errorf("composer = %q, want %q", got, "say "+word)
			}
		})
	}
}

// TestBracketedPasteIsText: a bracketed paste, line breaks included, goes
// into the composer as text; Enter then sends all of it.
func TestBracketedPasteIsText(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	send(m, tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("first line\r\nenter\rup\nesc")})
	if m.turn != nil {
		t.Fatal("the paste started a turn")
	}
	want := "first line\nenter\nup\nesc"
	if got := m.composer.Value(); got != want {
		t.Fatalf("composer = %q, want %q", got, want)
	}
	view := plain(m.View())
	for _, ln := range []string{"› first line", "  enter", "  up", "  esc"} {
		if !strings.Contains(view, ln) {
			t.Errorf("the composer does not show %q:\n%s", ln, view)
		}
	}
	send(m, press("enter"))
	if m.turn == nil || m.composer.Value() != "" || len(m.hist.entries) != 1 || m.hist.entries[0] != want {
		t.Fatalf("enter did not send the pasted text: turn %v, history %q", m.turn != nil, m.hist.entries)
	}
}

// TestApprovalIgnoresText: text that arrives in one chunk ("yes", a
// paste of "y") answers nothing; a typed y does.
func TestApprovalIgnoresText(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	p := askToRemoveBuild(t, m)
	for _, k := range []tea.KeyMsg{
		{Type: tea.KeyRunes, Runes: []rune("yes")},
		{Type: tea.KeyRunes, Runes: []rune("esc")},
		{Type: tea.KeyRunes, Runes: []rune("y"), Paste: true},
		{Type: tea.KeyRunes, Runes: []rune("a"), Alt: true},
	} {
		runCmd(send(m, k))
		if len(m.approvals) != 1 {
			t.Fatalf("%q (paste %v) answered the prompt", string(k.Runes), k.Paste)
		}
	}
	runCmd(send(m, press("y")))
	if got := <-p.reply; got.Kind != tools.ApproveOnce {
		t.Errorf("decision %v, want approve once", got.Kind)
	}
}

// chunkReader returns one chunk per Read (what is left of it, when the
// buffer is too small).
type chunkReader struct{ chunks []string }

func (c *chunkReader) Read(b []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(b, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

func TestPasteReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"text with a line break becomes a paste", []string{"ls -la\rpwd\r"}, []string{pasteStart + "ls -la\rpwd\r" + pasteEnd}},
		{"text and Enter in one chunk are typed text and Enter", []string{"say enter\r"}, []string{"say enter\r"}},
		{"text, Enter and more text is a paste", []string{"one\rtwo"}, []string{pasteStart + "one\rtwo" + pasteEnd}},
		{"text and two Enters is a paste", []string{"one\r\r"}, []string{pasteStart + "one\r\r" + pasteEnd}},
		{"a line break first, then text, is a paste", []string{"\rtwo"}, []string{pasteStart + "\rtwo" + pasteEnd}},
		{"text and a newline (ctrl+j) is a paste", []string{"one\n"}, []string{pasteStart + "one\n" + pasteEnd}},
		{"a read that fills the buffer and ends in Enter is a paste going on",
			[]string{strings.Repeat("a", 240) + "\r", "b\r", "c"},
			[]string{pasteStart + strings.Repeat("a", 240) + "\r" + pasteEnd, pasteStart + "b\r" + pasteEnd, "c"}},
		{"a paste going on through a full read without a break",
			[]string{"x\r" + strings.Repeat("a", 239), strings.Repeat("b", 241), "c\r"},
			[]string{pasteStart + "x\r" + strings.Repeat("a", 239) + pasteEnd, strings.Repeat("b", 241), pasteStart + "c\r" + pasteEnd}},
		{"long typed text and Enter over several reads",
			[]string{strings.Repeat("a", 241), strings.Repeat("b", 241), "c\r"},
			[]string{strings.Repeat("a", 241), strings.Repeat("b", 241), "c\r"}},
		{"a rune cut by a full read is finished",
			[]string{strings.Repeat("a", 240) + "\xc3", "\xa9\r"},
			[]string{strings.Repeat("a", 240) + "é", "\r"}},
		{"text alone is left alone", []string{"enter"}, []string{"enter"}},
		{"Enter alone is a key", []string{"hello", "\r"}, []string{"hello", "\r"}},
		{"two Enters are keys", []string{"\r\r"}, []string{"\r\r"}},
		{"escape sequences are keys", []string{"\x1b[A\r"}, []string{"\x1b[A\r"}},
		{"control keys are keys", []string{"ab\x03\r"}, []string{"ab\x03\r"}},
		{"a terminal's own paste is left alone, across reads",
			[]string{pasteStart + "one\r", "two\r", "three" + pasteEnd, "four\r"},
			[]string{pasteStart + "one\r", "two\r", "three" + pasteEnd, "four\r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &pasteReader{r: &chunkReader{chunks: tt.chunks}}
			var got []string
			for {
				b := make([]byte, 256)
				n, err := p.Read(b)
				if err != nil {
					break
				}
				got = append(got, string(b[:n]))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnbracketedPasteThroughTheProgram: a chunk of text with line breaks
// (a paste into a terminal without bracketed paste) reaches the composer
// as text with newlines through the real program loop; the Enter pressed
// afterwards sends it as one message.
func TestUnbracketedPasteThroughTheProgram(t *testing.T) {
	t.Parallel()
	eng := &scriptEngine{started: make(chan struct{}), returned: make(chan struct{})}
	eng.inputs = []string{"(first turn already ran)"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in := &keyScript{ctx: ctx, steps: []keyStep{{keys: "first\renter\rup"}, {keys: "\r"}, {after: eng.started, keys: "\x04"}}}
	_, err := run(ctx, Options{Engine: eng, Input: in, Output: &syncbuf.Buffer{}, NoColor: true, Now: newClock().now},
		tea.WithoutSignalHandler())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	<-eng.returned
	if diff := cmp.Diff([]string{"(first turn already ran)", "first\nenter\nup"}, eng.inputs); diff != "" {
		t.Errorf("turn inputs (-want +got):\n%s", diff)
	}
}

// TestTextAndEnterInOneChunkSubmits: text and a carriage return read in one
// chunk (`tmux send-keys TEXT Enter`) send exactly the text, through the
// real program loop.
func TestTextAndEnterInOneChunkSubmits(t *testing.T) {
	t.Parallel()
	eng := &scriptEngine{started: make(chan struct{}), returned: make(chan struct{})}
	eng.inputs = []string{"(first turn already ran)"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in := &keyScript{ctx: ctx, steps: []keyStep{{keys: "say enter, then up\r"}, {after: eng.started, keys: "\x04"}}}
	_, err := run(ctx, Options{Engine: eng, Input: in, Output: &syncbuf.Buffer{}, NoColor: true, Now: newClock().now},
		tea.WithoutSignalHandler())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	<-eng.returned
	if diff := cmp.Diff([]string{"(first turn already ran)", "say enter, then up"}, eng.inputs); diff != "" {
		t.Errorf("turn inputs (-want +got):\n%s", diff)
	}
}

// TestComposerShowsEveryLine: a multi-line composer shows all its lines
// while they fit, and scrolls beyond the bound with every line reachable.
func TestComposerShowsEveryLine(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	send(m, tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("alpha\nbravo\ncharlie")})
	view := plain(m.View())
	for _, want := range []string{"› alpha", "  bravo", "  charlie"} {
		if !strings.Contains(view, want) {
			t.Errorf("composer does not show %q:\n%s", want, view)
		}
	}
	// Typed line by line (Ctrl+J), 12 lines: the composer stops at its
	// bound, shows the cursor's line, and Up reaches the first line.
	m, _ = newTestModel(t, Options{})
	for i := range 12 {
		if i > 0 {
			send(m, press("ctrl+j"))
		}
		typeText(m, "line"+string(rune('A'+i)))
	}
	view = plain(m.View())
	if !strings.Contains(view, "  lineL") || strings.Contains(view, "lineA") {
		t.Errorf("at the end, the composer should show the last line, not the first:\n%s", view)
	}
	if n := strings.Count(view, "  line") + strings.Count(view, "› line"); n != maxComposer {
		t.Errorf("composer shows %d lines, want its bound %d:\n%s", n, maxComposer, view)
	}
	for range 11 {
		send(m, press("up"))
	}
	view = plain(m.View())
	if !strings.Contains(view, "› lineA") {
		t.Errorf("Up does not reach the first line:\n%s", view)
	}
	// Growing line by line (each new line scrolls the composer before it
	// grows) still shows every line.
	m, _ = newTestModel(t, Options{})
	typeText(m, "x")
	for _, k := range []string{"ctrl+j", "2", "alt+enter", "3", "ctrl+j", "4"} {
		send(m, press(k))
	}
	view = plain(m.View())
	for _, want := range []string{"› x", "  2", "  3", "  4"} {
		if !strings.Contains(view, want) {
			t.Errorf("composer does not show %q:\n%s", want, view)
		}
	}
}
