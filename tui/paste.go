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
// as newlines instead of submitting the message.
//
// A chunk is what one read returns. A person pressing Enter produces a
// chunk of its own ("\r"); text that arrives together with a line break in
// one chunk (a paste into a terminal without bracketed paste, dictation, a
// laggy link) holds printable text and a line break and nothing else: no
// escape sequence, no other control key. Only such a chunk is rewritten;
// the bytes inside a real bracketed paste are left alone.
type pasteReader struct {
	r       io.Reader
	inPaste bool // inside a terminal's own bracketed paste
}

// Read implements io.Reader.
func (p *pasteReader) Read(b []byte) (int, error) {
	wrap := len(pasteStart) + len(pasteEnd)
	if len(b) <= 2*wrap {
		return p.r.Read(b)
	}
	n, err := p.r.Read(b[:len(b)-wrap])
	chunk := b[:n]
	if !p.inPaste && pastedText(chunk) {
		copy(b[len(pasteStart):], chunk)
		copy(b, pasteStart)
		copy(b[len(pasteStart)+n:], pasteEnd)
		return n + wrap, err
	}
	p.track(chunk)
	return n, err
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

// pastedText reports whether chunk holds printable text and at least one
// line break, and nothing else.
func pastedText(chunk []byte) bool {
	text, brk := false, false
	for len(chunk) > 0 {
		r, w := utf8.DecodeRune(chunk)
		chunk = chunk[w:]
		switch {
		case r == '\r' || r == '\n':
			brk = true
		case r == '\t':
		case r == utf8.RuneError && w <= 1:
			return false
		case r < 0x20 || r == 0x7f:
			return false
		default:
			text = true
		}
	}
	return text && brk
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
