package rollout

import (
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
	// LastTurn is how the last turn ended.
	LastTurn TurnState
	// Interrupted is set when the last turn did not end normally: it was
	// stopped by the user (TurnInterrupted) or the process died mid-turn
	// (TurnOpen).
	Interrupted bool
	// Warnings list the lines that were skipped: a torn last line (a crash
	// mid-write), corrupt lines, payloads that do not decode.
	Warnings []Warning
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
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	defer f.Close()
	ro := &Rollout{Path: path}
	if err := ro.read(f); err != nil {
		return nil, err
	}
	return ro, nil
}

// read decodes the lines of r into ro.
func (ro *Rollout) read(r io.Reader) error {
	lr := newLineReader(r)
	ledger := map[string]int{} // call id → index in ro.Ledger
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
		if bad != nil {
			return fmt.Errorf("replacement item dropped: %w", bad)
		}
	case LineEventMsg:
		var ev EventMsg
		if err := json.Unmarshal(l.Payload, &ev); err != nil {
			return err
		}
		ro.event(ev)
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

// event folds one persisted event into ro.
func (ro *Rollout) event(ev EventMsg) {
	ro.Events = append(ro.Events, ev)
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
	case EventRename:
		ro.Name = ev.Message
	case EventTurnStarted:
		ro.LastTurn = TurnOpen
	case EventTurnCompleted:
		ro.LastTurn = TurnCompleted
	case EventTurnFailed:
		ro.LastTurn = TurnFailed
	case EventTurnInterrupted:
		ro.LastTurn = TurnInterrupted
	}
}

// parseItem decodes a recorded item, which must be a JSON object.
func parseItem(raw json.RawMessage) (transport.Item, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return transport.Item{}, errors.New("item is not a JSON object")
	}
	return transport.ParseItem(raw)
}
