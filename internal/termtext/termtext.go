// Package termtext makes text from outside (the model, tools, MCP servers,
// servers' error messages) safe to write to a terminal.
//
// A terminal obeys escape sequences wherever they come from: a command's
// output or a model's answer could set the window title, write the
// clipboard (OSC 52), move the cursor to overwrite what is on screen, or
// query the terminal so that its answer arrives as typed input. [Sanitize]
// keeps plain text and colours (SGR) and drops everything else; [Plain]
// keeps plain text only.
package termtext

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// reset ends every SGR attribute.
const reset = "\x1b[0m"

// Sanitize returns s with every escape sequence other than SGR (colours,
// bold, ...) and every control character other than newline and tab
// removed. CR LF becomes LF and a lone CR a newline, so a line cannot be
// overwritten. If s kept any SGR sequence and does not end with a reset,
// one is added, so its colours cannot spill into what follows.
//
// Sanitize is stateless: a sequence split across two calls loses its
// introducer in the first and is printed as plain text in the second,
// never interpreted.
func Sanitize(s string) string { return sanitize(s, true) }

// Plain returns s as [Sanitize] does, but with SGR sequences removed too:
// text for a reader that is not a terminal, such as an MCP client, which
// may show it anywhere.
func Plain(s string) string { return sanitize(s, false) }

func sanitize(s string, keepSGR bool) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	var state byte
	sgr := false
	for len(s) > 0 {
		seq, _, n, next := ansi.DecodeSequence(s, state, nil)
		if n <= 0 {
			n, seq = 1, s[:1]
		}
		state, s = next, s[n:]
		switch {
		case keepSGR && isSGR(seq):
			b.WriteString(seq)
			sgr = seq != reset && seq != "\x1b[m"
		case seq == "\n", seq == "\t":
			b.WriteString(seq)
		case seq == "\r":
			if !strings.HasPrefix(s, "\n") {
				b.WriteByte('\n')
			}
		case seq[0] < 0x20 || seq[0] == 0x7f:
			// another control character or escape sequence
		default:
			for _, r := range seq {
				if !isControl(r) {
					b.WriteRune(r)
				}
			}
		}
	}
	if sgr {
		b.WriteString(reset)
	}
	return b.String()
}

// clean reports whether s has nothing Sanitize would change.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
		if c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xa0 {
			return false // a C1 control character, U+0080 to U+009F
		}
	}
	return true
}

// isSGR reports whether seq is exactly one 7-bit SGR sequence: ESC [, then
// digits, ';' and ':', then m.
func isSGR(seq string) bool {
	if len(seq) < 3 || seq[0] != 0x1b || seq[1] != '[' || seq[len(seq)-1] != 'm' {
		return false
	}
	for i := 2; i < len(seq)-1; i++ {
		if c := seq[i]; (c < '0' || c > '9') && c != ';' && c != ':' {
			return false
		}
	}
	return true
}

// isControl reports a C0 or C1 control character or DEL, other than
// newline and tab.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}
