package tui

import (
	"slices"
	"strings"
)

// component is one kind of transcript entry. Render returns its lines, each
// at most width columns wide; it is called only when the entry changed or
// the width did, so it may be expensive (markdown).
type component interface {
	Render(width int, l *look) []string
}

// block is one transcript entry and its render cache.
type block struct {
	c     component
	idx   int  // position in the transcript
	stale bool // c changed since lines were rendered
	valid bool // lines hold c rendered at width
	width int
	lines []string
}

// render returns the block's lines at width, rendering only when needed.
func (b *block) render(width int, l *look) []string {
	if !b.valid || b.stale || b.width != width {
		b.lines = b.c.Render(width, l)
		b.width, b.valid, b.stale = width, true, false
	}
	return b.lines
}

// userMsg is something the user sent.
type userMsg struct{ text string }

// Render implements component.
func (u userMsg) Render(width int, l *look) []string {
	lines := wrap(u.text, width, "  ")
	lines[0] = l.user.Render("›") + lines[0][1:]
	return lines
}

// agentMsg is an assistant message: plain text while it streams, markdown
// once it is done. A discarded message is the partial text of an attempt
// that was interrupted or failed, kept on screen but marked; discarded
// says why.
type agentMsg struct {
	stream    streamText
	done      bool
	text      string // the final text, when done
	discarded string
}

// Render implements component.
func (a *agentMsg) Render(width int, l *look) []string {
	if a.done {
		if lines, ok := l.renderMarkdown(a.text, width); ok {
			return lines
		}
		return wrap(a.text, width, "  ")
	}
	lines := a.stream.lines(width, "  ")
	if a.discarded != "" {
		out := make([]string, 0, len(lines)+1)
		for _, ln := range lines {
			out = append(out, l.dim.Render(ln))
		}
		return append(out, l.dim.Render(truncate("  ("+a.discarded+": this partial answer was not kept)", width)))
	}
	return lines
}

// reasoningMsg is a reasoning summary, drawn dim.
type reasoningMsg struct {
	stream    streamText
	done      bool
	text      string
	discarded string // why the partial text was not kept, if it was not
}

// Render implements component.
func (r *reasoningMsg) Render(width int, l *look) []string {
	var lines []string
	if r.done {
		lines = wrap(r.text, width, "  ")
	} else {
		lines = r.stream.lines(width, "  ")
	}
	out := make([]string, 0, len(lines))
	for i, ln := range lines {
		if i == 0 {
			ln = "✻" + ln[1:] // a reasoning summary, not the answer
		}
		out = append(out, l.reasoning.Render(ln))
	}
	if r.discarded != "" {
		out = append(out, l.dim.Render(truncate("  ("+r.discarded+": not kept)", width)))
	}
	return out
}

// streamText is text that grows by deltas. It wraps incrementally: the
// lines before the last newline are wrapped once and kept, so a delta costs
// the wrapping of the last paragraph only.
type streamText struct {
	b      strings.Builder
	frozen []string // wrapped lines of b[:frozenAt] (without its final newline)
	at     int      // frozenAt: the byte after the newline that ends the frozen text
	width  int
	indent string
}

func (s *streamText) write(delta string) { s.b.WriteString(clean(delta)) }

func (s *streamText) String() string { return s.b.String() }

// lines returns the wrapped text.
func (s *streamText) lines(width int, indent string) []string {
	txt := s.b.String()
	cut := strings.LastIndexByte(txt, '\n') + 1
	if s.width != width || s.indent != indent || s.at > cut {
		s.frozen, s.at, s.width, s.indent = nil, 0, width, indent
	}
	if cut > s.at {
		s.frozen = append(s.frozen, wrap(txt[s.at:cut-1], width, indent)...)
		s.at = cut
	}
	return append(slices.Clip(s.frozen), wrap(txt[cut:], width, indent)...)
}

// noticeLevel says how a notice is drawn.
type noticeLevel int

const (
	levelInfo noticeLevel = iota
	levelWarn
	levelError
	levelInterrupted
	levelRetry
)

// notice is a one-paragraph message: a warning, an error with what to do,
// command output, a retry record.
type notice struct {
	level noticeLevel
	text  string
	body  []string // preformatted lines (command output), cut to the width
	hint  []string // dim paragraphs after the body (what to do next)
}

// Render implements component.
func (n *notice) Render(width int, l *look) []string {
	mark, style := "•", l.dim
	switch n.level {
	case levelWarn:
		mark, style = "⚠", l.warn
	case levelError:
		mark, style = "✗", l.fail
	case levelInterrupted:
		mark, style = "■", l.dim
	case levelRetry:
		mark, style = "↻", l.dim
	}
	var out []string
	if n.text != "" {
		lines := wrap(n.text, width, "  ")
		for i, ln := range lines {
			if i == 0 {
				ln = mark + ln[1:]
			}
			if n.level == levelInfo {
				out = append(out, ln)
				continue
			}
			out = append(out, style.Render(ln))
		}
	}
	for _, ln := range n.body {
		out = append(out, truncate(ln, width))
	}
	for _, h := range n.hint {
		for _, ln := range wrap(h, width, "  ") {
			out = append(out, l.dim.Render(ln))
		}
	}
	return out
}
