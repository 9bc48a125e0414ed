package patch

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// fileLine is one line of a file: its text and its ending ("\n", "\r\n",
// or "" for a last line without a newline).
type fileLine struct {
	text, eol string
}

// splitLines splits content into lines, keeping each line's ending.
func splitLines(content string) []fileLine {
	var out []fileLine
	for content != "" {
		i := strings.IndexByte(content, '\n')
		if i < 0 {
			out = append(out, fileLine{text: content})
			break
		}
		l := fileLine{text: content[:i], eol: "\n"}
		if strings.HasSuffix(l.text, "\r") {
			l = fileLine{text: l.text[:i-1], eol: "\r\n"}
		}
		out = append(out, l)
		content = content[i+1:]
	}
	return out
}

// dominantEOL is the ending new lines get: CRLF when most lines of the file
// end that way, LF otherwise (and for files without any newline).
func dominantEOL(lines []fileLine) string {
	crlf, lf := 0, 0
	for _, l := range lines {
		switch l.eol {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}

// diffLine is one line of the edit script from the old content to the new
// one, as a unified diff shows it.
type diffLine struct {
	kind LineKind
	fileLine
}

// chunkError is a chunk that does not apply; the caller adds the path.
type chunkError struct {
	chunk int // 1-based
	msg   string
}

func (e *chunkError) Error() string { return fmt.Sprintf("chunk %d: %s", e.chunk, e.msg) }

// edit replaces n lines at start with the result of ops.
type edit struct {
	start, n int
	ops      []Line
}

// updateContent applies chunks to content. It returns the new content and
// the edit script, or a [*chunkError] saying which chunk failed and why.
// Context lines keep the file's text (a whitespace-tolerant match never
// rewrites them); inserted lines take the file's dominant line ending.
func updateContent(content string, chunks []Chunk) (string, []diffLine, error) {
	lines := splitLines(content)
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.text
	}
	edits, err := locate(texts, chunks)
	if err != nil {
		return "", nil, err
	}
	eol := dominantEOL(lines)
	var script []diffLine
	pos := 0
	for _, e := range edits {
		for ; pos < e.start; pos++ {
			script = append(script, diffLine{Keep, lines[pos]})
		}
		indent := reindenter(e.ops, texts[e.start:e.start+e.n])
		for i, op := range e.ops {
			switch op.Kind {
			case Insert:
				script = append(script, diffLine{Insert, fileLine{indent(i), eol}})
			case Remove:
				script = append(script, diffLine{Remove, lines[pos]})
				pos++
			default:
				script = append(script, diffLine{Keep, lines[pos]})
				pos++
			}
		}
	}
	for ; pos < len(lines); pos++ {
		script = append(script, diffLine{Keep, lines[pos]})
	}
	script = fixEndings(script, eol)
	var b strings.Builder
	for _, d := range script {
		if d.kind != Remove {
			b.WriteString(d.text + d.eol)
		}
	}
	return b.String(), script, nil
}

// fixEndings gives a newline to a kept line that lacked one (the old last
// line) but is no longer last, showing it as removed and re-added, as
// diff(1) does.
func fixEndings(script []diffLine, eol string) []diffLine {
	last := -1
	for i, d := range script {
		if d.kind != Remove {
			last = i
		}
	}
	for i := 0; i < last; i++ {
		d := script[i]
		if d.kind == Remove || d.eol != "" {
			continue
		}
		if d.kind == Insert { // cannot happen: inserted lines have an ending
			script[i].eol = eol
			continue
		}
		fixed := append([]diffLine{{Remove, d.fileLine}, {Insert, fileLine{d.text, eol}}}, script[i+1:]...)
		return append(script[:i], fixed...)
	}
	return script
}

// reindenter returns the text to insert for ops[i], an [Insert]. When the
// chunk matched only by ignoring leading whitespace (the model wrote spaces
// where the file has tabs, or dropped the indentation), an inserted line
// whose indentation starts with that of the nearest non-blank old line of
// the chunk gets the file's indentation of that line instead. found holds
// the file lines the chunk's old lines matched.
func reindenter(ops []Line, found []string) func(i int) string {
	var olds []string // the chunk's old lines, by index in found
	before := make([]int, len(ops))
	for i, op := range ops {
		before[i] = len(olds)
		if op.Kind != Insert {
			olds = append(olds, op.Text)
		}
	}
	return func(i int) string {
		text := ops[i].Text
		a := -1
		for j := before[i] - 1; j >= 0 && a < 0; j-- {
			if strings.TrimSpace(olds[j]) != "" {
				a = j
			}
		}
		for j := before[i]; j < len(olds) && a < 0; j++ {
			if strings.TrimSpace(olds[j]) != "" {
				a = j
			}
		}
		if a < 0 {
			return text
		}
		p, f := leading(olds[a]), leading(found[a])
		if p == f || !strings.HasPrefix(text, p) {
			return text
		}
		return f + text[len(p):]
	}
}

// leading returns the indentation of s.
func leading(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// locate finds where each chunk applies. Chunks must apply in order: each
// is searched for after the previous one.
func locate(texts []string, chunks []Chunk) ([]edit, error) {
	var edits []edit
	cursor := 0
	for i, c := range chunks {
		fail := func(format string, args ...any) error {
			return &chunkError{chunk: i + 1, msg: fmt.Sprintf(format, args...)}
		}
		for _, h := range c.Context {
			at := seek(texts, []string{h}, cursor, false)
			if at < 0 {
				return nil, fail("could not find the \"@@ %s\" line%s", h, after(cursor))
			}
			cursor = at + 1
		}
		ops := c.Lines
		old := (&Chunk{Lines: ops}).oldLines()
		if len(old) == 0 { // pure insertion
			if len(c.Context) > 0 && !c.EOF {
				edits = append(edits, edit{start: cursor, ops: ops}) // right after the "@@" line
				continue
			}
			// At the end of the file, as the reference does; the chunks
			// after it are still looked for from the cursor (its
			// test_pure_addition_chunk_followed_by_removal).
			edits = append(edits, edit{start: len(texts), ops: ops})
			continue
		}
		at := seek(texts, old, cursor, c.EOF)
		if at < 0 {
			// Trailing blank context lines are often a separator the model
			// added before the next header, not lines of the file.
			if trimmed := trimBlankTail(ops); len(trimmed) < len(ops) {
				if o := (&Chunk{Lines: trimmed}).oldLines(); len(o) > 0 {
					if at = seek(texts, o, cursor, c.EOF); at >= 0 {
						ops, old = trimmed, o
					}
				}
			}
		}
		if at < 0 {
			return nil, fail("%s", notFound(texts, old, cursor, c.EOF))
		}
		edits = append(edits, edit{start: at, n: len(old), ops: ops})
		cursor = at + len(old)
	}
	// Insertions at the end of the file may precede later chunks.
	slices.SortStableFunc(edits, func(a, b edit) int { return cmp.Compare(a.start, b.start) })
	return edits, nil
}

func trimBlankTail(ops []Line) []Line {
	n := len(ops)
	for n > 0 && ops[n-1].Kind == Keep && strings.TrimSpace(ops[n-1].Text) == "" {
		n--
	}
	return ops[:n]
}

func after(cursor int) string {
	if cursor == 0 {
		return ""
	}
	return fmt.Sprintf(" after line %d", cursor)
}

// notFound explains to the model which lines were not found, and where the
// file comes closest.
func notFound(texts, old []string, cursor int, eof bool) string {
	var b strings.Builder
	where := after(cursor)
	if eof {
		where = " at the end of the file (the chunk ends with \"*** End of File\")"
	}
	fmt.Fprintf(&b, "could not find these %d line(s)%s, even ignoring whitespace:\n", len(old), where)
	for _, l := range old {
		b.WriteString("    " + l + "\n")
	}
	if at, n := nearest(texts, old, cursor); n > 0 {
		fmt.Fprintf(&b, "closest match: line %d, where %d line(s) match", at+1, n)
		switch {
		case n == len(old):
			b.WriteString(", but not at the end of the file")
		case at+n < len(texts):
			fmt.Fprintf(&b, "; line %d is %q, the patch expected %q", at+n+1, texts[at+n], old[n])
		default:
			b.WriteString(" before the file ends")
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
