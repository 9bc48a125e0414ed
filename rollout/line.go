package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentcli/agent/transport"
)

// LineType is the "type" of a rollout line; it says what the payload is.
type LineType string

// The line types a rollout holds. A reader ignores types it does not know.
const (
	LineSessionMeta  LineType = "session_meta"  // [SessionMeta], always the first line
	LineResponseItem LineType = "response_item" // a transport.Item's raw JSON
	LineEventMsg     LineType = "event_msg"     // [EventMsg]
	LineTurnContext  LineType = "turn_context"  // [TurnContext]
	LineCompacted    LineType = "compacted"     // [Compacted]
	LineLedger       LineType = "ledger"        // [LedgerEntry]
)

// timestampLayout is the line timestamp: UTC, milliseconds, fixed width,
// so timestamps also sort as strings.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// Errors returned by this package.
var (
	// ErrNoMeta: the file's first line is not session_meta; the file is
	// not a rollout. It comes wrapped with the file's name.
	ErrNoMeta = errors.New("rollout: first line is not session_meta")
	// ErrClosed: the [Recorder] was closed.
	ErrClosed = errors.New("rollout: recorder closed")
	// ErrNotFound: no session matches the lookup.
	ErrNotFound = errors.New("rollout: session not found")
	// ErrIndex: the rollout lines are durable, but the index record could
	// not be written. Lookups still find the session by a scan, so callers
	// may treat it as a warning.
	ErrIndex = errors.New("rollout: index not updated")
)

// SessionMeta is the payload of the first line: who and what the session
// is. ID is a UUIDv7 string chosen by the caller.
type SessionMeta struct {
	ID string `json:"id"`
	// ForkedFromID is the session this one was forked from, if any.
	ForkedFromID string    `json:"forked_from_id,omitempty"`
	Timestamp    time.Time `json:"timestamp"`
	Cwd          string    `json:"cwd"`
	Originator   string    `json:"originator"`
	CLIVersion   string    `json:"cli_version"`
	// Source is Codex's name for the kind of front end that started the
	// session ("cli", "exec", "mcp", "vscode"): Codex's pickers show
	// only the interactive ones unless asked.
	Source        string `json:"source,omitempty"`
	ModelProvider string `json:"model_provider"`
	Model         string `json:"model"`
	Instructions  string `json:"instructions"`
	// Spawn names the parent of a subagent (spawn_agent), written as
	// Codex writes it: "source": {"subagent": {"thread_spawn": {...}}} in
	// place of Source's string; nil for any other session.
	Spawn *ThreadSpawn `json:"-"`
}

// ThreadSpawn names the parent of a session spawned by spawn_agent.
type ThreadSpawn struct {
	ParentThreadID string `json:"parent_thread_id"`
	// Depth is the session's depth below its root (the root's children: 1).
	Depth         int    `json:"depth"`
	AgentRole     string `json:"agent_role,omitempty"`
	AgentNickname string `json:"agent_nickname,omitempty"`
}

// subagentSource is Codex's source of a subagent.
type subagentSource struct {
	Subagent struct {
		ThreadSpawn *ThreadSpawn `json:"thread_spawn"`
	} `json:"subagent"`
}

// MarshalJSON writes m, a subagent's source as Codex's object.
func (m SessionMeta) MarshalJSON() ([]byte, error) {
	type plain SessionMeta
	if m.Spawn == nil {
		return json.Marshal(plain(m))
	}
	var src subagentSource
	src.Subagent.ThreadSpawn = m.Spawn
	return json.Marshal(struct {
		plain
		Source subagentSource `json:"source"`
	}{plain(m), src})
}

