package transport

import "bytes"

// trimAt is the size from which a completed response's frame is trimmed
// before it is joined ([FrameDecoder.TrimPieces]).
const trimAt = 1 << 20

// TrimPieces returns the pieces of a frame (its data in order, as read,
// not yet joined) to join for Decode: for a large response.completed
// (name is its SSE event name, or "" when unnamed) the pieces without the
// output items the stream delivered already (by their leading "id", as
// Decode leaves them out), the rest of pieces unchanged. OpenAI lists a
// 120 MiB answer or call again there: joined, it was the fourth copy of
// the event in the process (issue 42); trimmed, the pieces are all that
// is held of it. The pieces are sliced, never written. The items left
// out are found by quotes and brackets, not validated: one malformed
// only in its second listing no longer fails the response.
func (d *FrameDecoder) TrimPieces(name string, pieces [][]byte) [][]byte {
	return d.trimPieces(name, pieces, trimAt)
}

// trimPieces is TrimPieces for frames of at least from bytes.
func (d *FrameDecoder) trimPieces(name string, pieces [][]byte, from int) [][]byte {
	if len(d.delivered) == 0 || name != "" && name != "response.completed" {
		return pieces
	}
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	if n < from || len(pieces) == 0 || !completedFirst(pieces[0]) {
		return pieces
	}
	s := &pieceScan{pieces: pieces}
	var cuts [][2]int
	ok := s.object(func(key string) (bool, bool) {
		if key != "response" {
			return false, true
		}
		return true, s.object(func(key string) (bool, bool) {
			if key != "output" {
				return false, true
			}
			return true, s.outputs(d.delivered, &cuts)
		})
	})
	if !ok || len(cuts) == 0 {
		return pieces
	}
	return cutPieces(pieces, cuts)
}

// completedFirst reports whether data's first member is
// "type":"response.completed".
func completedFirst(data []byte) bool {
	name, ok := firstType(data)
	return ok && name == "response.completed"
}

// cutPieces is pieces without the byte ranges cuts (in order, offsets
// into the pieces joined), sliced.
func cutPieces(pieces [][]byte, cuts [][2]int) [][]byte {
	var out [][]byte
	off := 0
	for _, p := range pieces {
		start, end := off, off+len(p)
		off = end
		for start < end {
			for len(cuts) > 0 && cuts[0][1] <= start {
				cuts = cuts[1:]
			}
			if len(cuts) == 0 || cuts[0][0] >= end {
				out = append(out, p[start-(end-len(p)):])
				break
			}
			if c := cuts[0][0]; c > start {
				out = append(out, p[start-(end-len(p)):c-(end-len(p))])
			}
			start = min(end, cuts[0][1])
		}
	}
	return out
}

// pieceScan reads JSON from pieces held in order, by quotes and
// brackets only.
type pieceScan struct {
	pieces [][]byte
	p, i   int // the current piece and the index in it
	off    int // the offset of pieces[p] in the whole
}

func (s *pieceScan) pos() int { return s.off + s.i }

// peek is the current byte; false at the end.
func (s *pieceScan) peek() (byte, bool) {
	for s.p < len(s.pieces) && s.i >= len(s.pieces[s.p]) {
		s.off += len(s.pieces[s.p])
		s.p, s.i = s.p+1, 0
	}
	if s.p >= len(s.pieces) {
		return 0, false
	}
	return s.pieces[s.p][s.i], true
}

func (s *pieceScan) ws() {
	for {
		c, ok := s.peek()
		if !ok || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return
		}
		s.i++
	}
}

// next consumes c after white space.
func (s *pieceScan) next(c byte) bool {
	s.ws()
	if b, ok := s.peek(); ok && b == c {
		s.i++
		return true
	}
	return false
}

// skipString skips the string at the current byte, escapes and all.
func (s *pieceScan) skipString() bool {
	s.i++ // the opening quote
	esc := false
	for {
		if _, ok := s.peek(); !ok {
			return false
		}
		b := s.pieces[s.p][s.i:]
		if esc {
			esc = false
			s.i++
			continue
		}
		j := bytes.IndexAny(b, "\"\\")
		if j < 0 {
			s.i += len(b)
			continue
		}
		s.i += j + 1
		if b[j] == '"' {
			return true
		}
		esc = true
	}
}

// skipValue skips one value.
func (s *pieceScan) skipValue() bool {
	s.ws()
	c, ok := s.peek()
	switch {
	case !ok:
		return false
	case c == '"':
		return s.skipString()
	case c != '{' && c != '[':
		n := 0
		for ; ok && bytes.IndexByte([]byte("0123456789+-.eEtrufalsn"), c) >= 0; c, ok = s.peek() {
			s.i++
			n++
		}
		return n > 0
	}
	depth := 0
	for {
		c, ok := s.peek()
		if !ok {
			return false
		}
		switch c {
		case '"':
			if !s.skipString() {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		s.i++
		if depth == 0 {
			return true
		}
	}
}

// key reads a member's name (short, without escapes) and its colon.
func (s *pieceScan) key() (string, bool) {
	if !s.next('"') {
		return "", false
	}
	var k []byte
	for {
		c, ok := s.peek()
		if !ok || c == '\\' || len(k) > 64 {
			return "", false
		}
		s.i++
		if c == '"' {
			return string(k), s.next(':')
		}
		k = append(k, c)
	}
}

// object reads an object, handing each member's name to f first: f
// reports whether it read the value itself, and whether that went well;
// other values are skipped.
func (s *pieceScan) object(f func(key string) (read, ok bool)) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	for {
		k, ok := s.key()
		if !ok {
			return false
		}
		read, ok := f(k)
		if !ok || !read && !s.skipValue() {
			return false
		}
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// outputs reads the output array, adding to cuts the items delivered
// (with the comma that joins each to the rest).
func (s *pieceScan) outputs(delivered map[string]bool, cuts *[][2]int) bool {
	if !s.next('[') {
		return false
	}
	mark, kept, cutEnd := s.pos(), false, -1
	add := func(a, b int) {
		if n := len(*cuts); n > 0 && (*cuts)[n-1][1] >= a {
			(*cuts)[n-1][1] = max((*cuts)[n-1][1], b)
			return
		}
		*cuts = append(*cuts, [2]int{a, b})
	}
	if s.next(']') {
		return true
	}
	for {
		s.ws()
		start := s.pos()
		id, ok := leadingIDIn(string(s.prefix(4 << 10)))
		if !s.skipValue() {
			return false
		}
		end := s.pos()
		switch {
		case ok && delivered[id]:
			add(mark, end)
			cutEnd = end
		case !kept && cutEnd >= 0:
			add(cutEnd, start) // the comma after the items cut before
			fallthrough
		default:
			kept, mark = true, end
		}
		if s.next(']') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// prefix is a copy of up to n bytes from the current one, which it does
// not consume.
func (s *pieceScan) prefix(n int) []byte {
	var b []byte
	for p, i := s.p, s.i; p < len(s.pieces) && len(b) < n; p, i = p+1, 0 {
		b = append(b, s.pieces[p][i:min(len(s.pieces[p]), i+n-len(b))]...)
	}
	return b
}
