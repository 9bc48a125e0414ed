package tui

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	"github.com/muesli/termenv"

	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/tui/highlight"
	"github.com/agentcli/agent/tui/highlight/lexing"
)

// TestRenderMarkdown draws the Markdown a model writes, without colour
// (the ASCII profile), as the chat shows a finished answer.
func TestRenderMarkdown(t *testing.T) {
	text := "# Title\n\nSome *italic*, **bold**, `code` and ~~gone~~ text, a [link](https://x.io).\n\n" +
		"## Steps\n\n1. first step is long enough to wrap at the edge of a narrow terminal\n2. second\n   - nested\n\n" +
		"> quoted\n\n```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n| a | bb |\n|---|---|\n| 1 | 22 |\n\n- [x] done\n- [ ] todo\n\n---\n\nend"
	got, ok := newLook(nil, true, false).renderMarkdown(text, 50)
	if !ok {
		t.Fatal("renderMarkdown reported it cannot render")
	}
	want := []string{
		"   Title ",
		"",
		"  Some italic, bold,  code  and gone text, a link",
		"  https://x.io.",
		"",
		"  ## Steps",
		"",
		"  1. first step is long enough to wrap at the edge",
		"     of a narrow terminal",
		"  2. second",
		"     • nested",
		"",
		"  │ quoted",
		"",
		"    func main() {",
		"        fmt.Println(\"hi\")",
		"    }",
		"",
		"  a │ bb",
		"  ──┼───",
		"  1 │ 22",
		"",
		"  [✓] done",
		"  [ ] todo",
		"",
		"  --------",
		"",
		"  end",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered (-want +got):\n%s", diff)
	}
}

// TestRenderMarkdownFitsAndCleans: no line is wider than the width (long
// words and code are hard-wrapped), escape sequences in the text are
// dropped, and a width too small to lay out falls back to plain text.
func TestRenderMarkdownFitsAndCleans(t *testing.T) {
	l := newLook(nil, false, false)
	text := "a " + strings.Repeat("x", 80) + " \x1b[31mred\x1b[0m\n\n```\n" + strings.Repeat("y", 70) + "\n```"
	lines, ok := l.renderMarkdown(text, 30)
	if !ok {
		t.Fatal("renderMarkdown reported it cannot render")
	}
	for _, ln := range lines {
		if w := ansi.StringWidth(ln); w > 30 {
			t.Errorf("line %q is %d columns wide; want at most 30", ansi.Strip(ln), w)
		}
		if strings.Contains(ln, "\x1b[31m") {
			t.Errorf("line %q keeps the text's escape sequence", ln)
		}
	}
	if _, ok := l.renderMarkdown("hi", 4); ok {
		t.Error("renderMarkdown at 4 columns reported ok; want the plain-text fallback")
	}
}

// TestCodeBlockColoured: a fenced block in a language the highlighter
// knows is drawn in the syntax palette (a keyword, a string and a comment
// each in their colour), its text unchanged; an unknown language stays in
// the plain code colour; a model's escape sequence in code is cleaned.
func TestCodeBlockColoured(t *testing.T) {
	l := newLook(nil, false, false)
	l.hlStart = inProcessLexer(t)
	l.r.SetColorProfile(termenv.ANSI256)
	text := "```go\nfunc f() string { return \"hi\" } // note\x1b]0;evil\x07\n```\n\n```klingon\nqapla'\n```\n"
	lines, ok := l.renderMarkdown(text, 80)
	if !ok {
		t.Fatal("not rendered")
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"\x1b[38;5;170mfunc", "\x1b[38;5;114m\"hi\"", "\x1b[3;38;5;244m// note", "\x1b[38;5;244mqapla'"} {
		if !strings.Contains(all, want) {
			t.Errorf("rendered block lacks %q:\n%q", want, all)
		}
	}
	if strings.Contains(all, "\x1b]0;") {
		t.Errorf("an OSC sequence from the model reached the screen: %q", all)
	}
	if got := ansi.Strip(lines[0]); strings.TrimSpace(got) != "func f() string { return \"hi\" } // note" {
		t.Errorf("text changed: %q", got)
	}
	if l.hl == nil {
		t.Fatal("no highlighter was made")
	}
	l.hl.Close()
	if plain := newLook(nil, true, false); plain.hl != nil {
		t.Error("a highlighter is made before any code block")
	}
}

