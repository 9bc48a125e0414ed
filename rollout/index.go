package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentcli/agent/internal/atomicfile"
	"github.com/agentcli/agent/internal/filelock"
)

// indexName is the index file in the sessions directory: append-only JSON
// lines, one [indexRecord] each, the last record per id winning.
const indexName = "index.jsonl"

// Entry is one session as the index knows it.
type Entry struct {
	ID string
	// Path is the rollout file's absolute path.
	Path string
	// Cwd is the directory the session started in.
	Cwd string
	// Created is when the session started; Updated when it was last
	// resumed or ended a turn.
	Created, Updated time.Time
	// Title is the first user message, on one line, truncated.
	Title string
	// Name is the name the user gave the session ([Recorder.Rename]), ""
	// when none.
	Name string
}

// Label is what a list of sessions shows for e: its name, else its
// title.
func (e Entry) Label() string {
	if e.Name != "" {
		return e.Name
	}
	return e.Title
}

// AmbiguousError is returned by [Find] when a prefix matches several
// sessions.
type AmbiguousError struct {
	Prefix string
	// IDs are the matching sessions, newest first.
	IDs []string
	// Matches are the same sessions as the index knows them.
	Matches []Entry
}

// Error says how many sessions the prefix matched.
func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("rollout: %q matches %d sessions", e.Prefix, len(e.IDs))
}

// indexRecord is one line of the index. Times use the fixed-width line
// timestamp layout, so they compare as strings; Path is relative to the
// sessions directory (slash-separated) unless absolute.
type indexRecord struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Cwd     string `json:"cwd"`
	Created string `json:"created"`
	Updated string `json:"updated"`
	Title   string `json:"title,omitempty"`
	Name    string `json:"name,omitempty"`
}

// index is the merged index of one sessions directory.
type index struct {
	sessions string
	recs     []indexRecord
	byID     map[string]int
}

// Latest returns the most recently updated session under home whose cwd
// is cwd, or of any cwd when all is set. It reads only the index (one
// file), falling back to a scan of the rollout files when nothing
// matches; it returns [ErrNotFound] when no session does. Like every
// lookup it is safe for concurrent use, also across processes.
func Latest(ctx context.Context, home, cwd string, all bool) (Entry, error) {
	es, err := List(ctx, home, cwd, all, 1)
	if err != nil {
		return Entry{}, err
	}
	if len(es) == 0 {
		return Entry{}, ErrNotFound
	}
	return es[0], nil
}

// List returns up to limit sessions (all when limit <= 0) under home,
// most recently updated first, filtered by cwd unless all is set.
// Sessions whose file is gone are left out. When the index yields none,
// List scans the rollout files for sessions missing from it.
func List(ctx context.Context, home, cwd string, all bool, limit int) ([]Entry, error) {
	ix, err := loadIndex(ctx, sessionsDir(home))
	if err != nil {
		return nil, err
	}
	ix.scanChanged(ctx)
	match := func(r *indexRecord) bool { return all || sameDir(r.Cwd, cwd) }
	es := ix.entries(match, limit)
	if len(es) == 0 && ix.scanMissing(ctx) {
		es = ix.entries(match, limit)
	}
	return es, nil
}

// Find returns the session whose id is idOrPrefix, else the newest one
// named idOrPrefix ([Recorder.Rename]), else the only one whose id starts
// with it. It returns an [*AmbiguousError] when several ids start with it
// and [ErrNotFound] when nothing matches, after a scan for sessions
// missing from the index.
func Find(ctx context.Context, home, idOrPrefix string) (Entry, error) {
	if idOrPrefix == "" {
		return Entry{}, ErrNotFound
	}
	ix, err := loadIndex(ctx, sessionsDir(home))
	if err != nil {
		return Entry{}, err
	}
	es, exact := ix.find(idOrPrefix)
	if len(es) == 0 && ix.scanMissing(ctx) {
		es, exact = ix.find(idOrPrefix)
	}
	switch {
	case len(es) == 0:
		return Entry{}, ErrNotFound
	case len(es) > 1 && !exact:
		ae := &AmbiguousError{Prefix: idOrPrefix}
		for _, e := range es {
			ae.IDs = append(ae.IDs, e.ID)
		}
		ae.Matches = es
		return Entry{}, ae
	}
	return es[0], nil
}

// find returns the live sessions matching id exactly, or the newest one
// named id (exact set), or when there is none those whose id starts with
// it, newest first.
func (ix *index) find(id string) (_ []Entry, exact bool) {
	if i, ok := ix.byID[id]; ok {
		if e, ok := ix.entry(&ix.recs[i]); ok {
			return []Entry{e}, true
		}
	}
	if named := ix.entries(func(r *indexRecord) bool { return r.Name == id }, 1); len(named) == 1 {
		return named, true
	}
	return ix.entries(func(r *indexRecord) bool { return strings.HasPrefix(r.ID, id) }, 0), false
}

