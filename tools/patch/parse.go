package patch

import (
	"fmt"
	"strings"
)

// The markers of the patch format.
const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File: "
	deleteMarker = "*** Delete File: "
	updateMarker = "*** Update File: "
	moveMarker   = "*** Move to: "
	eofMarker    = "*** End of File"
)

// ParseError is a patch that does not follow the format. Line is the
// 1-based line of the input text (heredoc and fence lines included) where
// the problem was found; Msg says what was expected there.
type ParseError struct {
	Line int
	Msg  string
}

// Error renders the error as `patch line 7: expected "*** End Patch"`.
func (e *ParseError) Error() string {
	return fmt.Sprintf("patch line %d: %s", e.Line, e.Msg)
}

// Parse parses patch text. It is lenient like the reference client:
// whitespace around markers, CRLF line endings, blank lines between file
// sections, a heredoc wrapper (apply_patch <<'EOF' ... EOF) or a Markdown
// code fence around the patch, and a missing final newline are accepted.
// A unified-diff range in a chunk header ("@@ -1,4 +1,5 @@ func f") is
// dropped, keeping the text after it. Errors are [*ParseError].
func Parse(text string) (*Patch, error) {
	raw := strings.Split(text, "\n")
	for i, l := range raw {
		// Stripping every trailing CR (not just one) keeps String and Parse
		// inverse to each other for inputs like "x\r\r\n".
		raw[i] = strings.TrimRight(l, "\r")
	}
	lo, hi := trimBlank(raw, 0, len(raw)-1)
	if lo > hi {
		return nil, &ParseError{Line: 1, Msg: fmt.Sprintf("expected %q, found an empty patch", beginMarker)}
	}
	lo, hi = unwrap(raw, lo, hi)
	if first := strings.TrimSpace(raw[lo]); first != beginMarker {
		msg := fmt.Sprintf("expected %q, found %s", beginMarker, quote(raw[lo]))
		if strings.HasPrefix(first, "--- ") || strings.HasPrefix(first, "diff ") {
			msg += "; apply_patch does not take unified diffs, write the patch in its own format"
		}
		return nil, &ParseError{Line: lo + 1, Msg: msg}
	}
	if hi == lo {
		return nil, &ParseError{Line: lo + 2, Msg: fmt.Sprintf("expected %q, found the end of the input", endMarker)}
	}
	if strings.TrimSpace(raw[hi]) != endMarker {
		return nil, &ParseError{Line: hi + 1, Msg: fmt.Sprintf("expected %q as the last line, found %s", endMarker, quote(raw[hi]))}
	}
	p := &parser{lines: raw[lo+1 : hi], base: lo + 2}
	out := &Patch{}
	for p.skipBlank() {
		op, err := p.fileOp()
		if err != nil {
			return nil, err
		}
		out.Ops = append(out.Ops, op)
	}
	if len(out.Ops) == 0 {
		return nil, &ParseError{Line: hi + 1, Msg: fmt.Sprintf("expected at least one file section (%s) before %q", headersText, endMarker)}
	}
	return out, nil
}

const headersText = `"*** Add File: ", "*** Delete File: " or "*** Update File: "`

// trimBlank narrows [lo, hi] to exclude blank lines at both ends.
func trimBlank(raw []string, lo, hi int) (int, int) {
	for lo <= hi && strings.TrimSpace(raw[lo]) == "" {
		lo++
	}
	for hi >= lo && strings.TrimSpace(raw[hi]) == "" {
		hi--
	}
	return lo, hi
}

// unwrap strips heredoc and code-fence wrappers around [lo, hi], in any
// nesting, as models send them when they mean to call a shell.
func unwrap(raw []string, lo, hi int) (int, int) {
	for lo < hi {
		first, last := strings.TrimSpace(raw[lo]), strings.TrimSpace(raw[hi])
		if delim, ok := heredocStart(first); ok {
			lo++
			if last == delim {
				hi--
			}
		} else if strings.HasPrefix(first, "```") && last == "```" {
			lo, hi = lo+1, hi-1
		} else {
			break
		}
		lo, hi = trimBlank(raw, lo, hi)
	}
	if lo > hi { // only wrappers: report on the first of them
		lo, hi = 0, 0
	}
	return lo, hi
}

