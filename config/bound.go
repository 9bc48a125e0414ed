package config

import "fmt"

// Bounds on the text of config.toml (and of one -c value), checked before
// it is parsed: the TOML parser's memory grows much faster than the text
// with nested inline tables and arrays (a 120 KB file of them took more
// than 11 GB), and no real config comes near either bound.
const (
	// MaxFileSize is the largest config.toml, in bytes.
	MaxFileSize = 1 << 20
	// MaxNesting is the deepest nesting of inline tables and arrays, and
	// of the parts of one dotted key ([profiles.a.b.c], a.b.c = 1): a
	// 10 KB header 5,000 parts deep took the parser 1.1 GB.
	MaxNesting = 32
)

// checkBounds reports text longer than MaxFileSize, or the first line
// where inline tables and arrays nest deeper than MaxNesting or a dotted
// key has more parts. It skips
// strings and comments, so brackets inside them do not count. path names
// the file in the error ("" for a -c value).
func checkBounds(path, text string) *Error {
	if len(text) > MaxFileSize {
		return &Error{Path: path, Line: 0, Msg: fmt.Sprintf("file too large (%d bytes; at most %d)", len(text), MaxFileSize)}
	}
	line, depth, dots := 1, 0, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n', '=', ',', '{', '}':
			// A key ends at each: dots counted from here are another
			// key's (or a value's, such as a float's single one).
			dots = 0
			if c == '\n' {
				line++
			}
			if c == '{' {
				if depth++; depth > MaxNesting {
					return &Error{Path: path, Line: line, Msg: fmt.Sprintf("inline tables and arrays nested too deep (more than %d levels)", MaxNesting)}
				}
			} else if c == '}' && depth > 0 {
				depth--
			}
		case '.':
			if dots++; dots >= MaxNesting {
				return &Error{Path: path, Line: line, Msg: fmt.Sprintf("dotted key too deep (more than %d parts)", MaxNesting)}
			}
		case '#':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			end, lines := skipString(text, i)
			i, line = end, line+lines
		case '[':
			if depth++; depth > MaxNesting {
				return &Error{Path: path, Line: line, Msg: fmt.Sprintf("inline tables and arrays nested too deep (more than %d levels)", MaxNesting)}
			}
		case ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// skipString returns the index of the last byte of the string starting at
// text[i] (a quote) and the newlines inside it. Basic strings honour
// backslash escapes; triple quotes open multi-line strings. An unterminated
// string runs to the end of its line (single-line) or of the text; the
// parser reports it.
func skipString(text string, i int) (end, lines int) {
	q := text[i]
	multi := len(text) >= i+3 && text[i+1] == q && text[i+2] == q
	j := i + 1
	if multi {
		j = i + 3
	}
	for ; j < len(text); j++ {
		c := text[j]
		switch {
		case c == '\\' && q == '"':
			if j+1 < len(text) && text[j+1] == '\n' {
				lines++
			}
			j++
		case c == '\n':
			if !multi {
				return j - 1, 0
			}
			lines++
		case c == q && !multi:
			return j, lines
		case c == q && len(text) >= j+3 && text[j+1] == q && text[j+2] == q:
			// A multi-line string may end with up to two more quotes.
			for j+3 < len(text) && text[j+3] == q {
				j++
			}
			return j + 2, lines
		}
	}
	return len(text) - 1, lines
}