// entries returns up to limit live sessions accepted by match, newest
// first.
func (ix *index) entries(match func(*indexRecord) bool, limit int) []Entry {
	var cand []*indexRecord
	for i := range ix.recs {
		if match(&ix.recs[i]) {
			cand = append(cand, &ix.recs[i])
		}
	}
	if limit == 1 { // Latest: no need to sort them all
		for len(cand) > 0 {
			best := 0
			for i, r := range cand {
				if newer(r, cand[best]) < 0 {
					best = i
				}
			}
			if e, ok := ix.entry(cand[best]); ok {
				return []Entry{e}
			}
			cand = slices.Delete(cand, best, best+1)
		}
		return nil
	}
	slices.SortFunc(cand, newer)
	var out []Entry
	for _, r := range cand {
		if limit > 0 && len(out) == limit {
			break
		}
		if e, ok := ix.entry(r); ok {
			out = append(out, e)
		}
	}
	return out
}

// newer orders records newest first: by update, creation, then id.
func newer(a, b *indexRecord) int {
	if c := strings.Compare(b.Updated, a.Updated); c != 0 {
		return c
	}
	if c := strings.Compare(b.Created, a.Created); c != 0 {
		return c
	}
	return strings.Compare(b.ID, a.ID)
}

// entry converts r, reporting false when its file is gone.
func (ix *index) entry(r *indexRecord) (Entry, bool) {
	path := ix.abs(r.Path)
	if _, err := os.Stat(path); err != nil {
		return Entry{}, false
	}
	return Entry{
		ID: r.ID, Path: path, Cwd: r.Cwd,
		Created: parseTime(r.Created), Updated: parseTime(r.Updated), Title: r.Title, Name: r.Name,
	}, true
}

func (ix *index) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(ix.sessions, filepath.FromSlash(p))
}

// merge folds r into the index: the last record per id wins, but its
// empty fields do not erase what earlier records said.
func (ix *index) merge(r indexRecord) {
	i, ok := ix.byID[r.ID]
	if !ok {
		ix.byID[r.ID] = len(ix.recs)
		ix.recs = append(ix.recs, r)
		return
	}
	old := &ix.recs[i]
	keep(&old.Path, r.Path)
	keep(&old.Cwd, r.Cwd)
	keep(&old.Created, r.Created)
	keep(&old.Updated, r.Updated)
	keep(&old.Title, r.Title)
	keep(&old.Name, r.Name)
}

// keep overwrites *dst with a non-empty src.
func keep(dst *string, src string) {
	if src != "" {
		*dst = src
	}
}

