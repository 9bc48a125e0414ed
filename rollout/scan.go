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
	"time"
)

// headLines bounds how far readHead looks for the first user message.
const headLines = 64

// rebuild fills the index from every rollout file under the sessions
// directory. Unreadable files and files that are not rollouts are skipped.
func (ix *index) rebuild() error {
	return ix.walk(func(path string, d fs.DirEntry) {
		if r, ok := ix.record(path, d); ok {
			ix.merge(r)
		}
	})
}

// scanMissing adds the rollout files the index does not list (a crash
// before the index write, a hand-copied file) to the index, in memory and
// on disk. It reports whether it found any.
func (ix *index) scanMissing(ctx context.Context) bool {
	known := make(map[string]bool, len(ix.recs))
	for _, r := range ix.recs {
		known[r.Path] = true
	}
	var found []indexRecord
	_ = ix.walk(func(path string, d fs.DirEntry) {
		if known[relPath(ix.sessions, path)] {
			return
		}
		if r, ok := ix.record(path, d); ok {
			found = append(found, r)
		}
	})
	for _, r := range found {
		ix.merge(r)
	}
	if len(found) > 0 {
		_ = appendIndex(ctx, ix.sessions, found...)
	}
	return len(found) > 0
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
func (ix *index) record(path string, d fs.DirEntry) (indexRecord, bool) {
	meta, title, err := readHead(path)
	if err != nil || meta.ID == "" {
		return indexRecord{}, false
	}
	r := indexRecord{
		ID: meta.ID, Path: relPath(ix.sessions, path), Cwd: meta.Cwd,
		Created: formatTime(meta.Timestamp), Title: title, Updated: lastTimestamp(path), Name: readName(path),
	}
	if fi, err := d.Info(); err == nil && r.Updated == "" {
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
	lr := &lineReader{br: bufio.NewReaderSize(f, 4<<10)}
	line, _, err := lr.next()
	if err != nil && !errors.Is(err, io.EOF) {
		return SessionMeta{}, "", fmt.Errorf("rollout: read %s: %w", path, err)
	}
	meta, ok := parseMeta(line)
	if !ok {
		return SessionMeta{}, "", noMeta(path)
	}
	userMessage := []byte(`"user_message"`)
	for range headLines {
		line, _, err := lr.next()
		if err != nil {
			break
		}
		if !bytes.Contains(line, userMessage) {
			continue
		}
		var l wireLine
		var ev EventMsg
		if json.Unmarshal(line, &l) == nil && l.Type == LineEventMsg &&
			json.Unmarshal(l.Payload, &ev) == nil && ev.Type == EventUserMessage {
			return meta, truncateTitle(ev.Message), nil
		}
	}
	return meta, "", nil
}

// readName returns the name of the last rename event of the rollout at
// path, "" when there is none. It reads the whole file, so only a rebuild
// of the index (or a scan for files it misses) calls it.
func readName(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	lr := newLineReader(f)
	rename := []byte(`"` + string(EventRename) + `"`)
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

// lastTimestamp returns the timestamp of the last line that starts in the
// final 64 KiB of the file at path, "" when there is none.
func lastTimestamp(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(fi.Size()-64<<10, 0)
	buf := make([]byte, 1+fi.Size()-off)
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
