package rollout

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// headLines bounds how far readHead looks for the first user message.
const headLines = 64

// smallRollout is the size up to which an index rebuild reads a rollout
// whole, once, rather than its head, every line and its tail apart.
const smallRollout = 256 << 10

// rebuild fills the index from every rollout file under the sessions
// directory. Unreadable files and files that are not rollouts are skipped.
func (ix *index) rebuild() error {
	defer setScanMark(ix.sessions, time.Now())
	var paths []string
	err := ix.walk(func(path string, _ fs.DirEntry) {
		paths = append(paths, path)
	})
	for _, r := range ix.records(paths) {
		ix.merge(r)
	}
	return err
}

// records reads the index records of the rollouts at paths, on as many
// goroutines as the process may run at once (100,000 sessions are
// 100,000 files to open and read), in paths' order; a file that is not a
// rollout has no record.
func (ix *index) records(paths []string) []indexRecord {
	recs := make([]indexRecord, len(paths))
	ok := make([]bool, len(paths))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(paths)/64, 1)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(paths) {
					return
				}
				recs[i], ok[i] = ix.record(paths[i])
			}
		})
	}
	wg.Wait()
	out := recs[:0]
	for i, r := range recs {
		if ok[i] {
			out = append(out, r)
		}
	}
	return out
}

// scanMissing adds the rollout files the index does not list (a crash
// before the index write, a hand-copied file) to the index, in memory and
// on disk. It reports whether it found any.
func (ix *index) scanMissing(ctx context.Context) bool {
	known := make(map[string]bool, len(ix.recs))
	for _, r := range ix.recs {
		known[r.Path] = true
	}
	var paths []string
	_ = ix.walk(func(path string, _ fs.DirEntry) {
		if !known[relPath(ix.sessions, path)] {
			paths = append(paths, path)
		}
	})
	found := ix.records(paths)
	for _, r := range found {
		ix.merge(r)
	}
	if len(found) > 0 {
		_, _ = appendIndex(ctx, ix.sessions, 0, found...)
	}
	return len(found) > 0
}

// scanMark is the file in the sessions directory whose modification time
// is when the last look for rollouts the index does not list began.
const scanMark = "index.scanned"

// scanChanged adds to the index, in memory and on disk, the rollout files
// it does not list in the day directories changed since the last look
// (the scan mark): the sessions another program wrote there (Codex, in a
// shared home) or a process that died before its index write left. Only
// changed day directories are read, so a home of 100,000 sessions costs
// a stat per day. Without a mark (a home the index never looked at this
// way) every directory is read once. It reports whether it found any.
func (ix *index) scanChanged(ctx context.Context) bool {
	mark := filepath.Join(ix.sessions, scanMark)
	var since time.Time // zero: read every day
	if fi, err := os.Stat(mark); err == nil {
		since = fi.ModTime()
	}
	start := time.Now()
	known := make(map[string]bool, len(ix.recs))
	for _, r := range ix.recs {
		known[r.Path] = true
	}
	var paths []string
	ix.walkChanged(ix.sessions, 0, since, func(path string) {
		if !known[relPath(ix.sessions, path)] {
			paths = append(paths, path)
		}
	})
	found := ix.records(paths)
	for _, r := range found {
		ix.merge(r)
	}
	if len(found) > 0 {
		_, _ = appendIndex(ctx, ix.sessions, 0, found...)
	}
	setScanMark(ix.sessions, start)
	return len(found) > 0
}

// setScanMark records t as the start of the last look at the sessions
// directory. A home it cannot write is looked at whole each time.
func setScanMark(sessions string, t time.Time) {
	mark := filepath.Join(sessions, scanMark)
	if err := os.Chtimes(mark, t, t); errors.Is(err, fs.ErrNotExist) {
		if f, err := os.OpenFile(mark, os.O_WRONLY|os.O_CREATE, 0o600); err == nil {
			_ = f.Close()
			_ = os.Chtimes(mark, t, t)
		}
	}
}

