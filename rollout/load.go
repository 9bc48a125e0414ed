package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentcli/agent/transport"
)

// TurnState is how the last turn of a rollout stands.
type TurnState string

// The states of a rollout's last turn.
const (
	TurnNone        TurnState = ""            // no turn was started
	TurnOpen        TurnState = "open"        // started, never ended: the process died mid-turn
	TurnCompleted   TurnState = "completed"   // ended with turn_completed
	TurnFailed      TurnState = "failed"      // ended with turn_failed
	TurnInterrupted TurnState = "interrupted" // ended with turn_interrupted (the user stopped it)
)

// Warning is a non-fatal problem found while loading a rollout.
type Warning struct {
	// Line is the 1-based line number.
	Line    int
	Message string
}

// String formats the warning as "line N: message".
func (w Warning) String() string { return fmt.Sprintf("line %d: %s", w.Line, w.Message) }

// Rollout is a session read back from its file.
type Rollout struct {
	// Path is the file it was loaded from.
	Path string
	Meta SessionMeta
	// History is the model-visible history: response_items in order, each
	// compacted line replacing what came before it with its replacement
	// history. Each item's Raw is the recorded bytes.
	History []transport.Item
	// Total and Last are the usage of the last token_count event.
	Total, Last transport.Usage
	// CostUSD is the session's cost of that token_count event; nil when
	// it was unknown (or not recorded).
	CostUSD *float64
	// Ledger holds each tool call's final recorded state, in the order the
	// calls first appeared.
	Ledger []LedgerEntry
	// TurnContext is the last turn_context, nil when there is none.
	TurnContext *TurnContext
	// Events are the persisted events, in order (for replaying the
	// transcript).
	Events []EventMsg
	// Title is the first user message, on one line, truncated.
	Title string
	// Name is the name of the last rename event, "" when there is none.
	Name string
	// TurnStarts is where each turn's items begin in History, by turn;
	// -1 for a turn a later compaction summarised. A rollback
	// (thread_rolled_back) cuts History back to a turn's start.
	TurnStarts []int
	// LastTurn is how the last turn ended.
	LastTurn TurnState
	// Interrupted is set when the last turn did not end normally: it was
	// stopped by the user (TurnInterrupted) or the process died mid-turn
	// (TurnOpen).
	Interrupted bool
	// Warnings list the lines that were skipped: a torn last line (a crash
	// mid-write), corrupt lines, payloads that do not decode.
	Warnings []Warning

	// fold, while [LoadState] reads, takes each event instead of Events;
	// last is the last event read (kept or folded).
	fold func(EventMsg)
	last EventMsg
}

// LoadWarnings describes the damaged lines found loading ro, each with
// its file and line number: a resume reports them rather than skipping
// them silently.
func (ro *Rollout) LoadWarnings() []string {
	var out []string
	for _, w := range ro.Warnings {
		out = append(out, fmt.Sprintf("%s: %s", ro.Path, w))
	}
	return out
}

// Load reads the rollout at path. Only an unreadable file, or one whose
// first line is not session_meta (an error wrapping [ErrNoMeta] that names
// the file), is an error; damaged lines are skipped and reported in
// [Rollout.Warnings].
func Load(path string) (*Rollout, error) {
	return load(path, nil)
}

// LoadState is [Load] for a caller that shows none of the session's past
// turns (agent exec resume): each event is folded into the Rollout as Load
// folds it and then handed to fold, in order, but not kept: Events is nil.
// A 100,000-item session's 75,000 events (7.8 MB) are not held.
func LoadState(path string, fold func(EventMsg)) (*Rollout, error) {
	return load(path, fold)
}

