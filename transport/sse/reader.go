package sse

import (
	"bytes"
	"io"
	"strings"

	"github.com/agentcli/agent/internal/bigcopy"
	"github.com/agentcli/agent/transport"
)

// eventReader reads Server-Sent Events from r the way the WHATWG
// event-stream interpretation does, and go-sse's Read with it (it is
// differentially fuzzed against it: FuzzReaderMatchesGoSSE): lines end
// with "\n", "\r\n" or "\r"; a leading BOM is dropped; a blank line
// dispatches the event; "data" lines are joined with "\n"; "event" sets
// the type; comments, "id", "retry" and unknown fields are ignored; an
// event without data is not dispatched; an unterminated final event is
// discarded.
//
// It exists instead of go-sse's Read for large events: go-sse rescans an
// event from its start after every read (quadratic in its size) and holds
// it three times (its scanner's doubling buffer, a copy of the event, the
// data built from it): a 10 MiB event read in 16 KiB pieces took 4.7 s
// and 52 MiB of allocations (TestReaderLargeEventLinear). Here each
// byte is scanned once, a line longer than the buffer keeps the buffers it
// filled (no copy, no doubling), and an event's data is copied once, into
// the string handed on.
type eventReader struct {
	r   io.Reader
	max int // bound on one event's bytes, field names and line ends included
	// drop, when set, is asked about each event before its data is
	// joined, with its type and its first data line (as much as was read
	// of it): true drops the event unjoined and unyielded.
	drop func(typ string, first []byte) bool
	// cutter, when set, is asked for a [transport.Cutter] when an
	// event's first data line grows longer than the buffer: nil, or one
	// that the event's data then goes through as it is read, what it
	// keeps handed to keep (issue 42: the items a response.completed
	// lists again are not held).
	cutter func(typ string, keep func(b []byte, fed bool)) *transport.Cutter

	buf        []byte // buffered input; buf[start:end] is unread
	start, end int
	scanned    int      // buf[start:start+scanned] holds no line end
	long       [][]byte // the current line's start, when longer than buf: full buffers handed over
	longLen    int
	held       [][]byte // full buffers the current event's data pieces lie in, spare once it is joined
	spare      [][]byte // full buffers to read into again, at most maxSpare
	dropped    int      // bytes of buffers let go of since the last event, for the collector
	err        error    // the read error that ended the input, once seen
	begun      bool     // the first bytes were checked for a BOM
	skipLF     bool     // the last line ended with '\r': a '\n' right after belongs to it
	zeroReads  int      // reads in a row that returned nothing

	typ, last string  // the current event's type; the last type seen, to reuse its string
	pieces    []piece // the current event's data, line ends included
	any       bool    // the current event has a data field
	size      int     // bytes of the current event so far

	cut      *transport.Cutter // the current event's, when its data is cut as it is read
	cutLine  bool              // the current line's full buffers went through cut
	cutLF    bool              // a data line went through cut: its line end goes before the next
	cutInBuf bool              // what cut is being fed lies in buf
}

// piece is part of an event's data; inBuf says it lies in the reader's
// buffer, so it must be copied out before the buffer is reused.
type piece struct {
	b     []byte
	inBuf bool
}

const (
	bufSize = 64 << 10
	bom     = "\xEF\xBB\xBF"
)

var lineFeed = []byte{'\n'}

func newEventReader(r io.Reader, max int) *eventReader {
	return &eventReader{r: r, max: max}
}

// each calls yield with each event's type and data until the input ends,
// yield returns false, an event exceeds the bound (an error wrapping
// [transport.ErrEventTooLarge]) or a read fails (that error). It returns
// nil at the end of the input and when yield stops it.
func (er *eventReader) each(yield func(typ, data string) bool) error {
	for {
		long, tail, err := er.line()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(long) > 0 || len(tail) > 0 || er.cutLine {
			er.field(long, tail)
			continue
		}
		if !er.any { // a blank line ends an event without data: nothing to dispatch
			er.typ, er.size = "", 0
			continue
		}
		typ, data := er.typ, ""
		var first []byte
		if len(er.pieces) > 0 {
			first = er.pieces[0].b
		}
		dropped := er.drop != nil && er.drop(typ, first)
		if !dropped {
			data = er.data()
		}
		clear(er.pieces) // they hold the buffers
		er.typ, er.pieces, er.any, er.size = "", er.pieces[:0], false, 0
		er.cut, er.cutLF = nil, false
		er.release(er.held)
		er.held = er.held[:0]
		bigcopy.Dropped(er.dropped)
		er.dropped = 0
		if !dropped && !yield(typ, data) {
			return nil
		}
	}
}

