package rollout

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/agentcli/agent/transport"
)

// largePayload is the size from which a line's payload is written to the
// file at once, from where it lies, instead of being copied into the
// buffer: a 10 MiB answer or command output would be copied once more
// and held until the next flush.
const largePayload = 256 << 10

// pieceLine is one line to record: its envelope's type and origin, and
// its payload as the pieces it is made of, in order.
type pieceLine struct {
	typ     LineType
	origin  transport.Origin
	payload []piece
}

// piece is part of a line's payload: bytes as they are, or (json set) a
// string written JSON-encoded.
type piece struct {
	b    []byte
	text string
	json bool
}

func (p piece) size() int {
	if p.json {
		return len(p.text)
	}
	return len(p.b)
}

// addLines records lines, in order and together. Small ones are buffered
// as by add; when their payloads are large, the buffered lines and these
// are written to the file at once, each large piece from where it lies (a
// string encoded in pieces into a small buffer as it is written). locked,
// if set, runs under the lock when the lines are taken (the index's
// bookkeeping).
func (r *Recorder) addLines(lines []pieceLine, locked func()) error {
	size := 0
	for _, l := range lines {
		for _, p := range l.payload {
			size += p.size()
		}
	}
	if size < largePayload {
		return r.add(func(t time.Time, buf []byte) []byte {
			if locked != nil {
				locked()
			}
			return appendLines(buf, t, lines)
		})
	}
	r.wmu.Lock()
	defer r.wmu.Unlock()
	r.mu.Lock()
	if r.closed || r.err != nil {
		defer r.mu.Unlock()
		if r.closed {
			return ErrClosed
		}
		return r.err
	}
	if locked != nil {
		locked()
	}
	buf, t := r.buf, r.now()
	r.buf, r.spare = r.spare[:0], nil
	r.mu.Unlock()
	if err := writeLines(buf, t, lines, func(b []byte) error { _, err := r.f.Write(b); return err }); err != nil {
		return r.fail(err)
	}
	r.unsynced = true
	return nil
}

// writeLines writes buf, then lines, in order, with write: the envelopes
// and the small pieces gathered in buf, written whenever it holds writeAt
// bytes (one response of 200,000 small items was 48 MB of lines encoded
// at once), each large piece from where it lies (a string encoded in
// pieces as it is written).
func writeLines(buf []byte, t time.Time, lines []pieceLine, write func([]byte) error) error {
	if len(lines) > 1 && cap(buf) < maxSpare {
		buf = slices.Grow(buf, maxSpare-len(buf)) // grown once, not by a quarter at a time
	}
	for _, l := range lines {
		buf = appendItemLine(buf, t, l.typ, l.origin, nil)
		buf = buf[:len(buf)-2] // the envelope up to its payload
		for _, p := range l.payload {
			if p.size() < largePayload {
				buf = p.appendTo(buf)
				continue
			}
			if err := write(buf); err != nil {
				return err
			}
			buf = buf[:0]
			var err error
			if p.json {
				err = jsonStringChunks(p.text, largePayload, write)
			} else {
				err = write(p.b)
			}
			if err != nil {
				return err
			}
		}
		buf = append(buf, '}', '\n')
		if len(buf) >= writeAt {
			if err := write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if len(buf) == 0 {
		return nil
	}
	return write(buf)
}

// appendLines appends lines to buf, every piece in it.
func appendLines(buf []byte, t time.Time, lines []pieceLine) []byte {
	for _, l := range lines {
		buf = appendItemLine(buf, t, l.typ, l.origin, nil)
		buf = buf[:len(buf)-2] // the envelope up to its payload
		for _, p := range l.payload {
			buf = p.appendTo(buf)
		}
		buf = append(buf, '}', '\n')
	}
	return buf
}

// appendTo appends the piece's bytes, or its text JSON-encoded.
func (p piece) appendTo(buf []byte) []byte {
	if p.json {
		return appendJSONString(buf, p.text)
	}
	return append(buf, p.b...)
}

// eventPayload is ev encoded as json.Marshal encodes it, as the pieces
// of its payload: a long message is its own piece, encoded as it is
// written (encoding/json would copy it twice more and keep its buffer
// pooled).
func eventPayload(ev EventMsg) ([]piece, error) {
	if len(ev.Message) < largePayload {
		b, err := json.Marshal(ev)
		return []piece{{b: b}}, err
	}
	msg := ev.Message
	ev.Message = ""
	rest, err := json.Marshal(ev) // {"type":"...",... without the message
	if err != nil {
		return nil, err
	}
	typ, err := json.Marshal(ev.Type)
	if err != nil {
		return nil, err
	}
	at := len(`{"type":`) + len(typ) // the message follows the type
	if len(rest) < at {
		return nil, fmt.Errorf("rollout: unexpected event encoding %.40q", rest)
	}
	head := append(append([]byte(nil), rest[:at]...), `,"message":`...)
	return []piece{{b: head}, {text: msg, json: true}, {b: rest[at:]}}, nil
}

// jsonStringChunks calls write with appendJSONString(nil, s) in pieces,
// each the encoding of about chunk bytes of s cut where a rune starts,
// in one reused buffer. (Each rune is encoded on its own, so the pieces
// join to the encoding of the whole.)
func jsonStringChunks(s string, chunk int, write func([]byte) error) error {
	buf := make([]byte, 0, min(len(s), chunk)+chunk/8+2)
	for first := true; first || s != ""; first = false {
		cut := min(len(s), chunk)
		for cut < len(s) && cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		for cut < len(s) && (cut == 0 || !utf8.RuneStart(s[cut])) {
			cut++ // no rune start in reach: the next one
		}
		buf = appendJSONString(buf[:0], s[:cut])
		b := buf
		if !first {
			b = b[1:] // the opening quote
		}
		if cut < len(s) {
			b = b[:len(b)-1] // the closing quote
		}
		if err := write(b); err != nil {
			return err
		}
		s = s[cut:]
	}
	return nil
}

// appendJSONString appends s to dst as encoding/json encodes a string
// (HTML-escaped, invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped):
// FuzzAppendJSONString holds it to json.Marshal.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}
