// Package recording persists a session engine's conversation into its
// rollout file: the history items (secrets masked), the events a
// transcript and a resume need, compactions and the tool-call ledger. It is
// the adapter between package session, which knows nothing of files, and
// package rollout, which knows nothing of the engine.
package recording

import (
	"encoding/json"
	"errors"

	"github.com/agentcli/agent/internal/redact"
	"github.com/agentcli/agent/modelclient"
	"github.com/agentcli/agent/rollout"
	"github.com/agentcli/agent/session"
	"github.com/agentcli/agent/transport"
)

// Recorder is a [session.Recorder] (and [session.CompactionRecorder])
// writing into one rollout file, with the credentials of secrets masked in
// every item and message.
type Recorder struct {
	r       *rollout.Recorder
	secrets *redact.Set
}

// New returns the recorder of a session into r, masking secrets (may be
// nil).
func New(r *rollout.Recorder, secrets *redact.Set) Recorder { return Recorder{r: r, secrets: secrets} }

// RecordItems records history items, in order.
func (a Recorder) RecordItems(items ...transport.Item) error {
	return a.r.AppendItems(a.items(items)...)
}

// items returns copies of items with the secrets masked.
func (a Recorder) items(items []transport.Item) []transport.Item {
	out := make([]transport.Item, len(items))
	for i, it := range items {
		out[i] = redactItem(a.secrets, it)
	}
	return out
}

// redactItem returns it with the secrets of s masked in every field.
func redactItem(s *redact.Set, it transport.Item) transport.Item {
	for _, f := range []*string{&it.Type, &it.ID, &it.Role, &it.CallID, &it.Name, &it.Arguments, &it.Input} {
		*f = s.String(*f)
	}
	if it.Raw != nil {
		it.Raw = s.Bytes(it.Raw) // not copied when it holds no secret
	}
	return it
}

// Sync makes the lines durable; an index record that could not be written
// is not a loss (lookups scan for the file), so it is not reported.
func (a Recorder) Sync() error {
	if err := a.r.Sync(); err != nil && !errors.Is(err, rollout.ErrIndex) {
		return err
	}
	return nil
}

// RecordCompacted keeps the replaced history in the file and records the
// replacement after it.
func (a Recorder) RecordCompacted(message string, repl []transport.Item) error {
	return a.r.AppendCompacted(rollout.Compacted{Message: a.secrets.String(message), ReplacementHistory: a.items(repl)})
}

// RecordEvent keeps the events a transcript and a resume need.
func (a Recorder) RecordEvent(ev session.Event) error {
	add := func(e rollout.EventMsg) error {
		e.Message = a.secrets.String(e.Message)
		return a.r.AppendEvent(e)
	}
	switch ev := ev.(type) {
	case session.TurnStarted:
		return errors.Join(add(rollout.EventMsg{Type: rollout.EventTurnStarted}),
			add(rollout.EventMsg{Type: rollout.EventUserMessage, Message: ev.Input}))
	case session.MessageDone:
		return add(rollout.EventMsg{Type: rollout.EventAgentMessage, Message: ev.Text})
	case session.Retry:
		return add(rollout.EventMsg{Type: rollout.EventRetry, Message: session.RetryNotice(ev.Retry, ev.Delay)})
	case session.ProviderSwitch:
		return add(rollout.EventMsg{Type: rollout.EventProviderSwitch, Message: ev.Reason, Provider: ev.To.Provider, Model: ev.To.Model})
	case session.Warning:
		if len(ev.Raw) == 0 {
			return nil // agent's own notices are not the session's
		}
		return add(rollout.EventMsg{Type: rollout.EventMalformed, Message: ev.Message, Raw: a.raw(ev.Raw)})
	case session.Checkpointed:
		return add(rollout.EventMsg{Type: rollout.EventCheckpoint, Checkpoint: &rollout.Checkpoint{Cwd: ev.Workspace, Before: ev.Before, After: ev.After}})
	case session.FilesUndone:
		c := rollout.Checkpoint(*ev.Turn.Checkpoint)
		return add(rollout.EventMsg{Type: rollout.EventUndo, Checkpoint: &c})
	case session.RolledBack:
		return add(rollout.EventMsg{Type: rollout.EventRolledBack, NumTurns: ev.Turns})
	case session.ReviewStarted:
		return add(rollout.EventMsg{Type: rollout.EventReview, Message: ev.Target})
	case session.TurnCompleted:
		total, last := ev.Total, ev.Last
		return errors.Join(add(rollout.EventMsg{Type: rollout.EventTokenCount, Total: &total, Last: &last,
			CostUSD: ev.TotalCost, Provider: ev.Provider.Provider, Model: ev.Provider.Model}),
			add(rollout.EventMsg{Type: rollout.EventTurnCompleted}))
	case session.TurnFailed:
		if ev.Err.Failure.Kind == modelclient.KindCanceled {
			return add(rollout.EventMsg{Type: rollout.EventTurnInterrupted})
		}
		return add(rollout.EventMsg{Type: rollout.EventTurnFailed, Message: ev.Err.Error()})
	}
	return nil
}

// raw is a server event with the secrets masked, as JSON: the event
// itself, or (should masking have broken it) its text as a string.
func (a Recorder) raw(b json.RawMessage) json.RawMessage {
	masked := a.secrets.Bytes(b)
	if json.Valid(masked) {
		return masked
	}
	q, _ := json.Marshal(string(masked))
	return q
}

// LedgerSink records each tool-call transition in the rollout: the sink
// of a [session.Ledger].
func LedgerSink(r *rollout.Recorder) func(session.LedgerEntry) error {
	return func(e session.LedgerEntry) error {
		return r.AppendLedger(rollout.LedgerEntry{CallID: e.CallID, Name: e.Name, State: string(e.State)})
	}
}