func load(path string, fold func(EventMsg)) (*Rollout, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	defer f.Close()
	ro := &Rollout{Path: path, fold: fold}
	// The history and the events are sized from a first pass over the
	// file: growing them by doubling copied a 100,000-item history's
	// items again and again and left the old arrays for the collector.
	items, events, err := countLines(f)
	if err != nil {
		return nil, fmt.Errorf("rollout: read %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("rollout: read %s: %w", path, err)
	}
	// Room for a few turns: the session appends to the history it is
	// given (session.Options.Resumed) without copying it first.
	ro.History = make([]transport.Item, 0, items+resumeHeadroom)
	if fold == nil {
		ro.Events = make([]EventMsg, 0, events)
	}
	if err := ro.read(f); err != nil {
		return nil, err
	}
	ro.fold, ro.last = nil, EventMsg{}
	return ro, nil
}

// resumeHeadroom is the room left after a loaded history for the items
// of the next turns, so that the first of them does not copy it whole.
const resumeHeadroom = 256

// countLines counts, in one pass over r, the lines that look like
// response items and events (an upper bound: a line is counted by its
// envelope's type, anywhere in it). A pattern split between two reads is
// counted: each read goes after the previous one's last bytes.
func countLines(r io.Reader) (items, events int, err error) {
	item, event := []byte(`"type":"`+LineResponseItem+`"`), []byte(`"type":"`+LineEventMsg+`"`)
	keep := max(len(item), len(event)) - 1 // the most of a pattern a read can end with
	buf := make([]byte, 256<<10)
	kept := 0
	for {
		n, err := r.Read(buf[kept:])
		n += kept
		items += bytes.Count(buf[:n], item)
		events += bytes.Count(buf[:n], event)
		// The kept bytes hold no whole pattern: none is counted twice.
		kept = copy(buf, buf[max(0, n-keep):n])
		if errors.Is(err, io.EOF) {
			return items, events, nil
		}
		if err != nil {
			return 0, 0, err
		}
	}
}

// read decodes the lines of r into ro.
func (ro *Rollout) read(r io.Reader) error {
	lr := newLineReader(r)
	ledger := map[string]int{} // call id → index in ro.Ledger
	var items arena            // the fast path's items' bytes
	for n := 1; ; n++ {
		line, terminated, err := lr.next()
		if errors.Is(err, io.EOF) {
			if n == 1 {
				return noMeta(ro.Path)
			}
			break
		}
		if err != nil {
			return fmt.Errorf("rollout: read %s: %w", ro.Path, err)
		}
		if n == 1 {
			meta, ok := parseMeta(line)
			if !ok {
				return noMeta(ro.Path)
			}
			ro.Meta = meta
			continue
		}
		if len(line) == 0 {
			continue
		}
		// The writer's own lines take a path without encoding/json's
		// pass over the envelope and copy of the payload; anything it
		// does not take, or that fails there, is read again as before,
		// so a damaged line is reported the same way.
		if l, ok := envelope(line); ok && ro.applyFast(l, &items) == nil {
			continue
		}
		var l wireLine
		if err := json.Unmarshal(line, &l); err != nil {
			if !terminated {
				ro.warn(n, "torn last line (%d bytes) ignored: the writer stopped mid-line", len(line))
			} else {
				ro.warn(n, "corrupt line skipped: %v", err)
			}
			continue
		}
		if err := ro.apply(l, ledger); err != nil {
			ro.warn(n, "%s line skipped: %v", l.Type, err)
		}
	}
	ro.Interrupted = ro.LastTurn == TurnOpen || ro.LastTurn == TurnInterrupted
	return nil
}

func (ro *Rollout) warn(n int, format string, args ...any) {
	ro.Warnings = append(ro.Warnings, Warning{Line: n, Message: fmt.Sprintf(format, args...)})
}

// apply folds one decoded line into ro.
func (ro *Rollout) apply(l wireLine, ledger map[string]int) error {
	switch l.Type {
	case LineResponseItem:
		it, err := parseItem(l.Payload)
		if err != nil {
			return err
		}
		it.Origin = l.Origin
		ro.History = append(ro.History, it)
	case LineCompacted:
		var c wireCompacted
		if err := json.Unmarshal(l.Payload, &c); err != nil {
			return err
		}
		if c.ReplacementHistory == nil {
			// Without a replacement the summary is all that is left.
			ro.History = []transport.Item{transport.UserMessage(c.Message)}
			return errors.New("no replacement_history: the history is the summary alone")
		}
		hist := make([]transport.Item, 0, len(c.ReplacementHistory))
		var bad error
		for i, raw := range c.ReplacementHistory {
			it, err := parseItem(raw)
			if err != nil {
				bad = err
				continue
			}
			if i < len(c.ReplacementOrigins) {
				it.Origin = c.ReplacementOrigins[i]
			}
			hist = append(hist, it)
		}
		ro.History = hist
		for i := range ro.TurnStarts {
			ro.TurnStarts[i] = -1
		}
		if bad != nil {
			return fmt.Errorf("replacement item dropped: %w", bad)
		}
	case LineEventMsg:
		var ev EventMsg
		if err := json.Unmarshal(l.Payload, &ev); err != nil {
			return err
		}
		ro.recordEvent(ev, l.Payload)
	case LineTurnContext:
		var tc TurnContext
		if err := json.Unmarshal(l.Payload, &tc); err != nil {
			return err
		}
		ro.TurnContext = &tc
	case LineLedger:
		var e LedgerEntry
		if err := json.Unmarshal(l.Payload, &e); err != nil {
			return err
		}
		if e.CallID == "" {
			return errors.New("no call_id")
		}
		if i, ok := ledger[e.CallID]; ok {
			ro.Ledger[i] = e
		} else {
			ledger[e.CallID] = len(ro.Ledger)
			ro.Ledger = append(ro.Ledger, e)
		}
	}
	// A repeated session_meta and types from newer writers are ignored.
	return nil
}

// applyFast folds a response item or an event whose envelope [envelope]
// read; an error leaves ro as it was, and the line is read again by
// encoding/json. The payload is a slice of the reader's buffer: an item
// keeps a copy of it as its Raw, an event keeps none of it.
func (ro *Rollout) applyFast(l wireLine, a *arena) error {
	switch l.Type {
	case LineResponseItem:
		if len(l.Payload) == 0 || l.Payload[0] != '{' {
			return errors.New("item is not a JSON object")
		}
		it, err := transport.ParseItemOwned(a.copy(l.Payload))
		if err != nil {
			return err
		}
		it.Origin = l.Origin
		ro.History = append(ro.History, it)
		return nil
	case LineEventMsg:
		ev, ok := simpleEvent(l.Payload)
		if !ok {
			// Decoded apart: ev itself would escape, an allocation for
			// every event.
			var w EventMsg
			if err := json.Unmarshal(l.Payload, &w); err != nil {
				return err
			}
			ev = w
		}
		ro.recordEvent(ev, l.Payload)
		return nil
	}
	return errors.New("not a line for the fast path")
}

// envelope reads a line in the exact form the writer gives it
// (appendItemLine: timestamp, type, an optional plain origin, then the
// payload and the closing brace, nothing else), for the two types that
// make up a long rollout: response items and events. ok is false for
// anything else. The payload is not checked here: applyFast's decoding
// of it is.
func envelope(line []byte) (l wireLine, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"timestamp":"`))
	if !ok {
		return l, false
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 || !plain(rest[:i]) {
		return l, false
	}
	rest, ok = bytes.CutPrefix(rest[i:], []byte(`","type":"`))
	if !ok {
		return l, false
	}
	switch {
	case bytes.HasPrefix(rest, []byte(LineResponseItem+`"`)):
		l.Type, rest = LineResponseItem, rest[len(LineResponseItem)+1:]
	case bytes.HasPrefix(rest, []byte(LineEventMsg+`"`)):
		l.Type, rest = LineEventMsg, rest[len(LineEventMsg)+1:]
	default:
		return l, false
	}
	if o, ok := bytes.CutPrefix(rest, []byte(`,"origin":"`)); ok {
		i := bytes.IndexByte(o, '"')
		if i < 0 || !plain(o[:i]) {
			return l, false
		}
		l.Origin, rest = transport.Origin(o[:i]), o[i+1:]
	}
	rest, ok = bytes.CutPrefix(rest, []byte(`,"payload":`))
	// The payload is an object, as the writer writes it: no space around.
	if !ok || len(rest) < 3 || rest[0] != '{' || rest[len(rest)-2] != '}' || rest[len(rest)-1] != '}' {
		return l, false
	}
	l.Payload = rest[:len(rest)-1]
	return l, true
}

// plain reports whether a JSON string's contents are printable ASCII
// without escapes, read the same with or without decoding.
func plain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// recordEvent folds the event whose payload is raw into ro as agent
// reads it ([normalizeEvent]): a message Codex recorded both ways (a
// user_message event and the same text as an item) is kept once.
func (ro *Rollout) recordEvent(ev EventMsg, raw []byte) {
	fromItem := ev.Type == eventItemCompleted
	ev, ok := normalizeEvent(ev, raw)
	if !ok {
		return
	}
	if fromItem && ro.last.Type == ev.Type && ro.last.Message == ev.Message {
		return
	}
	ro.event(ev)
}

// event folds one persisted event into ro.
func (ro *Rollout) event(ev EventMsg) {
	ro.last = ev
	if ro.fold == nil {
		ro.Events = append(ro.Events, ev)
	}
	ro.state(ev)
	if ro.fold != nil {
		ro.fold(ev)
	}
}

// state folds an event into ro's fields.
func (ro *Rollout) state(ev EventMsg) {
	switch ev.Type {
	case EventUserMessage:
		if ro.Title == "" {
			ro.Title = truncateTitle(ev.Message)
		}
	case EventTokenCount:
		if ev.Total != nil {
			ro.Total = *ev.Total
		}
		if ev.Last != nil {
			ro.Last = *ev.Last
		}
		ro.CostUSD = ev.CostUSD
	case EventRename:
		ro.Name = ev.Message
	case EventTurnStarted:
		ro.LastTurn = TurnOpen
		ro.TurnStarts = append(ro.TurnStarts, len(ro.History))
	case EventRolledBack:
		if n := len(ro.TurnStarts) - ev.NumTurns; ev.NumTurns > 0 && n >= 0 && ro.TurnStarts[n] >= 0 {
			ro.History = ro.History[:ro.TurnStarts[n]]
			ro.TurnStarts = ro.TurnStarts[:n]
		}
	case EventTurnCompleted:
		ro.LastTurn = TurnCompleted
	case EventTurnFailed:
		ro.LastTurn = TurnFailed
	case EventTurnInterrupted:
		ro.LastTurn = TurnInterrupted
	}
}

// parseItem decodes a recorded item, which must be a JSON object. raw is
// encoding/json's copy of it, which the item keeps as its Raw.
func parseItem(raw json.RawMessage) (transport.Item, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return transport.Item{}, errors.New("item is not a JSON object")
	}
	return transport.ParseItemOwned(raw)
}