// walkChanged calls fn for each rollout file under dir (depth 0 is the
// sessions directory, 3 a day's: YYYY/MM/DD) whose day directory was
// modified at or after since. A file created in a directory changes its
// modification time; appending to a file does not, and needs no look.
func (ix *index) walkChanged(dir string, depth int, since time.Time, fn func(path string)) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			if idFromName(e.Name()) != "" {
				fn(path)
			}
			continue
		}
		if depth == 3 {
			continue
		}
		if depth == 2 { // a day: read only when it changed
			if fi, err := e.Info(); err != nil || fi.ModTime().Before(since) {
				continue
			}
		}
		ix.walkChanged(path, depth+1, since, fn)
	}
}

// walk calls fn for every rollout file name under the sessions directory.
func (ix *index) walk(fn func(path string, d fs.DirEntry)) error {
	err := filepath.WalkDir(ix.sessions, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && path != ix.sessions {
				return fs.SkipDir // an unreadable day must not hide the others
			}
			return err
		}
		if !d.IsDir() && idFromName(d.Name()) != "" {
			fn(path, d)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// record reads the index record of the rollout at path. Updated is the
// timestamp of its last line (a copy that reset the file's modification
// time does not reorder sessions), else the modification time.
func (ix *index) record(path string) (indexRecord, bool) {
	// One open for the three reads (the head, every line for a rename, the
	// tail); a file of up to smallRollout bytes is read once, whole.
	f, err := os.Open(path)
	if err != nil {
		return indexRecord{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return indexRecord{}, false
	}
	var src io.ReaderAt = f
	size := fi.Size()
	var whole []byte // the file, when it is small
	if size <= smallRollout {
		whole = make([]byte, size)
		n, err := io.ReadFull(f, whole)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return indexRecord{}, false
		}
		whole, size = whole[:n], int64(n)
		src = bytes.NewReader(whole)
	}
	meta, title, err := readHeadFrom(io.NewSectionReader(src, 0, size), path)
	if err != nil || meta.ID == "" {
		return indexRecord{}, false
	}
	r := indexRecord{
		ID: meta.ID, Path: relPath(ix.sessions, path), Cwd: meta.Cwd,
		Created: formatTime(meta.Timestamp), Title: title, Updated: lastTimestampIn(src, size),
	}
	// Most sessions were never renamed: a file without the event's name
	// is not read line by line for it.
	if whole == nil || bytes.Contains(whole, renameType) {
		r.Name = readNameFrom(io.NewSectionReader(src, 0, size))
	}
	if r.Updated == "" {
		r.Updated = formatTime(fi.ModTime())
	}
	if r.Created == "" {
		r.Created = r.Updated
	}
	if r.Updated == "" {
		r.Updated = r.Created
	}
	return r, true
}

// readHead reads a rollout's session_meta and looks for its first user
// message in the next few lines. It returns an error wrapping [ErrNoMeta]
// when the first line is not session_meta.
func readHead(path string) (SessionMeta, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return SessionMeta{}, "", fmt.Errorf("rollout: %w", err)
	}
	defer f.Close()
	return readHeadFrom(f, path)
}

// readHeadFrom is readHead of the rollout r holds.
func readHeadFrom(r io.Reader, path string) (SessionMeta, string, error) {
	lr := &lineReader{br: bufio.NewReaderSize(r, 4<<10)}
	line, _, err := lr.next()
	if err != nil && !errors.Is(err, io.EOF) {
		return SessionMeta{}, "", fmt.Errorf("rollout: read %s: %w", path, err)
	}
	meta, ok := parseMetaHead(line)
	if !ok {
		return SessionMeta{}, "", noMeta(path)
	}
	// agent's user_message event, or Codex 0.169+'s UserMessage item.
	userMessage, codexUser := []byte(`"user_message"`), []byte(`"UserMessage"`)
	for range headLines {
		line, _, err := lr.next()
		if err != nil {
			break
		}
		if !bytes.Contains(line, userMessage) && !bytes.Contains(line, codexUser) {
			continue
		}
		var l wireLine
		var ev EventMsg
		if json.Unmarshal(line, &l) != nil || l.Type != LineEventMsg || json.Unmarshal(l.Payload, &ev) != nil {
			continue
		}
		if ev, ok := normalizeEvent(ev, l.Payload); ok && ev.Type == EventUserMessage && ev.Message != "" {
			return meta, truncateTitle(ev.Message), nil
		}
	}
	return meta, "", nil
}

// renameType is how a rename event's type appears in its line.
var renameType = []byte(`"` + string(EventRename) + `"`)

// readNameFrom returns the name of the last rename event of the rollout r
// holds, "" when there is none. It reads the whole file, so only a rebuild
// of the index (or a scan for files it misses) calls it.
func readNameFrom(r io.Reader) string {
	lr := newLineReader(r)
	rename := renameType
	name := ""
	for {
		line, _, err := lr.next()
		if err != nil {
			return name
		}
		if !bytes.Contains(line, rename) {
			continue
		}
		var l wireLine
		var ev EventMsg
		if json.Unmarshal(line, &l) == nil && l.Type == LineEventMsg &&
			json.Unmarshal(l.Payload, &ev) == nil && ev.Type == EventRename {
			name = ev.Message
		}
	}
}

// lastTimestampIn returns the timestamp of the last line that starts in the
// final 64 KiB of the size bytes f holds, "" when there is none.
func lastTimestampIn(f io.ReaderAt, size int64) string {
	off := max(size-64<<10, 0)
	buf := make([]byte, 1+size-off)
	if off == 0 {
		buf[0] = '\n' // the first line starts a line too
	}
	if _, err := f.ReadAt(buf[1:], off); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	start := []byte("\n{\"timestamp\":\"")
	for {
		i := bytes.LastIndex(buf, start)
		if i < 0 {
			return ""
		}
		stamp := buf[i+len(start):]
		if len(stamp) >= len(timestampLayout) {
			if t, err := time.Parse(timestampLayout, string(stamp[:len(timestampLayout)])); err == nil {
				return formatTime(t)
			}
		}
		buf = buf[:i]
	}
}

// parseMetaHead decodes what the index and a reopened recorder need of a
// session_meta line: its id, time and working directory. It is one pass
// that keeps nothing else (the instructions in it can be long).
func parseMetaHead(line []byte) (SessionMeta, bool) {
	var l struct {
		Type    LineType `json:"type"`
		Payload *struct {
			ID            string    `json:"id"`
			Timestamp     time.Time `json:"timestamp"`
			Cwd           string    `json:"cwd"`
			Originator    string    `json:"originator"`
			CLIVersion    string    `json:"cli_version"`
			Source        any       `json:"source"` // Codex's subagent sources are objects
			ModelProvider string    `json:"model_provider"`
			Model         string    `json:"model"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil || l.Type != LineSessionMeta || l.Payload == nil {
		return SessionMeta{}, false
	}
	p := l.Payload
	src, _ := p.Source.(string)
	return SessionMeta{
		ID: p.ID, Timestamp: p.Timestamp, Cwd: p.Cwd, Originator: p.Originator, CLIVersion: p.CLIVersion,
		Source: src, ModelProvider: p.ModelProvider, Model: p.Model,
	}, true
}

// parseMeta decodes a session_meta line.
func parseMeta(line []byte) (SessionMeta, bool) {
	var l wireLine
	var meta SessionMeta
	if json.Unmarshal(line, &l) != nil || l.Type != LineSessionMeta || json.Unmarshal(l.Payload, &meta) != nil {
		return SessionMeta{}, false
	}
	return meta, true
}

func noMeta(path string) error {
	return fmt.Errorf("%s: %w", path, ErrNoMeta)
}

// lineReader reads lines of any length. The returned slice is valid until
// the next call.
type lineReader struct {
	br   *bufio.Reader
	long []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its newline and whether it had one.
// A final line without a newline comes with terminated false and a nil
// error; io.EOF comes only when nothing is left.
func (lr *lineReader) next() (line []byte, terminated bool, err error) {
	lr.long = lr.long[:0]
	for {
		b, err := lr.br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			lr.long = append(lr.long, b...)
			continue
		case err == nil:
			terminated = true
			b = b[:len(b)-1]
		case !errors.Is(err, io.EOF):
			return nil, false, err
		case len(b) == 0 && len(lr.long) == 0:
			return nil, false, io.EOF
		}
		if len(lr.long) > 0 {
			lr.long = append(lr.long, b...)
			b = lr.long
		}
		return b, terminated, nil
	}
}
