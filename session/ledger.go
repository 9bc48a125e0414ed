package session

import (
	"sync"
)

// CallState is where a tool call is in its life. Calls move forward only.
type CallState string

// The states of the tool-call ledger.
const (
	CallRequested CallState = "requested" // the model asked for it
	CallApproved  CallState = "approved"  // the user (or policy) allowed it
	CallDeclined  CallState = "declined"  // the user said no
	CallStarted   CallState = "started"   // its side effect began
	CallFinished  CallState = "finished"  // its output is recorded
	CallUnknown   CallState = "unknown"   // it started, and then the record stops
)

// LedgerEntry is one transition of one call.
type LedgerEntry struct {
	CallID string    `json:"call_id"`
	Name   string    `json:"name"`
	State  CallState `json:"state"`
}

// Ledger records every tool call's state so that a retried, fallen-back or
// resumed turn never runs a started call again. It is safe for concurrent
// use.
type Ledger struct {
	mu     sync.Mutex
	states map[string]LedgerEntry
	sink   func(LedgerEntry) error
}

// NewLedger returns a ledger that reports each transition to sink (may be
// nil), which should make it durable before returning.
func NewLedger(sink func(LedgerEntry) error) *Ledger {
	return &Ledger{states: map[string]LedgerEntry{}, sink: sink}
}

// Restore loads entries (from a rollout being resumed). A call left
// "started" becomes "unknown": it may or may not have had its effect.
func (l *Ledger) Restore(entries []LedgerEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range entries {
		l.states[e.CallID] = e
	}
	for id, e := range l.states {
		if e.State == CallStarted || e.State == CallApproved {
			e.State = CallUnknown
			l.states[id] = e
		}
	}
}

// State returns the call's state, "" when the call was never seen.
func (l *Ledger) State(callID string) CallState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.states[callID].State
}

// Entries returns every call's latest entry.
func (l *Ledger) Entries() []LedgerEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]LedgerEntry, 0, len(l.states))
	for _, e := range l.states {
		out = append(out, e)
	}
	return out
}

// set records a transition. The sink's error is returned so a call is not
// started when its start could not be recorded.
func (l *Ledger) set(callID, name string, st CallState) error {
	e := LedgerEntry{CallID: callID, Name: name, State: st}
	l.mu.Lock()
	l.states[callID] = e
	l.mu.Unlock()
	if l.sink != nil {
		return l.sink(e)
	}
	return nil
}
