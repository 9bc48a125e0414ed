// Package jsonstring decodes JSON strings the way encoding/json does, with
// one copy instead of two: encoding/json unquotes a string into a buffer
// and then copies it into the string, in one uninterruptible copy. For a
// 10 MiB tool argument or answer that is 20 MiB of fresh memory and a
// stretch in which the collector cannot stop the goroutine (its other
// threads spin meanwhile). Here the text is copied once, a piece at a
// time ([bigcopy.Step]).
package jsonstring

import (
	"encoding/json"
	"reflect"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentcli/agent/internal/bigcopy"
)

// String is a string field decoded with one copy. It accepts what a Go
// string field accepts: a JSON string, or null (which leaves it as it
// is); anything else is an *json.UnmarshalTypeError.
type String string

// UnmarshalJSON implements json.Unmarshaler. b is a valid JSON value:
// encoding/json checks the whole input before it calls an Unmarshaler.
func (s *String) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) >= 2 && b[0] == '"':
		*s = String(Unquote(b[1 : len(b)-1]))
		return nil
	case string(b) == "null":
		return nil
	}
	kind := "number"
	switch b[0] {
	case '{':
		kind = "object"
	case '[':
		kind = "array"
	case 't', 'f':
		kind = "bool"
	}
	return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[string]()}
}

// Unquote returns the text of a valid JSON string literal's contents (the
// bytes between its quotes) as encoding/json decodes it: escapes
// resolved, a lone or invalid surrogate and each invalid UTF-8 byte
// replaced by U+FFFD.
func Unquote(q []byte) string {
	var sb strings.Builder
	sb.Grow(len(q))
	for len(q) > 0 {
		// The run up to the next escape or non-ASCII byte, copied as is.
		n := 0
		for n < len(q) && n < bigcopy.Step && q[n] != '\\' && q[n] < utf8.RuneSelf {
			n++
		}
		if n > 0 {
			sb.Write(q[:n])
			q = q[n:]
			continue
		}
		if q[0] != '\\' {
			r, size := utf8.DecodeRune(q)
			if r == utf8.RuneError && size == 1 {
				sb.WriteRune(utf8.RuneError)
			} else {
				sb.Write(q[:size])
			}
			q = q[size:]
			continue
		}
		q = unescape(&sb, q)
	}
	return sb.String()
}

// unescape writes the escape q starts with and returns the rest of q.
func unescape(sb *strings.Builder, q []byte) []byte {
	if c := q[1]; c != 'u' {
		if i := strings.IndexByte("bfnrt", c); i >= 0 {
			c = "\b\f\n\r\t"[i]
		}
		sb.WriteByte(c) // else '"', '\\' or '/', itself
		return q[2:]
	}
	r := hex4(q[2:6])
	q = q[6:]
	if utf16.IsSurrogate(r) {
		if len(q) >= 6 && q[0] == '\\' && q[1] == 'u' {
			if d := utf16.DecodeRune(r, hex4(q[2:6])); d != utf8.RuneError {
				sb.WriteRune(d)
				return q[6:]
			}
		}
		r = utf8.RuneError
	}
	sb.WriteRune(r)
	return q
}

// hex4 is the value of four hexadecimal digits.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}
