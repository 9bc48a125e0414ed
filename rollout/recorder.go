package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentcli/agent/transport"
)

// maxSpare caps the buffer a Recorder keeps for reuse between flushes, so
// one huge tool output does not pin its size for the whole session.
const maxSpare = 1 << 20

// writeAt is how many buffered bytes an append writes: below maxSpare, so
// the buffer they grew in is kept for the next ones.
const writeAt = maxSpare / 2

// Recorder appends lines to one rollout file. Appends encode into
// memory; [Recorder.Flush] and [Recorder.Sync] write them, so a caller
// syncs at turn boundaries and before a tool runs. Once writeAt bytes
// are buffered an append writes them too, unless a write
// is in progress (one response of 200,000 items buffered 166 MB of lines
// until the turn ended; issue 42). A Recorder is safe for concurrent use;
// appends never wait for a disk write in progress. The caller must call
// [Recorder.Close].
//
// A failed write leaves the file with a possibly torn line, so it is
// sticky: every later append and flush returns the same error.
type Recorder struct {
	path     string
	sessions string // the sessions directory; "" when the index is not kept
	id, cwd  string
	created  time.Time
	now      func() time.Time

	wmu      sync.Mutex // serialises writes to f; held across write and fsync
	f        *os.File
	unsynced bool     // written since the last fsync; guarded by wmu
	newDirs  []string // directories with entries Create made, not yet synced; guarded by wmu

	mu         sync.Mutex // guards the fields below
	buf        []byte     // encoded lines not yet written
	spare      []byte
	title      string
	name       string
	indexDirty bool // an index record is due at the next durable flush
	// codex is the session's row in Codex's state database, written with
	// the index record once the session has a title; codexErr is the
	// first failure to write it ([Recorder.CodexStateError]).
	codex    codexThread
	codexErr error
	// indexHeld: another process held the index lock for as long as an
	// update waited (or until the update's context ended): later updates
	// try the lock once instead of waiting again, so a stop (Ctrl-C) is
	// not held up by a lock that stays held.
	indexHeld bool
	// blank: made by Create and no event appended since (no message,
	// turn or name: nothing to resume); [Recorder.Discard] removes it.
	blank  bool
	closed bool
	err    error
}

// Create starts a new session's rollout under home ($AGENT_HOME) and
// returns its recorder. meta.ID names the file (a UUIDv7 string; letters,
// digits, '-' and '_' only); a zero meta.Timestamp becomes now, which also
// dates the file name in local time. The session_meta line is written
// before Create returns and made durable, with the new directory entries,
// by the first [Recorder.Sync] (or Close): Create itself never waits for
// the disk, so a session starts without an fsync on its critical path.
// Directories are created with mode 0700 and the file with 0600. Later
// lines are stamped with now plus the time elapsed since Create.
//
// Create also appends the session to the index. If that fails the session
// is still created (lookups find it by a scan) and the next
// [Recorder.Sync] tries again.
func Create(ctx context.Context, home string, meta SessionMeta, now time.Time) (*Recorder, error) {
	return create(ctx, home, meta, now, "")
}

func create(ctx context.Context, home string, meta SessionMeta, now time.Time, title string) (*Recorder, error) {
	if home == "" {
		return nil, errors.New("rollout: no home directory")
	}
	if !validID(meta.ID) {
		return nil, fmt.Errorf("rollout: invalid session id %q", meta.ID)
	}
	if meta.Timestamp.IsZero() {
		meta.Timestamp = now
	}
	meta.Timestamp = meta.Timestamp.UTC().Truncate(time.Millisecond)
	if meta.Source == "" {
		meta.Source = codexSource(meta.Originator)
	}
	payload, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("rollout: encode session_meta: %w", err)
	}
	local := now.Local()
	sessions := sessionsDir(home)
	dir := filepath.Join(sessions, local.Format("2006"), local.Format("01"), local.Format("02"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	path := filepath.Join(dir, fileName(local, meta.ID))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	if err := hold(ctx, f, path, meta.ID); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, err
	}
	if _, err = f.Write(appendLine(nil, now, LineSessionMeta, payload)); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		_ = os.Remove(lockPath(path))
		return nil, fmt.Errorf("rollout: write %s: %w", path, err)
	}
	// The first durable flush makes the new name durable too: the file's
	// entry and those of any day directory just made.
	var newDirs []string
	for d := dir; len(d) >= len(sessions); d = filepath.Dir(d) {
		newDirs = append(newDirs, d)
	}
	// Later lines are stamped on the caller's clock: now plus the time
	// elapsed since (on the monotonic clock).
	start := time.Now()
	r := &Recorder{
		path: path, sessions: sessions, id: meta.ID, cwd: meta.Cwd,
		created: meta.Timestamp, f: f, title: title, unsynced: true, newDirs: newDirs, blank: true,
		now:   func() time.Time { return now.Add(time.Since(start)) },
		codex: codexThreadOf(meta, path),
	}
	_ = r.updateIndex(ctx, now) // a failure stays due for the next Sync
	return r, nil
}