// heredocStart recognises `<<EOF`, `<<'EOF'`, `<<"EOF"`, `<<-EOF`, each
// optionally preceded by "apply_patch" or "applypatch", and returns the
// delimiter.
func heredocStart(s string) (string, bool) {
	for _, cmd := range []string{"apply_patch", "applypatch"} {
		if rest, ok := strings.CutPrefix(s, cmd); ok && strings.HasPrefix(strings.TrimSpace(rest), "<<") {
			s = strings.TrimSpace(rest)
		}
	}
	s, ok := strings.CutPrefix(s, "<<")
	if !ok {
		return "", false
	}
	s = strings.TrimSpace(strings.TrimPrefix(s, "-"))
	if n := len(s); n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n-1] == s[0] {
		s = s[1 : n-1]
	}
	if s == "" {
		return "", false
	}
	for i, r := range s {
		word := r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9'
		if !word {
			return "", false
		}
	}
	return s, true
}

// parser walks the lines between the begin and end markers.
type parser struct {
	lines []string
	base  int // line number of lines[0]
	i     int
}

func (p *parser) errorf(format string, args ...any) *ParseError {
	return &ParseError{Line: p.base + p.i, Msg: fmt.Sprintf(format, args...)}
}

// skipBlank skips blank lines and reports whether any line is left.
func (p *parser) skipBlank() bool {
	for p.i < len(p.lines) && strings.TrimSpace(p.lines[p.i]) == "" {
		p.i++
	}
	return p.i < len(p.lines)
}

// header returns the path after marker (matched without its trailing
// space) on the current line, if the line is that header.
func (p *parser) header(marker string) (path string, ok bool, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(p.lines[p.i]), strings.TrimSuffix(marker, " "))
	if !ok {
		return "", false, nil
	}
	path = strings.TrimSpace(rest)
	if path == "" {
		return "", true, p.errorf("expected a path after %q", strings.TrimSpace(marker))
	}
	return path, true, nil
}

func (p *parser) fileOp() (FileOp, error) {
	for _, h := range []struct {
		marker string
		action Action
	}{{addMarker, Add}, {deleteMarker, Delete}, {updateMarker, Update}} {
		path, ok, err := p.header(h.marker)
		if err != nil {
			return FileOp{}, err
		}
		if !ok {
			continue
		}
		p.i++
		op := FileOp{Action: h.action, Path: path}
		switch h.action {
		case Add:
			op.Lines = p.addLines()
		case Update:
			err = p.update(&op)
		}
		return op, err
	}
	line := p.lines[p.i]
	msg := fmt.Sprintf("expected a file header (%s), found %s", headersText, quote(line))
	if !strings.HasPrefix(strings.TrimSpace(line), "*") {
		msg += `; lines of an added file start with "+", lines of a chunk with " ", "-" or "+"`
	}
	return FileOp{}, p.errorf("%s", msg)
}

// addLines reads the "+" lines of an added file. A blank line followed by
// more "+" lines is taken as an empty line the model forgot to prefix.
func (p *parser) addLines() []string {
	var out []string
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		if rest, ok := strings.CutPrefix(line, "+"); ok {
			out = append(out, rest)
			p.i++
			continue
		}
		j := p.i
		for j < len(p.lines) && strings.TrimSpace(p.lines[j]) == "" {
			j++
		}
		if j == p.i || j == len(p.lines) || !strings.HasPrefix(p.lines[j], "+") {
			break
		}
		for ; p.i < j; p.i++ {
			out = append(out, "")
		}
	}
	return out
}

