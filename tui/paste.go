package tui

import (
	"bytes"
	"io"
	"os"
	"unicode/utf8"
)

// Bracketed-paste markers.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// pasteReader reads the terminal's input and turns a chunk that can only be
// pasted text into a bracketed paste, so that its line breaks are inserted
// as newlines instead of submitting the message. The rule, per chunk (what
// one read returns), for a chunk of printable text and carriage returns
// with no escape sequence and no other control key:
//
//   - text then one carriage return at its very end is typed text and Enter:
//     it is left alone and submits (`tmux send-keys TEXT Enter`, or `-l TEXT`
//     and `Enter` read together);
//   - a carriage return with text after it, or two of them after text, is a
//     paste (a terminal without bracketed paste, dictation): it is wrapped
//     in paste markers and nothing is sent;
//   - a chunk that fills the read is followed by more of the same input:
//     its carriage return, even the last, is a line break of a paste, and
//     so is any in the chunks that follow until one ends short.
//
// A carriage return alone is Enter, text alone is text (the word "enter"
// typed stays text). Chunks with an escape sequence (keys, the terminal's
// own bracketed paste) are left alone, and so are the bytes inside a
// terminal's bracketed paste. A one-line paste ending in a line break
// submits, as it does in a shell.
type pasteReader struct {
	r       io.Reader
	inPaste bool // inside a terminal's own bracketed paste
	// more: the last chunk filled the read and was (part of) a paste, so
	// the next one continues it.
	more bool
}

// runeSlack is room left in each read to finish a rune cut by its end.
const runeSlack = utf8.UTFMax - 1

// Read implements io.Reader.
func (p *pasteReader) Read(b []byte) (int, error) {
	markers := len(pasteStart) + len(pasteEnd)
	if len(b) <= 2*(markers+runeSlack) {
		return p.r.Read(b)
	}
	limit := len(b) - markers - runeSlack
	n, err := p.r.Read(b[:limit])
	full := n == limit
	if full && err == nil {
		n += p.finishRune(b[:n+runeSlack], n)
	}
	chunk := b[:n]
	if p.inPaste || !plainText(chunk) {
		p.more = false
		p.track(chunk)
		return n, err
	}
	wrap := p.pasted(chunk, full)
	// A paste that fills the read goes on in the next chunk, with or
	// without a line break in this one.
	p.more = full && (p.more || wrap)
	if !wrap {
		return n, err
	}
	copy(b[len(pasteStart):], chunk)
	copy(b, pasteStart)
	copy(b[len(pasteStart)+n:], pasteEnd)
	return n + markers, err
}

// pasted reports whether chunk, plain text, is (part of) a paste.
func (p *pasteReader) pasted(chunk []byte, full bool) bool {
	i := bytes.IndexAny(chunk, "\r\n")
	if i < 0 {
		return false // text, or nothing: no line break to keep
	}
	if p.more || full {
		return true
	}
	if i == 0 && len(bytes.Trim(chunk, "\r\n")) == 0 {
		return false // Enter pressed, perhaps more than once
	}
	// Typed text and Enter: one carriage return, at the end.
	return !(i == len(chunk)-1 && chunk[i] == '\r')
}

// finishRune reads the rest of a rune cut by the end of b[:n] (the read
// filled its buffer, so the rest is on its way) into b's slack and returns
// how many bytes it added.
func (p *pasteReader) finishRune(b []byte, n int) int {
	start := n - 1
	for start > 0 && start > n-utf8.UTFMax && !utf8.RuneStart(b[start]) {
		start--
	}
	if start < 0 || !utf8.RuneStart(b[start]) || b[start] < utf8.RuneSelf {
		return 0
	}
	need := runeLen(b[start]) - (n - start)
	added := 0
	for added < need {
		k, err := p.r.Read(b[n+added : n+need])
		added += k
		if err != nil || k == 0 {
			break
		}
	}
	return added
}

// runeLen is the length of the UTF-8 sequence that starts with byte c.
func runeLen(c byte) int {
	switch {
	case c >= 0xf0:
		return 4
	case c >= 0xe0:
		return 3
	case c >= 0xc0:
		return 2
	}
	return 1
}

// track follows the terminal's own paste markers in chunk (a marker split
// across two reads is not seen; the chunk around it has an escape byte and
// is never rewritten anyway).
func (p *pasteReader) track(chunk []byte) {
	s, e := bytes.LastIndex(chunk, []byte(pasteStart)), bytes.LastIndex(chunk, []byte(pasteEnd))
	switch {
	case s > e:
		p.inPaste = true
	case e > s:
		p.inPaste = false
	}
}

// plainText reports whether chunk holds only printable text, tabs and line
// breaks: no escape sequence, no other control key, no broken UTF-8.
func plainText(chunk []byte) bool {
	for len(chunk) > 0 {
		r, w := utf8.DecodeRune(chunk)
		chunk = chunk[w:]
		switch {
		case r == '\r' || r == '\n' || r == '\t':
		case r == utf8.RuneError && w <= 1:
			return false
		case r < 0x20 || r == 0x7f:
			return false
		}
	}
	return true
}

// pasteFile is a terminal whose reads go through a pasteReader; it keeps
// the file's descriptor so that the program still puts the terminal in raw
// mode and can cancel a blocked read.
type pasteFile struct {
	*os.File
	p *pasteReader
}

// Read implements io.Reader.
func (f pasteFile) Read(b []byte) (int, error) { return f.p.Read(b) }

// pasteInput wraps in (nil: the terminal on standard input, if it is one)
// for the program; ok is false when there is nothing to wrap and the
// program's default input applies.
func pasteInput(in io.Reader) (r io.Reader, ok bool) {
	if in == nil {
		st, err := os.Stdin.Stat()
		if err != nil || st.Mode()&os.ModeCharDevice == 0 {
			return nil, false // not a terminal: the program opens /dev/tty itself
		}
		in = os.Stdin
	}
	if f, isFile := in.(*os.File); isFile {
		return pasteFile{File: f, p: &pasteReader{r: f}}, true
	}
	return &pasteReader{r: in}, true
}

// normalizeBreaks turns the carriage returns a terminal sends for line
// breaks into newlines.
func normalizeBreaks(s string) string {
	b := []byte(s)
	out := b[:0]
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n':
		case b[i] == '\r':
			out = append(out, '\n')
		default:
			out = append(out, b[i])
		}
	}
	return string(out)
}
