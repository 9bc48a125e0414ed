package rollout

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// arenaChunk is the size of the blocks a load copies its items' bytes
// into: a 100,000-item history is a few hundred allocations, not 100,000
// each rounded up to its size class.
const arenaChunk = 64 << 10

// arena hands out copies of items' bytes from shared blocks. A copy's
// capacity is its length: appending to it copies, never writes into the
// next item.
type arena struct{ buf []byte }

// copy returns a copy of b: in the current block, or on its own when b is
// more than an eighth of a block.
func (a *arena) copy(b []byte) []byte {
	if len(b) > arenaChunk/8 {
		return bytes.Clone(b)
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, arenaChunk)
	}
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// eventTypes are the events agent writes, by name: a decoded event's type
// is one of these strings, not a copy of it.
var eventTypes = [...]EventType{
	EventUserMessage, EventAgentMessage, EventTokenCount, EventTurnStarted, EventTurnCompleted,
	EventTurnFailed, EventTurnInterrupted, EventRetry, EventProviderSwitch, EventReview,
	EventRename, EventMalformed, EventCheckpoint, EventUndo, EventRolledBack,
}

// simpleEvent reads the events that make up most of a long rollout
// exactly as the writer writes them, `{"type":"T"}` or
// `{"type":"T","message":"M"}` with neither holding an escape, a control
// character or invalid UTF-8, without encoding/json: ok is false for
// anything else (and for item_completed, which normalizeEvent reads
// again), which encoding/json then reads. The result is the same either
// way (FuzzSimpleEvent).
func simpleEvent(payload []byte) (ev EventMsg, ok bool) {
	rest, ok := bytes.CutPrefix(payload, []byte(`{"type":"`))
	if !ok {
		return ev, false
	}
	typ, rest, ok := plainJSONString(rest)
	if !ok {
		return ev, false
	}
	ev.Type = internEvent(typ)
	if ev.Type == eventItemCompleted {
		return ev, false
	}
	if m, ok := bytes.CutPrefix(rest, []byte(`,"message":"`)); ok {
		msg, r, ok := plainJSONString(m)
		if !ok {
			return ev, false
		}
		ev.Message, rest = string(msg), r
	}
	return ev, string(rest) == "}"
}

// plainJSONString reads a JSON string's contents up to its closing quote,
// which must be plain: no escape, no control character, valid UTF-8.
func plainJSONString(b []byte) (s, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 {
		return nil, nil, false
	}
	s = b[:i]
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return nil, nil, false
		}
	}
	return s, b[i+1:], utf8.Valid(s)
}

// internEvent is the event type named typ: one of eventTypes, or a copy.
func internEvent(typ []byte) EventType {
	for _, t := range eventTypes {
		if string(typ) == string(t) {
			return t
		}
	}
	return EventType(strings.Clone(string(typ)))
}
