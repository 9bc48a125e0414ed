package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/agentcli/agent/tui/highlight"
)

// mdStyles are the styles of rendered Markdown, bound to the look's
// renderer. The layout follows glamour's standard dark and light themes
// (a two-column margin, "• " and "1. " items, code spans padded by a
// space, "│ " quotes), which the chat used before; it is drawn here,
// directly from goldmark's syntax tree, because linking glamour brings in
// chroma, whose registries cost every process of the binary (agent exec
// included) about 15 ms and 10 MiB at start-up (BENCHMARKS.md).
type mdStyles struct {
	heading, emph, strong, strike, code, codeBlock, link, linkText, quote, rule lipgloss.Style
	// syntax colours a code block's spans by class (package highlight).
	syntax [highlight.Heading + 1]lipgloss.Style
}

func newMDStyles(r *lipgloss.Renderer, t theme) mdStyles {
	s := r.NewStyle
	accent, code, codeBG, link := t.accent, t.code, t.codeBG, t.link
	st := mdStyles{
		heading:   s().Bold(true).Foreground(lipgloss.Color(accent)),
		emph:      s().Italic(true),
		strong:    s().Bold(true),
		strike:    s().Strikethrough(true),
		code:      s().Foreground(lipgloss.Color(code)).Background(lipgloss.Color(codeBG)),
		codeBlock: s().Foreground(lipgloss.Color("244")),
		link:      s().Foreground(lipgloss.Color(link)).Underline(true),
		linkText:  s().Foreground(lipgloss.Color("35")).Bold(true),
		quote:     s().Faint(true),
		rule:      s().Foreground(lipgloss.Color("240")),
	}
	// The theme's colour of each class ("": the terminal's).
	for c, col := range t.syntax {
		st.syntax[c] = s().Foreground(lipgloss.Color(col))
	}
	st.syntax[highlight.Comment] = st.syntax[highlight.Comment].Italic(true)
	return st
}

// markdownParser parses CommonMark with GitHub's tables, strikethrough
// and task lists.
func markdownParser() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList))
}

// mdRender draws one document.
type mdRender struct {
	st  *mdStyles
	src []byte
	// hl returns the look's highlighter, made on the first code block.
	hl func() *highlight.Highlighter
}

// renderMarkdown renders text as markdown for width columns, or returns
// ok=false when it cannot (the caller shows plain text instead).
func (l *look) renderMarkdown(text string, width int) (lines []string, ok bool) {
	if width < 8 {
		return nil, false
	}
	if l.md == nil {
		l.md = markdownParser()
	}
	src := []byte(text)
	doc := l.md.Parser().Parse(textReader(src))
	r := mdRender{st: &l.mdStyle, src: src, hl: func() *highlight.Highlighter {
		if l.hl == nil {
			l.hl = &highlight.Highlighter{Start: l.hlStart, StartFailed: l.hlFailed}
		}
		return l.hl
	}}
	lines = r.blocks(doc, width-2, "  ") // the margin of glamour's themes
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil, false
	}
	return fit(lines, width), true
}

func textReader(src []byte) text.Reader { return text.NewReader(src) }

// blocks renders the block children of n, width columns wide after
// prefix, separated by blank lines (tight list items are not).
func (r *mdRender) blocks(n ast.Node, width int, prefix string) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b := r.block(c, width, prefix)
		if len(b) == 0 {
			continue
		}
		if len(out) > 0 && !tightItem(c) {
			out = append(out, strings.TrimRight(prefix, " "))
		}
		out = append(out, b...)
	}
	return out
}

// tightItem reports whether c is a block that follows its sibling without
// a blank line: the text of a tight list item.
func tightItem(c ast.Node) bool {
	if c.Kind() == ast.KindTextBlock {
		return true
	}
	if l, ok := c.Parent().(*ast.List); ok && c.Kind() == ast.KindListItem {
		return l.IsTight
	}
	if it := c.Parent(); it != nil && it.Kind() == ast.KindListItem {
		if l, ok := it.Parent().(*ast.List); ok {
			return l.IsTight
		}
	}
	return false
}

func (r *mdRender) block(n ast.Node, width int, prefix string) []string {
	width = max(width, 4)
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return r.wrap(r.inlines(n), width, prefix, prefix)
	case *ast.Heading:
		title := ansi.Strip(r.inlines(n))
		if n.Level == 1 {
			title = " " + title + " "
		} else {
			title = strings.Repeat("#", n.Level) + " " + title
		}
		return r.wrap(r.st.heading.Render(title), width, prefix, prefix)
	case *ast.ThematicBreak:
		return []string{prefix + r.st.rule.Render("--------")}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		if out, ok := r.highlighted(n, prefix); ok {
			return out
		}
		var out []string
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			ln := strings.TrimRight(string(seg.Value(r.src)), "\n")
			out = append(out, prefix+"  "+r.st.codeBlock.Render(clean(ln)))
		}
		return out
	case *ast.Blockquote:
		bar := r.st.quote.Render("│ ")
		return r.blocks(n, width-2, prefix+bar)
	case *ast.List:
		return r.list(n, width, prefix)
	case *ast.HTMLBlock:
		var out []string
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			out = append(out, r.wrap(clean(strings.TrimRight(string(seg.Value(r.src)), "\n")), width, prefix, prefix)...)
		}
		return out
	case *east.Table:
		return r.table(n, width, prefix)
	}
	return r.blocks(n, width, prefix)
}

