package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/agentcli/agent/internal/filelock"
)

// historyTail is how much of the history file is read at start.
const historyTail = 256 << 10

// history is the composer's message history, oldest first, with the
// position of the entry being recalled (len(entries) when none is).
type history struct {
	entries []string
	pos     int
	draft   string // what was typed before recalling
	loaded  bool

	pending []historyEntry // waiting to be written
	saving  bool           // a write is in flight
	warned  bool           // a write failed and the user was told
}

// prev recalls the entry before the current one; the first call saves
// current as the draft.
func (h *history) prev(current string) (string, bool) {
	if h.pos > len(h.entries) {
		h.pos = len(h.entries)
	}
	if h.pos == 0 {
		return "", false
	}
	if h.pos == len(h.entries) {
		h.draft = current
	}
	h.pos--
	return h.entries[h.pos], true
}

// next recalls the entry after the current one, then the draft.
func (h *history) next() (string, bool) {
	if h.pos >= len(h.entries) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.entries) {
		return h.draft, true
	}
	return h.entries[h.pos], true
}

// add records a sent message and ends recalling.
func (h *history) add(text string) {
	if n := len(h.entries); n == 0 || h.entries[n-1] != text {
		h.entries = append(h.entries, text)
	}
	h.pos, h.draft = len(h.entries), ""
}

// historyEntry is one line of the history file.
type historyEntry struct {
	SessionID string `json:"session_id"`
	TS        int64  `json:"ts"`
	Text      string `json:"text"`
}

// historyMsg carries the entries read from the history file.
type historyMsg struct {
	entries []string
	err     error
}

// loadHistory reads the tail of the history file.
func (m *Model) loadHistory() tea.Cmd {
	path := m.opts.HistoryPath
	if path == "" {
		return nil
	}
	return m.jobs.cmd(func() tea.Msg {
		entries, err := readHistory(path, historyTail)
		return historyMsg{entries: entries, err: err}
	})
}

// historyLoaded puts the file's entries before those sent meanwhile.
func (m *Model) historyLoaded(msg historyMsg) tea.Cmd {
	if msg.err != nil {
		m.tr.add(&notice{level: levelWarn, text: "could not read the message history: " + msg.err.Error()})
	}
	recalling := m.hist.pos < len(m.hist.entries)
	m.hist.entries = append(msg.entries, m.hist.entries...)
	if !recalling {
		m.hist.pos = len(m.hist.entries)
	} else {
		m.hist.pos += len(msg.entries)
	}
	m.hist.loaded = true
	return nil
}

// historySavedMsg says a history write ended.
type historySavedMsg struct{ err error }

// saveHistory appends text to the history file. Writes are serialized:
// one is in flight at a time, and entries sent meanwhile wait for it, so
// the file keeps the order they were sent in.
func (m *Model) saveHistory(text string) tea.Cmd {
	if m.opts.HistoryPath == "" || m.opts.HistoryNoSave {
		return nil
	}
	var id string
	if m.opts.SessionID != nil {
		id = m.opts.SessionID()
	}
	m.hist.pending = append(m.hist.pending, historyEntry{SessionID: id, TS: m.now().Unix(), Text: text})
	if m.hist.saving {
		return nil
	}
	return m.flushHistory()
}

// flushHistory writes the waiting entries.
func (m *Model) flushHistory() tea.Cmd {
	batch, path, limit := m.hist.pending, m.opts.HistoryPath, m.opts.HistoryMaxBytes
	m.hist.pending, m.hist.saving = nil, len(batch) > 0
	if len(batch) == 0 {
		return nil
	}
	return m.jobs.cmd(func() tea.Msg { return historySavedMsg{err: appendHistory(path, limit, batch...)} })
}

// historySaved reports a failed write (once) and writes what waited.
func (m *Model) historySaved(msg historySavedMsg) tea.Cmd {
	if msg.err != nil && !m.hist.warned {
		m.hist.warned = true
		m.tr.add(&notice{level: levelWarn, text: "could not save the message history: " + msg.err.Error()})
	}
	return m.flushHistory()
}

// readHistory returns the texts of the last limit bytes of the file at path;
// a missing file is an empty history.
func readHistory(path string, limit int64) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := st.Size() - limit
	if off > 0 {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return nil, err
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(data, []byte("\n"))
	if off > 0 && len(lines) > 0 {
		lines = lines[1:] // the first line was cut
	}
	var out []string
	for _, ln := range lines {
		var e historyEntry
		if len(bytes.TrimSpace(ln)) == 0 || json.Unmarshal(ln, &e) != nil || e.Text == "" {
			continue // a torn or foreign line is skipped, not fatal
		}
		if n := len(out); n == 0 || out[n-1] != e.Text {
			out = append(out, e.Text)
		}
	}
	return out, nil
}

// appendHistory adds the entries, one line each, in one write to an
// O_APPEND file, so concurrent chats never interleave their lines. The file
// is created 0600. When maxBytes > 0 and the file has grown past it, the
// oldest lines are dropped until it is at most 80% of maxBytes (the newest
// line always stays), under an exclusive lock, as Codex trims
// history.jsonl.
func appendHistory(path string, maxBytes int64, entries ...historyEntry) error {
	var buf []byte
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			return err
		}
		buf = append(append(buf, line...), '\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	// Bounded: another process holding it for long is not another chat.
	if err := filelock.Lock(context.Background(), f, filelock.Wait{}); err != nil {
		_ = f.Close()
		return err
	}
	defer f.Close() // closing releases the lock
	if _, err := f.Write(buf); err != nil {
		return fmt.Errorf("append %s: %w", path, err)
	}
	if maxBytes > 0 {
		if err := trimHistory(f, maxBytes); err != nil {
			return fmt.Errorf("trim %s: %w", path, err)
		}
	}
	return nil
}

// trimHistory drops the oldest lines of the locked file f, if it is larger
// than maxBytes, down to 80% of maxBytes, keeping at least the last line.
func trimHistory(f *os.File, maxBytes int64) error {
	st, err := f.Stat()
	if err != nil || st.Size() <= maxBytes {
		return err
	}
	data, err := os.ReadFile(f.Name())
	if err != nil {
		return err
	}
	soft := maxBytes * 8 / 10
	cut := 0
	for int64(len(data)-cut) > soft {
		i := bytes.IndexByte(data[cut:], '\n')
		if i < 0 || cut+i+1 >= len(data) {
			break // the last line stays
		}
		cut += i + 1
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.Write(data[cut:]) // O_APPEND: at the start of the now empty file
	return err
}