// UnmarshalJSON reads m: source is Codex's string, or a subagent's
// object (then Spawn, and Source "subagent").
func (m *SessionMeta) UnmarshalJSON(b []byte) error {
	type plain SessionMeta
	var v struct {
		plain
		Source json.RawMessage `json:"source"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = SessionMeta(v.plain)
	m.Source, m.Spawn = "", nil
	if len(v.Source) == 0 || string(v.Source) == "null" {
		return nil
	}
	if json.Unmarshal(v.Source, &m.Source) == nil {
		return nil
	}
	var src subagentSource
	if err := json.Unmarshal(v.Source, &src); err == nil && src.Subagent.ThreadSpawn != nil {
		m.Source, m.Spawn = "subagent", src.Subagent.ThreadSpawn
	}
	return nil
}

// EventType is the kind of a persisted [EventMsg].
type EventType string

// The persisted event kinds: the small subset of the engine's events that
// a resumed session needs to replay its transcript and know how its last
// turn ended.
const (
	EventUserMessage     EventType = "user_message"     // Message: the user's text
	EventAgentMessage    EventType = "agent_message"    // Message: the assistant's text
	EventTokenCount      EventType = "token_count"      // Total and Last
	EventTurnStarted     EventType = "turn_started"     // opens a turn
	EventTurnCompleted   EventType = "turn_completed"   // closes a turn that succeeded
	EventTurnFailed      EventType = "turn_failed"      // Message: why
	EventTurnInterrupted EventType = "turn_interrupted" // the user stopped the turn
	EventRetry           EventType = "retry"            // Message: the retry notice
	// EventProviderSwitch: the session moved to Provider/Model; Message
	// says why. The responses after it, until the next one, came from there.
	EventProviderSwitch EventType = "provider_switch"
	// EventReview: the turn that follows is a code review of Message
	// (/review, agent review).
	EventReview EventType = "review"
	// EventRename: the user named the session Message (/rename); the
	// last one counts. Codex calls it thread_name_updated too.
	EventRename EventType = "thread_name_updated"
	// EventMalformed: the server sent Raw, which agent could not read
	// (wholly or in part); Message is the warning the user was given.
	EventMalformed EventType = "malformed"
	// EventCheckpoint: the turn it is in wrote to the workspace;
	// Checkpoint names the snapshots of before and after (package
	// session/checkpoint), which undoing it restores from.
	EventCheckpoint EventType = "checkpoint"
	// EventUndo: the files of the turn whose checkpoint is Checkpoint
	// were restored as they were before it (/undo, /rewind, agent undo).
	EventUndo EventType = "undo"
	// EventRolledBack: the conversation was cut back by NumTurns turns
	// (/rewind; Codex's thread_rolled_back). The history after it is the
	// compacted line recorded with it; the turns stay in the file.
	EventRolledBack EventType = "thread_rolled_back"
)

// Checkpoint names a turn's snapshots of the workspace Cwd.
type Checkpoint struct {
	Cwd    string `json:"cwd"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// EventMsg is the payload of an event_msg line.
type EventMsg struct {
	Type EventType `json:"type"`
	// Message is the text of a user or agent message, a failure's reason
	// or a retry notice.
	Message string `json:"message,omitempty"`
	// Total is the session's accumulated usage (token_count only).
	Total *transport.Usage `json:"total,omitempty"`
	// Last is the last response's usage (token_count only).
	Last *transport.Usage `json:"last,omitempty"`
	// CostUSD is what the session's responses cost so far, in USD
	// (token_count only; absent when a price is unknown).
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// Provider and Model name where the session's requests went: the
	// provider switched to (provider_switch), or the one that answered the
	// turn's last response (token_count).
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Raw is the server's event as sent (malformed only).
	Raw json.RawMessage `json:"raw,omitempty"`
	// Checkpoint is a turn's snapshots (checkpoint, undo only).
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// NumTurns is how many turns were rolled back (thread_rolled_back).
	NumTurns int `json:"num_turns,omitempty"`
}

// endsTurn reports whether the event closes a turn.
func (e EventMsg) endsTurn() bool {
	return e.Type == EventTurnCompleted || e.Type == EventTurnFailed || e.Type == EventTurnInterrupted
}

// TurnContext is the payload of a turn_context line: the settings a turn
// ran with, recorded when they change (and at least once).
type TurnContext struct {
	Cwd            string `json:"cwd"`
	ApprovalPolicy string `json:"approval_policy"`
	SandboxMode    string `json:"sandbox_mode"`
	Model          string `json:"model"`
	Effort         string `json:"effort,omitempty"`
	Summary        string `json:"summary,omitempty"`
}

// Compacted is the payload of a compacted line. The model-visible history
// after the line is ReplacementHistory followed by later items.
type Compacted struct {
	// Message is the summary text the compaction produced.
	Message string
	// ReplacementHistory replaces every item recorded before the line;
	// each item's Raw is written verbatim.
	ReplacementHistory []transport.Item
}

// LedgerEntry is the payload of a ledger line: one transition of one tool
// call. It has the JSON shape of the session engine's ledger entry.
type LedgerEntry struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	State  string `json:"state"`
}

// wireLine is a line as read back; Payload keeps the payload's bytes.
type wireLine struct {
	Timestamp string          `json:"timestamp"`
	Type      LineType        `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	// Origin is a response_item's [transport.Origin], beside the payload
	// so that the payload stays the item's raw JSON.
	Origin transport.Origin `json:"origin,omitempty"`
}

// wireCompacted is the compacted payload as read back.
type wireCompacted struct {
	Message            string            `json:"message"`
	ReplacementHistory []json.RawMessage `json:"replacement_history"`
	// ReplacementOrigins are the replacement items' origins, by index.
	ReplacementOrigins []transport.Origin `json:"replacement_origins,omitempty"`
}

// appendLine appends one encoded line to dst. The envelope is written by
// hand so that payload bytes (raw items) are never re-encoded.
func appendLine(dst []byte, t time.Time, typ LineType, payload []byte) []byte {
	return appendItemLine(dst, t, typ, "", payload)
}

// appendItemLine is appendLine with an item's origin in the envelope.
func appendItemLine(dst []byte, t time.Time, typ LineType, origin transport.Origin, payload []byte) []byte {
	dst = append(dst, `{"timestamp":"`...)
	dst = t.UTC().AppendFormat(dst, timestampLayout)
	dst = append(dst, `","type":"`...)
	dst = append(dst, typ...)
	if origin != "" {
		o, _ := json.Marshal(origin)
		dst = append(dst, `","origin":`...)
		dst = append(dst, o...)
		dst = append(dst, `,"payload":`...)
	} else {
		dst = append(dst, `","payload":`...)
	}
	dst = append(dst, payload...)
	return append(dst, '}', '\n')
}

// rawItem returns an item's raw JSON fit for one JSONL line: verbatim when
// it is a single line, compacted when it spans several (whitespace between
// tokens is the only place a raw newline can be).
func rawItem(it transport.Item) ([]byte, error) {
	raw := bytes.TrimSpace(it.Raw)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil, fmt.Errorf("rollout: item %q (%s) has no valid raw JSON object", it.ID, it.Type)
	}
	if bytes.ContainsAny(raw, "\r\n") {
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return nil, fmt.Errorf("rollout: item %q: %w", it.ID, err)
		}
		raw = b.Bytes()
	}
	return raw, nil
}

// compactedPayload encodes c with its replacement items verbatim.
func compactedPayload(c Compacted) ([]byte, error) {
	msg, err := json.Marshal(c.Message)
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"message":`), msg...)
	b = append(b, `,"replacement_history":[`...)
	var origins []transport.Origin
	for i, it := range c.ReplacementHistory {
		raw, err := rawItem(it)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, raw...)
		if it.Origin != "" {
			origins = append(origins, make([]transport.Origin, i+1-len(origins))...)
			origins[i] = it.Origin
		}
	}
	b = append(b, ']')
	if len(origins) > 0 {
		o, err := json.Marshal(origins)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"replacement_origins":`...)
		b = append(b, o...)
	}
	return append(b, '}'), nil
}