// loadIndex reads the index of sessions. A missing, unreadable or corrupt
// index is rebuilt from the rollout files and rewritten atomically; one
// with many superseded records is rewritten compacted. Failing to write
// the index never fails a lookup: the index is only a cache.
func loadIndex(ctx context.Context, sessions string) (*index, error) {
	ix := &index{sessions: sessions, byID: map[string]int{}}
	if _, err := os.Stat(sessions); errors.Is(err, fs.ErrNotExist) {
		return ix, nil // no session was ever recorded
	}
	unlock, _, err := lockIndex(ctx, sessions, 0)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// An index that cannot be read is rebuilt like a missing one.
	data, err := os.ReadFile(filepath.Join(sessions, indexName))
	// One string for the whole file: records are substrings of it.
	text := string(data)
	n := strings.Count(text, "\n")
	ix.recs, ix.byID = make([]indexRecord, 0, n), make(map[string]int, n)
	lines, ok := 0, err == nil
	for line := range strings.SplitSeq(text, "\n") {
		if !ok {
			break
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		r, err := decodeRecord(line)
		if err != nil || r.ID == "" || r.Path == "" {
			ok = false
			break
		}
		lines++
		ix.merge(r)
	}
	if !ok {
		ix.recs, ix.byID = nil, map[string]int{}
		if err := ix.rebuild(); err != nil {
			return nil, fmt.Errorf("rollout: scan %s: %w", sessions, err)
		}
		_ = ix.rewrite()
		return ix, nil
	}
	if lines > len(ix.recs)+len(ix.recs)/4+256 {
		_ = ix.rewrite()
	}
	return ix, nil
}

// decodeRecord decodes one index line. A line in the exact form the
// writer produces (json.Marshal of an indexRecord whose strings need no
// escapes) takes a fast path; anything else goes through encoding/json.
func decodeRecord(line string) (indexRecord, error) {
	if r, ok := fastRecord(line); ok {
		return r, nil
	}
	var r indexRecord
	err := json.Unmarshal([]byte(line), &r)
	return r, err
}

// fastRecord parses what json.Marshal writes for an indexRecord, and
// reports false for anything else.
func fastRecord(line string) (r indexRecord, ok bool) {
	keys := [...]string{`{"id":"`, `","path":"`, `","cwd":"`, `","created":"`, `","updated":"`, `","title":"`}
	fields := [...]*string{&r.ID, &r.Path, &r.Cwd, &r.Created, &r.Updated, &r.Title}
	rest := line
	for i, key := range keys {
		if !strings.HasPrefix(rest, key) {
			// The title is omitted when empty.
			return r, i == len(keys)-1 && rest == `"}`
		}
		rest = rest[len(key):]
		n := plainString(rest)
		if n < 0 {
			return r, false
		}
		*fields[i] = rest[:n]
		rest = rest[n:] // at the closing quote
	}
	return r, rest == `"}`
}

// plainString returns the length of the JSON string body at the start of
// b, -1 when it has escapes, control characters or invalid UTF-8 (which
// encoding/json would rewrite) or does not end.
func plainString(s string) int {
	ascii := true
	for i := range len(s) {
		switch c := s[i]; {
		case c == '"':
			if !ascii && !utf8.ValidString(s[:i]) {
				return -1
			}
			return i
		case c == '\\' || c < 0x20:
			return -1
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return -1
}

// rewrite replaces the index file with one record per session: a
// temporary file, synced, renamed over it. The caller holds the lock.
func (ix *index) rewrite() error {
	var buf []byte
	for _, r := range ix.recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf = append(append(buf, b...), '\n')
	}
	return atomicfile.Write(filepath.Join(ix.sessions, indexName), buf, 0o600)
}

// appendIndex appends recs to the index of sessions under the lock,
// waiting for it at most maxWait (see [lockIndex]); held says another
// process held the lock all that time. It never creates the index: a
// missing one is rebuilt by the next reader from every file, which a
// one-record index would hide.
func appendIndex(ctx context.Context, sessions string, maxWait time.Duration, recs ...indexRecord) (held bool, err error) {
	var buf []byte
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return false, err
		}
		buf = append(append(buf, b...), '\n')
	}
	unlock, held, err := lockIndex(ctx, sessions, maxWait)
	if err != nil {
		return true, err
	}
	defer unlock()
	f, err := os.OpenFile(filepath.Join(sessions, indexName), os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return held, nil
	}
	if err != nil {
		return held, err
	}
	// A record torn by a crash must not swallow this one.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			buf = append([]byte{'\n'}, buf...)
		}
	}
	_, err = f.Write(buf)
	return held, errors.Join(err, f.Close())
}

// dropIndex removes session id's records from the index of sessions,
// under the lock, waiting for it at most maxWait (see [lockIndex]). An
// index it cannot read is left as it is.
func dropIndex(sessions, id string, maxWait time.Duration) error {
	unlock, _, err := lockIndex(context.Background(), sessions, maxWait)
	if err != nil {
		return err
	}
	defer unlock()
	path := filepath.Join(sessions, indexName)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var keep []byte
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if r, err := decodeRecord(line); err == nil && r.ID == id {
			continue
		}
		keep = append(append(keep, line...), '\n')
	}
	if len(keep) == len(data) {
		return nil
	}
	return atomicfile.Write(path, keep, 0o600)
}

// lockIndex takes the cross-process index lock, returning its release.
// Without a lock file (a read-only home), or when another process holds
// the lock past maxWait (0: [filelock.DefaultMaxWait]; agent's own hold
// it for milliseconds), it proceeds unlocked: the index is a cache, and a
// torn one is rebuilt; held then says the lock was held all along. When
// ctx ends first (Ctrl-C), it returns ctx's error.
func lockIndex(ctx context.Context, sessions string, maxWait time.Duration) (unlock func(), held bool, err error) {
	h, err := filelock.LockPath(ctx, filepath.Join(sessions, "index.lock"), filelock.Wait{Max: maxWait})
	if err != nil {
		if ctx.Err() != nil {
			return nil, true, fmt.Errorf("rollout: %w", ctx.Err())
		}
		var he *filelock.HeldError
		return func() {}, errors.As(err, &he), nil
	}
	return func() { _ = h.Unlock() }, false, nil
}

// tryIndexLockOnce is the wait for an index lock already found held by
// another process: one try, then on without it.
const tryIndexLockOnce = time.Nanosecond

// sessionsDir is home's sessions directory, absolute so entries' paths
// are.
func sessionsDir(home string) string {
	dir := filepath.Join(home, "sessions")
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

func sameDir(a, b string) bool {
	return a == b || filepath.Clean(a) == filepath.Clean(b)
}

// relPath is path relative to sessions, slash-separated, or path itself
// when it lies elsewhere.
func relPath(sessions, path string) string {
	if len(path) > len(sessions) && strings.HasPrefix(path, sessions) && path[len(sessions)] == filepath.Separator {
		return filepath.ToSlash(path[len(sessions)+1:]) // the common case, without allocating
	}
	rel, err := filepath.Rel(sessions, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	return filepath.ToSlash(rel)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timestampLayout)
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(timestampLayout, s)
	return t
}