// list renders a list's items: "• " or "N. " before the first line, the
// rest indented under it.
func (r *mdRender) list(l *ast.List, width int, prefix string) []string {
	var out []string
	num := l.Start
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		marker := "• "
		switch {
		case l.IsOrdered():
			marker = strconv.Itoa(num) + ". "
			num++
		case isTask(it):
			marker = "" // the check box is the marker
		}
		pad := strings.Repeat(" ", ansi.StringWidth(marker))
		body := r.blocks(it, width-len(pad), prefix+pad)
		if len(body) == 0 {
			body = []string{prefix + pad}
		}
		body[0] = prefix + marker + strings.TrimPrefix(body[0], prefix+pad)
		if len(out) > 0 && !l.IsTight {
			out = append(out, strings.TrimRight(prefix, " "))
		}
		out = append(out, body...)
	}
	return out
}

// isTask reports whether a list item starts with a task check box.
func isTask(it ast.Node) bool {
	if first := it.FirstChild(); first != nil {
		_, ok := first.FirstChild().(*east.TaskCheckBox)
		return ok
	}
	return false
}

// table renders a GitHub table with columns as wide as their widest cell.
func (r *mdRender) table(t *east.Table, width int, prefix string) []string {
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.inlines(c))
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	sep := r.st.rule.Render(" │ ")
	var out []string
	for i, row := range rows {
		var b strings.Builder
		for j, c := range row {
			if j > 0 {
				b.WriteString(sep)
			}
			b.WriteString(c + strings.Repeat(" ", widths[j]-ansi.StringWidth(c)))
		}
		out = append(out, prefix+strings.TrimRight(b.String(), " "))
		if i == 0 && t.FirstChild().Kind() == east.KindTableHeader {
			var rule []string
			for _, w := range widths {
				rule = append(rule, strings.Repeat("─", w))
			}
			out = append(out, prefix+r.st.rule.Render(strings.Join(rule, "─┼─")))
		}
	}
	return out
}

// wrap word-wraps styled text to width columns, the first line after
// first, the others after rest.
func (r *mdRender) wrap(s string, width int, first, rest string) []string {
	var out []string
	for i, ln := range strings.Split(s, "\n") {
		if ansi.StringWidth(ln) > width {
			ln = ansi.Wrap(ln, width, "")
		}
		for j, part := range strings.Split(ln, "\n") {
			p := rest
			if i == 0 && j == 0 {
				p = first
			}
			out = append(out, p+part)
		}
	}
	return out
}

// inlines renders the inline children of n as one styled string ("\n" at
// line breaks, soft ones too).
func (r *mdRender) inlines(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(&b, c)
	}
	return b.String()
}

func (r *mdRender) inline(b *strings.Builder, n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		b.WriteString(clean(string(n.Segment.Value(r.src))))
		if n.HardLineBreak() || n.SoftLineBreak() {
			// A line break the model wrote stays one, as Codex draws it:
			// the lines of a reply are not re-flowed when it ends.
			b.WriteByte('\n')
		}
	case *ast.String:
		b.WriteString(clean(string(n.Value)))
	case *ast.CodeSpan:
		var code strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				code.WriteString(string(t.Segment.Value(r.src)))
			}
		}
		b.WriteString(r.st.code.Render(" " + clean(code.String()) + " "))
	case *ast.Emphasis:
		st := r.st.emph
		if n.Level >= 2 {
			st = r.st.strong
		}
		b.WriteString(styleEach(st, r.inlines(n)))
	case *east.Strikethrough:
		b.WriteString(styleEach(r.st.strike, r.inlines(n)))
	case *ast.Link:
		label, dest := r.inlines(n), clean(string(n.Destination))
		if ansi.Strip(label) == dest || label == "" {
			b.WriteString(r.st.link.Render(dest))
			return
		}
		b.WriteString(styleEach(r.st.linkText, label) + " " + r.st.link.Render(dest))
	case *ast.AutoLink:
		b.WriteString(r.st.link.Render(clean(string(n.URL(r.src)))))
	case *ast.Image:
		b.WriteString("Image: " + ansi.Strip(r.inlines(n)) + " → " + r.st.link.Render(clean(string(n.Destination))))
	case *ast.RawHTML:
		for i := range n.Segments.Len() {
			seg := n.Segments.At(i)
			b.WriteString(clean(string(seg.Value(r.src))))
		}
	case *east.TaskCheckBox:
		if n.IsChecked {
			b.WriteString("[✓] ")
		} else {
			b.WriteString("[ ] ")
		}
	default:
		b.WriteString(r.inlines(n))
	}
}

// styleEach applies st to each line of s, so a style never spans a line
// break (wrapping and the frame cut lines apart).
func styleEach(st lipgloss.Style, s string) string {
	if s == "" {
		return ""
	}
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = st.Render(p)
	}
	return strings.Join(parts, "\n")
}

// highlighted draws a fenced code block whose language the highlighter
// knows, coloured; ok is false for any other block.
func (r mdRender) highlighted(n ast.Node, prefix string) (out []string, ok bool) {
	fc, isFenced := n.(*ast.FencedCodeBlock)
	if !isFenced || fc.Info == nil || r.hl == nil {
		return nil, false
	}
	var code strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		code.Write(seg.Value(r.src))
	}
	spans, ok := r.hl().Lines(string(fc.Language(r.src)), code.String())
	if !ok {
		return nil, false
	}
	for _, line := range spans {
		var b strings.Builder
		b.WriteString(prefix + "  ")
		for _, s := range line {
			b.WriteString(r.st.syntax[s.Class].Render(clean(s.Text)))
		}
		out = append(out, b.String())
	}
	return out, true
}