// TestCodeBlockPlainWithoutLexer: with no agent-highlight to start, a
// block in a known language is drawn in the plain code colour, its text
// unchanged.
func TestCodeBlockPlainWithoutLexer(t *testing.T) {
	l := newLook(nil, false, false)
	l.r.SetColorProfile(termenv.ANSI256)
	l.hlStart = func() (highlight.Conn, error) { return highlight.Conn{}, errors.New("agent-highlight was not found") }
	lines, ok := l.renderMarkdown("```go\nfunc f() {}\n```\n", 80)
	if !ok || len(lines) != 1 || !strings.Contains(lines[0], "\x1b[38;5;244mfunc f() {}") {
		t.Fatalf("rendered %v %q; want the block in the plain code colour", ok, lines)
	}
}

// inProcessLexer starts a lexer in process, over pipes, as agent-highlight
// runs lexing.Serve over its standard input and output.
func inProcessLexer(t *testing.T) func() (highlight.Conn, error) {
	return func() (highlight.Conn, error) {
		reqR, reqW := io.Pipe()
		respR, respW := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			respW.CloseWithError(lexing.Serve(reqR, respW))
		}()
		t.Cleanup(func() { reqW.Close(); respR.Close(); <-done })
		return highlight.Conn{W: reqW, R: respR, Close: func() error {
			reqW.Close()
			<-done
			return nil
		}}, nil
	}
}

// TestLexerMissingNotice: when agent-highlight cannot be started at the
// first code block, the chat says so once, as a warning naming why, and
// the blocks are drawn plain; later blocks start nothing and say nothing.
func TestLexerMissingNotice(t *testing.T) {
	t.Parallel()
	n := NewNotifier()
	m, _ := newTestModel(t, Options{Notices: n})
	starts := 0
	m.look.hlStart = func() (highlight.Conn, error) {
		starts++
		return highlight.Conn{}, errors.New("agent-highlight was not found beside /opt/agent or on PATH")
	}
	quit := make(chan struct{})
	defer close(quit)
	for i, item := range []string{"a1", "a2"} {
		submit(m, "show me")
		emit(t, m, session.MessageDone{ItemID: item, Text: "```go\nfunc f() {}\n```\n"})
		done(t, m, nil)
		view := plain(m.View())
		if i == 0 {
			select {
			case <-n.signal: // posted: deliver it as the program would
				n.signal <- struct{}{}
				send(m, n.next(quit)())
			default:
				t.Fatalf("no notice was posted:\n%s", view)
			}
			view = plain(m.View())
		}
		want := "⚠ code blocks are drawn without colour: agent-highlight was not found beside /opt/agent or on PATH; `agent doctor` lists"
		if c := strings.Count(strings.ReplaceAll(view, "\n  ", " "), want); c != 1 || strings.Count(view, "func f() {}") != i+1 {
			t.Fatalf("after block %d the notice is shown %d times; want once, the blocks plain:\n%s", i+1, c, view)
		}
	}
	select {
	case <-n.signal:
		t.Error("a second notice was posted")
	default:
	}
	if starts != 1 {
		t.Errorf("the lexer was started %d times; want once", starts)
	}
}

// TestReplyLinesKept: the separate lines of a reply stay separate when it
// is drawn as markdown at the turn's end (Codex does not re-flow them);
// long lines still wrap.
func TestReplyLinesKept(t *testing.T) {
	t.Parallel()
	m, _ := newTestModel(t, Options{})
	lines, ok := m.look.renderMarkdown("Summary:\nfirst change\nsecond change\n\nnext paragraph", 60)
	if !ok {
		t.Fatal("not rendered")
	}
	got := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{"  Summary:\n  first change\n  second change\n", "\n  next paragraph"} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered:\n%s\nwant it to hold %q", got, want)
		}
	}
}