// Open resumes the rollout at path: later appends go to the end of the
// same file (O_APPEND). The session is held by one recorder at a time,
// across processes: while another holds it, Open returns an
// [*InUseError] naming the holder's pid (a dead holder does not count). A torn last line left by a crash is terminated
// first, so it stays one corrupt line that [Load] skips instead of
// swallowing the next one. Open returns an error wrapping [ErrNoMeta] when
// the file is not a rollout. When path lies in a $AGENT_HOME/sessions tree,
// the session's index record is refreshed (it becomes the latest).
func Open(ctx context.Context, path string) (*Recorder, error) {
	meta, title, err := readHead(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("rollout: %w", err)
	}
	if err := hold(ctx, f, path, meta.ID); err != nil {
		_ = f.Close()
		return nil, err
	}
	if err := terminate(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("rollout: repair %s: %w", path, err)
	}
	r := &Recorder{
		path: path, sessions: sessionsDirOf(path), id: meta.ID, cwd: meta.Cwd,
		created: meta.Timestamp, now: time.Now, f: f, title: title, codex: codexThreadOf(meta, path),
	}
	_ = r.updateIndex(ctx, r.now()) // a failure stays due for the next Sync
	return r, nil
}

// Fork starts a new session newID under home seeded with src: its
// session_meta copies src's with forked_from_id set; src's last turn
// context, transcript (user and agent message events), history (as
// response_items) and ledger are copied and synced before Fork returns.
// Turn markers and token counts are not: the fork starts between turns.
// The caller must call [Recorder.Close].
func Fork(ctx context.Context, home string, src *Rollout, newID string, now time.Time) (*Recorder, error) {
	meta := src.Meta
	meta.ID, meta.ForkedFromID, meta.Timestamp = newID, src.Meta.ID, time.Time{}
	r, err := create(ctx, home, meta, now, src.Title)
	if err != nil {
		return nil, err
	}
	if src.TurnContext != nil {
		err = r.AppendTurnContext(*src.TurnContext)
	}
	for _, ev := range src.Events {
		if err == nil && (ev.Type == EventUserMessage || ev.Type == EventAgentMessage) {
			err = r.AppendEvent(ev)
		}
	}
	if err == nil {
		err = r.AppendItems(src.History...)
	}
	for _, e := range src.Ledger {
		if err == nil {
			err = r.AppendLedger(e)
		}
	}
	if err == nil {
		if err = r.Sync(); errors.Is(err, ErrIndex) {
			err = nil
		}
	}
	if err != nil {
		_ = r.Close()
		_ = os.Remove(r.path)
		return nil, err
	}
	return r, nil
}

// Path returns the rollout file's path; "" for a nil Recorder (a session
// not recorded).
func (r *Recorder) Path() string {
	if r == nil {
		return ""
	}
	return r.path
}

// ID returns the session id.
func (r *Recorder) ID() string { return r.id }

// AppendItems appends one response_item line per item, in order. Each
// item's Raw is written verbatim (a multi-line Raw is compacted onto one
// line); an item without a valid raw JSON object is an error and nothing
// is appended.
func (r *Recorder) AppendItems(items ...transport.Item) error {
	lines := make([]pieceLine, len(items))
	pieces := make([]piece, len(items))
	for i, it := range items {
		raw, err := rawItem(it)
		if err != nil {
			return err
		}
		pieces[i] = piece{b: raw}
		lines[i] = pieceLine{typ: LineResponseItem, origin: it.Origin, payload: pieces[i : i+1 : i+1]}
	}
	return r.addLines(lines, nil)
}

// AppendEvent appends an event_msg line. The first user message becomes
// the session's title in the index; an event ending a turn refreshes the
// session's index record at the next [Recorder.Sync].
func (r *Recorder) AppendEvent(ev EventMsg) error {
	payload, err := eventPayload(ev)
	if err != nil {
		return fmt.Errorf("rollout: encode event: %w", err)
	}
	return r.addLines([]pieceLine{{typ: LineEventMsg, payload: payload}}, func() {
		r.blank = false
		if ev.Type == EventUserMessage && r.title == "" {
			r.title = truncateTitle(ev.Message)
			r.indexDirty = true
		}
		if ev.endsTurn() {
			r.indexDirty = true
		}
		if ev.Type == EventRename {
			r.name = ev.Message
			r.indexDirty = true
		}
	})
}