// data joins the current event's pieces into one string, without the
// final line end (which a cut event's pieces do not hold).
func (er *eventReader) data() string {
	n := -1
	if er.cut != nil {
		er.cut.End()
		n = 0
	}
	for _, p := range er.pieces {
		n += len(p.b)
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, p := range er.pieces {
		if n < len(p.b) {
			_ = bigcopy.Write(&sb, p.b[:n]) // a strings.Builder does not fail
			break
		}
		_ = bigcopy.Write(&sb, p.b)
		n -= len(p.b)
	}
	return sb.String()
}

// field applies one non-blank line to the current event: long are the
// full buffers its start filled, tail the rest, in buf.
func (er *eventReader) field(long [][]byte, tail []byte) {
	if er.cutLine { // the end of a data line whose start went through cut
		er.cutLine = false
		er.feedCut(tail, true)
		er.cutLF = true
		return
	}
	first := tail
	if len(long) > 0 {
		first = long[0]
	}
	name, skip := first, len(first)
	if i := bytes.IndexByte(first, ':'); i >= 0 {
		name, skip = first[:i], i+1
		if skip < len(first) && first[skip] == ' ' {
			skip++
		}
	} else if len(long) > 0 {
		er.release(long)
		return // a name longer than the buffer: no field read here
	}
	switch string(name) {
	case "data":
		er.any = true
		if er.cut != nil { // (a long line would have gone through it whole)
			er.feedCut(tail[skip:], true)
			er.cutLF = true
			return
		}
		if len(long) == 0 {
			er.pieces = append(er.pieces, piece{tail[skip:], true}, piece{lineFeed, false})
			return
		}
		er.pieces = append(er.pieces, piece{long[0][skip:], false})
		for _, b := range long[1:] {
			er.pieces = append(er.pieces, piece{b, false})
		}
		er.pieces = append(er.pieces, piece{tail, true}, piece{lineFeed, false})
		er.held = append(er.held, long...)
		return
	case "event":
		value := first[skip:]
		if len(long) > 0 {
			value = bytes.Join(append(append([][]byte{value}, long[1:]...), tail), nil)
		}
		if string(value) != er.last { // the same type as before costs nothing
			er.last = string(value)
		}
		er.typ = er.last
	}
	// "" (a comment), "id", "retry" and anything else: ignored.
	er.release(long)
}

// line returns the next line without its line end: long are the full
// buffers a line longer than the buffer filled (owned by the caller now),
// tail the rest of it, in buf until the next call. It counts the line
// against the current event's bound.
func (er *eventReader) line() (long [][]byte, tail []byte, err error) {
	for {
		b := er.buf[er.start:er.end]
		if !er.begun && (len(b) >= len(bom) || er.err != nil || !bytes.HasPrefix([]byte(bom), b)) {
			er.begun = true
			if bytes.HasPrefix(b, []byte(bom)) {
				er.start += len(bom)
				b = b[len(bom):]
			}
		}
		if er.skipLF && len(b) > 0 {
			er.skipLF = false
			if b[0] == '\n' {
				er.start++
				b = b[1:]
			}
		}
		if er.begun { // (with skipLF still set, b is empty)
			if i := lineEnd(b[er.scanned:]); i >= 0 {
				i += er.scanned
				er.start += i + 1
				if b[i] == '\r' {
					if i+1 < len(b) {
						if b[i+1] == '\n' {
							er.start++
						}
					} else {
						er.skipLF = true
					}
				}
				er.size += er.longLen + i + 1
				long, er.long, er.longLen, er.scanned = er.long, nil, 0, 0
				if er.size > er.max {
					return nil, nil, er.tooLarge()
				}
				return long, b[:i], nil
			}
			er.scanned = len(b)
			if er.size+er.longLen+len(b) > er.max {
				return nil, nil, er.tooLarge()
			}
		}
		if er.err != nil {
			// Whatever is left is an unterminated line: discarded with its event.
			return nil, nil, er.err
		}
		er.fill()
	}
}

func (er *eventReader) tooLarge() error {
	return &transport.EventTooLargeError{Limit: int64(er.max)}
}

// lineEnd is the index of the first '\n' or '\r' in b, or -1.
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	lim := i
	if i < 0 {
		lim = len(b)
	}
	if j := bytes.IndexByte(b[:lim], '\r'); j >= 0 {
		return j
	}
	return i
}