func (p *parser) update(op *FileOp) error {
	headerLine := p.base + p.i - 1
	if p.skipBlank() {
		path, ok, err := p.header(moveMarker)
		if err != nil {
			return err
		}
		if ok {
			op.MoveTo = path
			p.i++
		}
	}
	for p.skipBlank() {
		line := p.lines[p.i]
		t := strings.TrimSpace(line)
		if t == eofMarker {
			return p.errorf("%q must directly follow the lines of a chunk", eofMarker)
		}
		if line[0] == '*' || strings.HasPrefix(t, "*** ") && isHeader(t) {
			break
		}
		c, err := p.chunk()
		if err != nil {
			return err
		}
		op.Chunks = append(op.Chunks, c)
	}
	if len(op.Chunks) == 0 && op.MoveTo == "" {
		return &ParseError{Line: headerLine, Msg: fmt.Sprintf(
			"%s%s has no changes: expected \"@@\" chunks or %q", updateMarker, op.Path, strings.TrimSpace(moveMarker))}
	}
	return nil
}

// isHeader reports whether trimmed line t starts a file section.
func isHeader(t string) bool {
	for _, m := range []string{addMarker, deleteMarker, updateMarker, endMarker} {
		if strings.HasPrefix(t, strings.TrimSuffix(m, " ")) {
			return true
		}
	}
	return false
}

// chunk reads "@@" headers, then the chunk's lines, then an optional
// "*** End of File".
func (p *parser) chunk() (Chunk, error) {
	var c Chunk
	for p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], "@@") {
		if h := chunkHeader(p.lines[p.i]); h != "" {
			c.Context = append(c.Context, h)
		}
		p.i++
	}
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		if line == "" { // an empty context line whose " " was lost
			c.Lines = append(c.Lines, Line{Kind: Keep})
			p.i++
			continue
		}
		if k := LineKind(line[0]); k == Keep || k == Remove || k == Insert {
			c.Lines = append(c.Lines, Line{Kind: k, Text: line[1:]})
			p.i++
			continue
		}
		if strings.HasPrefix(line, eofMarker) && strings.TrimSpace(line) == eofMarker && len(c.Lines) > 0 {
			c.EOF = true
			p.i++
		}
		break
	}
	if len(c.Lines) == 0 {
		if p.i == len(p.lines) {
			return c, p.errorf("expected chunk lines starting with \" \", \"-\" or \"+\", found %q", endMarker)
		}
		return c, p.errorf("expected chunk lines starting with \" \", \"-\" or \"+\" (a chunk starts with \"@@\"), found %s", quote(p.lines[p.i]))
	}
	return c, nil
}

// chunkHeader returns the context text of an "@@" line, without a
// unified-diff range ("@@ -1,4 +1,5 @@ func f" gives "func f").
func chunkHeader(line string) string {
	s := strings.TrimSpace(strings.TrimPrefix(line, "@@"))
	for {
		rest, ok := cutRange(s)
		if !ok {
			return s
		}
		s = rest
	}
}

// cutRange removes a leading "-a,b +c,d @@" from s.
func cutRange(s string) (string, bool) {
	for _, sign := range []byte{'-', '+'} {
		if len(s) == 0 || s[0] != sign {
			return s, false
		}
		s = s[1:]
		n := len(s) - len(strings.TrimLeft(s, "0123456789"))
		if n == 0 {
			return s, false
		}
		s = s[n:]
		if rest, ok := strings.CutPrefix(s, ","); ok {
			if n = len(rest) - len(strings.TrimLeft(rest, "0123456789")); n == 0 {
				return s, false
			}
			s = rest[n:]
		}
		s = strings.TrimLeft(s, " \t")
	}
	rest, ok := strings.CutPrefix(s, "@@")
	return strings.TrimSpace(rest), ok
}

// quote renders a line for an error message, shortened if long.
func quote(s string) string {
	const max = 80
	if r := []rune(s); len(r) > max {
		return fmt.Sprintf("%q...", string(r[:max]))
	}
	return fmt.Sprintf("%q", s)
}