// maxNameRunes caps a session's name.
const maxNameRunes = 80

// Rename names the session name (trimmed): it appends a rename event and
// syncs, so the index finds the session by its name ([Find]) when Rename
// returns nil. A name that is empty, longer than 80 characters or holds a
// control character (a newline) is refused, and nothing is appended. An
// error wrapping [ErrIndex] means the event is durable and only the index
// record is late (lookups find the name by a scan).
func (r *Recorder) Rename(name string) error {
	name, err := CheckName(name)
	if err != nil {
		return err
	}
	if err := r.AppendEvent(EventMsg{Type: EventRename, Message: name}); err != nil {
		return err
	}
	return r.Sync()
}

// CheckName returns name trimmed, or why it cannot name a session.
func CheckName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", errors.New("a session name cannot be empty")
	case utf8.RuneCountInString(name) > maxNameRunes:
		return "", fmt.Errorf("a session name is at most %d characters; this one has %d", maxNameRunes, utf8.RuneCountInString(name))
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "", errors.New("a session name is one line, without control characters")
	}
	return name, nil
}

// AppendTurnContext appends a turn_context line.
func (r *Recorder) AppendTurnContext(tc TurnContext) error {
	return r.addJSON(LineTurnContext, tc)
}

// AppendCompacted appends a compacted line: from here on the history is
// c.ReplacementHistory followed by later items.
func (r *Recorder) AppendCompacted(c Compacted) error {
	payload, err := compactedPayload(c)
	if err != nil {
		return err
	}
	return r.add(func(t time.Time, buf []byte) []byte {
		return appendLine(buf, t, LineCompacted, payload)
	})
}

// AppendLedger appends a ledger line. A call must not start before its
// "started" entry is durable: call [Recorder.Sync] before running it.
func (r *Recorder) AppendLedger(e LedgerEntry) error {
	return r.addJSON(LineLedger, e)
}

func (r *Recorder) addJSON(typ LineType, v any) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("rollout: encode %s: %w", typ, err)
	}
	return r.add(func(t time.Time, buf []byte) []byte {
		return appendLine(buf, t, typ, payload)
	})
}

// add runs enc under the lock to append encoded lines to the buffer.
// Once the buffer holds writeAt bytes they are written, unless a write
// is in progress (then a later append or flush writes them).
func (r *Recorder) add(enc func(t time.Time, buf []byte) []byte) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	if r.err != nil {
		defer r.mu.Unlock()
		return r.err
	}
	r.buf = enc(r.now(), r.buf)
	full := len(r.buf) >= writeAt
	r.mu.Unlock()
	if full && r.wmu.TryLock() {
		defer r.wmu.Unlock()
		return r.write()
	}
	return nil
}

// Flush writes the buffered lines to the file; when durable, it also
// fsyncs them and writes the index record a turn end made due. It returns
// at once when there is nothing to do. An error wrapping [ErrIndex] means
// the lines are durable and only the index record is late.
func (r *Recorder) Flush(durable bool) error {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return r.flush(durable)
}

// Sync is Flush(true): everything appended so far is on disk when it
// returns nil.
func (r *Recorder) Sync() error { return r.Flush(true) }

func (r *Recorder) flush(durable bool) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	r.mu.Lock()
	index := durable && r.indexDirty
	r.mu.Unlock()
	if err := r.write(); err != nil {
		return err
	}
	if !durable || !r.unsynced && !index {
		return nil
	}
	if r.unsynced {
		if err := r.f.Sync(); err != nil {
			return r.fail(err)
		}
		r.unsynced = false
		for _, d := range r.newDirs {
			syncDir(d)
		}
		r.newDirs = nil
	}
	if index {
		if err := r.updateIndex(context.Background(), r.now()); err != nil { // bounded
			return err
		}
	}
	return nil
}

// write writes the buffered lines; the caller holds wmu.
func (r *Recorder) write() error {
	r.mu.Lock()
	if r.err != nil {
		defer r.mu.Unlock()
		return r.err
	}
	buf := r.buf
	r.buf, r.spare = r.spare[:0], nil
	r.mu.Unlock()

	if len(buf) > 0 {
		_, err := r.f.Write(buf)
		if err != nil {
			return r.fail(err)
		}
		r.unsynced = true
	}
	if cap(buf) <= maxSpare {
		r.mu.Lock()
		if r.spare == nil {
			r.spare = buf[:0]
		}
		r.mu.Unlock()
	}
	return nil
}

