package tui

import (
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/yuin/goldmark"
	"golang.org/x/term"

	"github.com/agentcli/agent/internal/termtext"
	"github.com/agentcli/agent/tui/highlight"
)

// look is how things are drawn: the styles, bound to one lipgloss renderer
// (never the global default one, which would query the terminal), and the
// markdown parser (made on first use). It is used from the program's
// goroutine only.
type look struct {
	r       *lipgloss.Renderer
	mdStyle mdStyles
	md      goldmark.Markdown
	// hl colours code blocks; nil until the first one is drawn. hlStart
	// starts its lexer; nil is agent-highlight (tests lex in process).
	// hlFailed is told why it could not start.
	hl       *highlight.Highlighter
	hlStart  func() (highlight.Conn, error)
	hlFailed func(error)

	user, assistant, dim, reasoning, bold  lipgloss.Style
	warn, fail, ok, accent, add, del, hunk lipgloss.Style
	key, border                            lipgloss.Style
	// theme is the name of the theme in use (/theme).
	theme string
}

// setTheme draws Markdown and code in t from now on; the transcript is to
// be laid out again (transcript.restyle).
func (l *look) setTheme(t theme) {
	l.r.SetHasDarkBackground(!t.light)
	l.mdStyle, l.theme = newMDStyles(l.r, t), t.name
}

// newLook returns the look for output w. noColor forces the ASCII profile
// (no colours at all); the profile is otherwise read from the environment,
// without querying the terminal.
func newLook(w io.Writer, noColor, light bool) *look {
	if w == nil {
		w = os.Stdout // bubbletea's default output
	}
	// termenv takes only an *os.File for a terminal; the chat draws on one
	// wrapped (its secrets masked), which would read as no colour at all.
	var tty []termenv.OutputOption
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) {
		tty = append(tty, termenv.WithTTY(true))
	}
	r := lipgloss.NewRenderer(w, tty...)
	if noColor {
		r.SetColorProfile(termenv.Ascii)
	}
	// Never ask the terminal for its background: the question costs a round
	// trip and can hang on terminals that do not answer.
	r.SetHasDarkBackground(!light)
	t, _ := themeNamed(agentTheme)
	if light {
		t, _ = themeNamed(agentLight)
	}
	l := &look{r: r}
	l.setTheme(t)
	s := r.NewStyle
	l.user = s().Foreground(lipgloss.Color("6")).Bold(true)
	l.assistant = s()
	l.dim = s().Faint(true)
	l.reasoning = s().Faint(true).Italic(true)
	l.bold = s().Bold(true)
	l.warn = s().Foreground(lipgloss.Color("3"))
	l.fail = s().Foreground(lipgloss.Color("1")).Bold(true)
	l.ok = s().Foreground(lipgloss.Color("2"))
	l.accent = s().Foreground(lipgloss.Color("6"))
	l.add = s().Foreground(lipgloss.Color("2"))
	l.del = s().Foreground(lipgloss.Color("1"))
	l.hunk = s().Foreground(lipgloss.Color("6"))
	l.key = s().Bold(true).Foreground(lipgloss.Color("6"))
	l.border = s().Foreground(lipgloss.Color("8"))
	return l
}

// fit hard-wraps the lines wider than width (code blocks, long URLs), so no
// line ever wraps in the terminal and breaks the layout.
func fit(lines []string, width int) []string {
	for i, ln := range lines {
		if ansi.StringWidth(ln) <= width {
			continue
		}
		out := append([]string(nil), lines[:i]...)
		for _, ln := range lines[i:] {
			if ansi.StringWidth(ln) <= width {
				out = append(out, ln)
				continue
			}
			out = append(out, strings.Split(ansi.Hardwrap(ln, width, true), "\n")...)
		}
		return out
	}
	return lines
}

// wrap word-wraps plain text (no escape sequences) to width columns, each
// line prefixed with indent (whose width counts).
func wrap(text string, width int, indent string) []string {
	w := max(1, width-ansi.StringWidth(indent))
	var out []string
	for _, ln := range strings.Split(text, "\n") {
		if ansi.StringWidth(ln) > w {
			ln = ansi.Wrap(ln, w, "")
		}
		for _, part := range strings.Split(ln, "\n") {
			out = append(out, indent+part)
		}
	}
	return out
}

// clean makes untrusted text (model output, command output) safe to draw:
// [termtext.Sanitize] removes every escape sequence but colours and every
// control character but newline and tab, and ends lines at carriage
// returns; the chat then drops the colours (it draws its own) and turns
// tabs into spaces. What is unsafe is termtext's decision alone.
func clean(s string) string {
	s = termtext.Sanitize(s)
	if strings.IndexByte(s, '\x1b') >= 0 {
		s = ansi.Strip(s) // colours are all Sanitize keeps
	}
	return strings.ReplaceAll(s, "\t", "    ")
}

// truncate cuts s to width columns with an ellipsis.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}
