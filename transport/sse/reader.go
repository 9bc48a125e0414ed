package sse

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/agentcli/agent/transport"
)

// eventReader reads Server-Sent Events from r, one at a time, the way the
// WHATWG event-stream interpretation does and go-sse's Read does (it is
// differentially fuzzed against it: FuzzReaderMatchesGoSSE): lines end
// with "\n", "\r\n" or "\r"; a leading BOM is dropped; a blank line
// dispatches the event; "data" lines are joined with "\n"; "event" sets
// the type; comments, "id", "retry" and unknown fields are ignored; an
// unterminated final event is discarded.
//
// It exists instead of go-sse's iterator because the client pulls events
// (transport.Stream.Next): wrapping a push iterator costs a coroutine
// switch per event, and go-sse copies each field and event into new
// strings. This reader allocates nothing per event once its buffers have
// grown: the data it returns is valid until the next call.
type eventReader struct {
	r   io.Reader
	max int // bound on one event's bytes, field names and line ends included

	buf        []byte // buffered input; buf[start:end] is unread
	start, end int
	err        error // the read error that ended the input, once seen

	begun     bool // the first bytes were checked for a BOM
	skipLF    bool // the last line ended with '\r': a '\n' right after belongs to it
	zeroReads int  // reads in a row that returned nothing

	batch    time.Duration // Options.ReadBatch
	caughtUp bool          // the last read found less than batchBytes

	typ  string // the current event's type ("" if unnamed)
	last string // the last type seen, to reuse its string
	data []byte // the current event's data lines, each followed by '\n'
	one  []byte // the current event's only data line so far, still in buf
	held bool   // one holds the data (data is empty)
	size int    // bytes of the current event so far
	any  bool   // the current event has a data field
}

// errEventTooLarge says an event was longer than the reader's bound.
var errEventTooLarge = transport.ErrEventTooLarge

const (
	// batchBytes is what a read must find for the stream not to be taken
	// as caught up with the server: more than a few events.
	batchBytes    = 2 << 10
	initialBuffer = 32 << 10
	bom           = "\xEF\xBB\xBF"
)

func newEventReader(r io.Reader, max int) *eventReader {
	return &eventReader{r: r, max: max}
}

// next returns the next event's type and data (without the final line
// end). At the end of the input it returns io.EOF; a read failure and an
// event over the bound are returned as other errors.
func (er *eventReader) next() (typ string, data []byte, err error) {
	for {
		line, err := er.line()
		if err != nil {
			return "", nil, err
		}
		if len(line) == 0 { // dispatch
			typ, any, one, held := er.typ, er.any, er.one, er.held
			data := er.data
			er.typ, er.data, er.one, er.held, er.size, er.any = "", er.data[:0], nil, false, 0, false
			switch {
			case !any:
				continue
			case held:
				return typ, one, nil
			}
			return typ, data[:len(data)-1], nil
		}
		er.field(line)
	}
}

// field applies one non-blank line to the current event.
func (er *eventReader) field(line []byte) {
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if !er.any {
			// The usual event has one data line: it is returned where it
			// lies in buf, unless more lines or more input come first.
			er.one, er.held, er.any = value, true, true
			return
		}
		er.keepOne()
		er.data = append(er.data, value...)
		er.data = append(er.data, '\n')
	case "event":
		if string(value) != er.last { // the same type as before costs nothing
			er.last = string(value)
		}
		er.typ = er.last
	}
	// "" (a comment), "id", "retry" and anything else: ignored.
}

// keepOne copies the data line held in buf into data, before buf changes.
func (er *eventReader) keepOne() {
	if er.held {
		er.data = append(append(er.data[:0], er.one...), '\n')
		er.one, er.held = nil, false
	}
}

// line returns the next line without its line end; it is valid until the
// next call. It counts the line against the current event's bound.
func (er *eventReader) line() ([]byte, error) {
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
			if i := lineEnd(b); i >= 0 {
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
				if er.size += i + 1; er.size > er.max {
					return nil, fmt.Errorf("%w: more than %d bytes", errEventTooLarge, er.max)
				}
				return b[:i], nil
			}
			if er.size+len(b) > er.max {
				return nil, fmt.Errorf("%w: more than %d bytes", errEventTooLarge, er.max)
			}
		}
		if er.err != nil {
			// Whatever is left is an unterminated line: discarded with its event.
			return nil, er.err
		}
		er.keepOne() // fill may move what buf holds
		er.fill()
	}
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

// fill reads more input after the unread bytes, making room first.
func (er *eventReader) fill() {
	if er.start == er.end {
		er.start, er.end = 0, 0
	}
	if er.end == len(er.buf) {
		if unread := er.end - er.start; er.start > 0 && unread < len(er.buf)/2 {
			copy(er.buf, er.buf[er.start:er.end])
		} else {
			grown := make([]byte, max(initialBuffer, 2*len(er.buf)))
			copy(grown, er.buf[er.start:er.end])
			er.buf = grown
		}
		er.start, er.end = 0, er.end-er.start
	}
	if er.batch > 0 && er.caughtUp {
		time.Sleep(er.batch) // let the next events arrive (Options.ReadBatch)
	}
	n, err := er.r.Read(er.buf[er.end:])
	er.caughtUp = n < batchBytes
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