// fail makes err sticky and returns it.
func (r *Recorder) fail(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = fmt.Errorf("rollout: write %s: %w", r.path, err)
	return r.err
}

// updateIndex appends the session's current index record. On failure the
// record stays due, so the next durable flush tries again.
func (r *Recorder) updateIndex(ctx context.Context, now time.Time) error {
	r.mu.Lock()
	r.indexDirty = false
	title, name := r.title, r.name
	wait := r.indexWait()
	r.mu.Unlock()
	if r.sessions == "" {
		return nil
	}
	rec := indexRecord{
		ID: r.id, Path: relPath(r.sessions, r.path), Cwd: r.cwd,
		Created: formatTime(r.created), Updated: formatTime(now), Title: title, Name: name,
	}
	if title != "" && r.codexErr == nil { // Codex lists no session without a first prompt
		// Guarded by wmu (every caller holds it, or owns r alone).
		r.codexErr = upsertCodexThread(ctx, filepath.Dir(r.sessions), r.codex, title, name, now)
	}
	held, err := appendIndex(ctx, r.sessions, wait, rec)
	r.mu.Lock()
	r.indexHeld = r.indexHeld || held
	if err != nil {
		r.indexDirty = true
	}
	r.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrIndex, err)
	}
	return nil
}

// CodexStateError returns the first failure to list the session in Codex's
// state database ([codexStateDB]) of a home shared with Codex, nil while
// there was none (or there is no such database). Codex's pickers then do
// not list the session; agent's do.
func (r *Recorder) CodexStateError() error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	return r.codexErr
}

// indexWait is how long an index update waits for the lock: the default
// bound, or one try once the lock was found held. The caller holds mu.
func (r *Recorder) indexWait() time.Duration {
	if r.indexHeld {
		return tryIndexLockOnce
	}
	return 0
}

// Close flushes and syncs what is buffered, then closes the file and lets
// go of the session. Later appends return [ErrClosed]; closing again
// returns nil.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	err := r.flush(true)
	r.wmu.Lock()
	defer r.wmu.Unlock()
	return errors.Join(err, release(r.f, r.path)) // closing f lets go of the session
}

// Discard closes the recorder and, when the session it created holds
// nothing to resume (no event appended since [Create]: no message, turn or
// name; only its start and context), removes its file and its index
// record, so a session opened and left empty leaves nothing behind. It
// reports whether it removed the session; a recorder of [Open] or [Fork],
// or one with an event, is only closed.
func (r *Recorder) Discard() (bool, error) {
	r.mu.Lock()
	blank := r.blank && !r.closed
	r.mu.Unlock()
	if err := r.Close(); err != nil || !blank {
		return false, err
	}
	if err := os.Remove(r.path); err != nil {
		return false, fmt.Errorf("rollout: %w", err)
	}
	if r.sessions != "" {
		r.mu.Lock()
		wait := r.indexWait()
		r.mu.Unlock()
		_ = dropIndex(r.sessions, r.id, wait) // a record left behind names a missing file, which lookups skip
	}
	return true, nil
}

// fileName is rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl for local time t.
func fileName(t time.Time, id string) string {
	return "rollout-" + t.Format("2006-01-02T15-04-05") + "-" + id + ".jsonl"
}

// idFromName returns the session id in a rollout file name, "" when name
// is not one.
func idFromName(name string) string {
	const stamp = len("rollout-2006-01-02T15-04-05-")
	if !strings.HasPrefix(name, "rollout-") || !strings.HasSuffix(name, ".jsonl") || len(name) <= stamp+len(".jsonl") {
		return ""
	}
	return strings.TrimSuffix(name[stamp:], ".jsonl")
}

// validID keeps ids safe to put in a file name.
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range id {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
		if !ok {
			return false
		}
	}
	return true
}

// sessionsDirOf returns the sessions directory holding a rollout at
// sessions/YYYY/MM/DD/name, "" when path is not laid out that way.
func sessionsDirOf(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	d := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(abs))))
	if filepath.Base(d) != "sessions" {
		return ""
	}
	return d
}

// terminate appends a newline when f does not end with one (a torn line).
func terminate(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	if _, err := f.Write([]byte{'\n'}); err != nil {
		return err
	}
	return f.Sync()
}

// syncDir makes a directory's entries durable; failure loses nothing the
// file's own sync has not already made durable on most file systems.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// truncateTitle makes a one-line title of at most 80 runes.
func truncateTitle(s string) string {
	const maxRunes = 80
	s = strings.Join(strings.Fields(s), " ")
	if n := 0; len(s) > maxRunes {
		for i := range s {
			if n == maxRunes-1 {
				return s[:i] + "…"
			}
			n++
		}
	}
	return s
}