// fill reads more input after the unread bytes, making room first: a
// buffer the current line fills whole is handed over to it and a new one
// taken; otherwise the unread bytes move to the front, the data pieces
// in the buffer copied out first.
func (er *eventReader) fill() {
	unread := er.end - er.start
	switch {
	case er.buf == nil:
		er.buf = make([]byte, bufSize)
	case unread == len(er.buf) && er.begun:
		er.handOver()
	case er.end == len(er.buf) || unread == 0:
		er.keepPieces()
		copy(er.buf, er.buf[er.start:er.end])
		er.start, er.end = 0, unread
	}
	n, err := er.r.Read(er.buf[er.end:])
	er.end += n
	switch {
	case err != nil:
		er.err = err
	case n > 0:
		er.zeroReads = 0
	default:
		if er.zeroReads++; er.zeroReads >= 100 { // as bufio gives up
			er.err = io.ErrNoProgress
		}
	}
}

// handOver hands the buffer the current line fills whole over to it: to
// the event's Cutter when the line is data cut as it is read (the buffer
// held only when some of it is kept, else read into again at once), to
// er.long otherwise.
func (er *eventReader) handOver() {
	b := er.buf
	er.longLen += len(b)
	skip := 0
	if len(er.long) == 0 && !er.cutLine {
		skip = er.startCut(b)
	}
	if er.cutLine {
		if er.feedCut(b[skip:], false) {
			er.held = append(er.held, b)
		} else {
			er.spare = append(er.spare, b) // taken back just below
		}
	} else {
		er.long = append(er.long, b)
	}
	er.buf = er.buffer()
	er.start, er.end, er.scanned = 0, 0, 0
}

// startCut is called with the first buffer of a line longer than it: when
// the line is data that goes through a Cutter (the event's, or a new one
// for its first data line) it sets er.cutLine and returns where the data
// starts in b.
func (er *eventReader) startCut(b []byte) int {
	i := bytes.IndexByte(b, ':')
	if i < 0 || string(b[:i]) != "data" {
		return 0
	}
	if er.cut == nil && er.cutter != nil {
		er.cut = er.cutter(er.typ, er.keepCut)
		if er.cut == nil {
			return 0
		}
		er.any = true
		er.cutEarlier()
	}
	if er.cut == nil {
		return 0
	}
	er.cutLine = true
	if i++; i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

// cutEarlier feeds the event's data lines read before to its new Cutter:
// their pieces are replaced with what it keeps of them.
func (er *eventReader) cutEarlier() {
	earlier := er.pieces
	er.pieces = nil
	if n := len(earlier); n > 0 {
		earlier = earlier[:n-1] // the last line's end, fed before the next line
		er.cutLF = true
	}
	for _, p := range earlier {
		er.cutInBuf = p.inBuf
		er.cut.Feed(p.b)
	}
}

// feedCut feeds b to the event's Cutter, after the line end of the data
// line before: whether any of b was kept.
func (er *eventReader) feedCut(b []byte, inBuf bool) bool {
	if er.cutLF {
		er.cutInBuf, er.cutLF = false, false
		er.cut.Feed(lineFeed)
	}
	er.cutInBuf = inBuf
	return er.cut.Feed(b)
}

// keepCut is the Cutter's keep: a piece of the event's data.
func (er *eventReader) keepCut(b []byte, fed bool) {
	er.pieces = append(er.pieces, piece{b, fed && er.cutInBuf})
}

// maxSpare is how many full buffers (1 MiB) a reader keeps for the next
// long line. The rest of a long event's buffers are let go of once it is
// joined, and collected at once ([bigcopy.Dropped]): kept, the buffers of
// a 120 MiB event stayed live beside its data, its decoded form and the
// next request's body, 4× the event (BENCHMARKS.md, issue 42).
const maxSpare = 16

// release takes full buffers back: kept as spare up to maxSpare, the
// rest let go of and counted in er.dropped.
func (er *eventReader) release(bufs [][]byte) {
	n := min(len(bufs), max(0, maxSpare-len(er.spare)))
	er.spare = append(er.spare, bufs[:n]...)
	for _, b := range bufs[n:] {
		er.dropped += len(b)
	}
	clear(bufs)
}

// buffer is a spare full-size buffer, or a new one.
func (er *eventReader) buffer() []byte {
	if n := len(er.spare); n > 0 {
		b := er.spare[n-1]
		er.spare = er.spare[:n-1]
		return b
	}
	return make([]byte, bufSize)
}

// keepPieces copies the data pieces lying in buf out of it.
func (er *eventReader) keepPieces() {
	for i, p := range er.pieces {
		if p.inBuf {
			er.pieces[i] = piece{bytes.Clone(p.b), false}
		}
	}
}
