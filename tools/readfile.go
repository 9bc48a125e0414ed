package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// The bounds of a read_file call: the lines it returns unless told
// otherwise, and the bytes of one line it shows (as Codex's read_file did).
const (
	readFileLimit   = 2000
	readFileLineMax = 500
)

// ReadFileOptions configures [ReadFile].
type ReadFileOptions struct {
	// Cwd resolves a relative path.
	Cwd string
	// Unreadable are directories whose files the tool refuses, as the
	// sandbox does (the agent home, with its credentials).
	Unreadable []string
	// Editor, if set, is where files are read: an ACP editor's buffers,
	// unsaved changes included. A file the editor cannot give is read
	// from the disk.
	Editor Editor
}

// ReadFile is the read_file tool, offered where an editor holds the files
// (an ACP client with fs/read_text_file): the model reads a file as the
// editor has it, unsaved changes included, which a shell command would
// not see. It has the shape of Codex's former experimental read_file
// (slice mode): file_path, offset (1-indexed), limit; lines as "L{n}: text".
type ReadFile struct{ opts ReadFileOptions }

// NewReadFile returns the read_file tool.
func NewReadFile(opts ReadFileOptions) *ReadFile { return &ReadFile{opts: opts} }

// Name implements [Tool].
func (*ReadFile) Name() string { return "read_file" }

// ParallelSafe implements [Tool].
func (*ReadFile) ParallelSafe() bool { return true }

// Spec implements [Tool].
func (*ReadFile) Spec() json.RawMessage {
	return functionSpec("read_file",
		"Reads a local file with 1-indexed line numbers, as the user's editor has it (unsaved changes included). Returns lines as 'L{number}: {content}'. Prefer it to shell commands for reading files.",
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"file_path": map[string]any{"type": "string", "description": "Absolute path to the file"},
				"offset":    map[string]any{"type": "number", "description": "The line number to start reading from. Must be 1 or greater."},
				"limit":     map[string]any{"type": "number", "description": "The maximum number of lines to return."},
			},
			"required":             []string{"file_path"},
			"additionalProperties": false,
		})
}

// Run implements [Tool].
func (r *ReadFile) Run(ctx context.Context, inv *Invocation) Result {
	fail := func(msg string) Result { return Result{Output: msg, Status: StatusFailed} }
	var a struct {
		FilePath string `json:"file_path"`
		Offset   *int   `json:"offset"`
		Limit    *int   `json:"limit"`
	}
	if err := decodeArgs(inv.Call, &a); err != nil {
		return fail(err.Error())
	}
	offset, limit := 1, readFileLimit
	if a.Offset != nil {
		offset = *a.Offset
	}
	if a.Limit != nil {
		limit = *a.Limit
	}
	switch {
	case a.FilePath == "":
		return fail("file_path is required")
	case offset < 1:
		return fail("offset must be a 1-indexed line number")
	case limit < 1:
		return fail("limit must be greater than zero")
	}
	path := a.FilePath
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.opts.Cwd, path)
	}
	if err := unreadable(path, r.opts.Unreadable); err != nil {
		return fail("failed to read file: " + err.Error())
	}
	text, err := r.open(ctx, path)
	if err != nil {
		return fail("failed to read file: " + err.Error())
	}
	defer text.Close()
	out, ok, err := numberedLines(text, offset, limit)
	if err != nil {
		return fail("failed to read file: " + err.Error())
	}
	if !ok {
		return fail("offset exceeds file length")
	}
	return Result{Output: out, Status: StatusCompleted}
}

// open opens the file's text: the editor's when it has one, else the
// disk's (read as it goes, so a big file costs only the lines shown).
func (r *ReadFile) open(ctx context.Context, path string) (io.ReadCloser, error) {
	if r.opts.Editor != nil {
		if text, err := r.opts.Editor.ReadTextFile(ctx, path); err == nil {
			return io.NopCloser(strings.NewReader(text)), nil
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a file", path)
	}
	return f, nil
}

// numberedLines are limit lines of text from line offset on, each as
// "L{n}: text" cut at readFileLineMax bytes; ok is false when the text has
// fewer than offset lines.
func numberedLines(text io.Reader, offset, limit int) (string, bool, error) {
	br := bufio.NewReader(text)
	var b strings.Builder
	n, shown := 0, 0
	for shown < limit {
		line, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", false, err
		}
		n++
		if n < offset {
			continue
		}
		if len(line) > readFileLineMax {
			cut := readFileLineMax
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			line = line[:cut]
		}
		if shown > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "L%d: %s", n, line)
		shown++
	}
	return b.String(), n >= offset, nil
}

// readLine reads one line without its line ending, keeping at most
// readFileLineMax+utf8.UTFMax bytes of it (a long line is not held whole);
// io.EOF when there is none.
func readLine(br *bufio.Reader) (string, error) {
	var line []byte
	read := false
	for {
		frag, err := br.ReadSlice('\n')
		read = read || len(frag) > 0
		if room := readFileLineMax + utf8.UTFMax - len(line); room > 0 {
			line = append(line, frag[:min(len(frag), room)]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && read:
			return strings.TrimSuffix(string(line), "\r"), nil
		case err != nil:
			return "", err
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r"), nil
	}
}

// unreadable refuses a path inside one of dirs, after symbolic links (of
// the path, or of its nearest existing parent when it does not exist).
func unreadable(path string, dirs []string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		parent, perr := filepath.EvalSymlinks(filepath.Dir(path))
		if perr != nil {
			return err
		}
		real = filepath.Join(parent, filepath.Base(path))
	}
	for _, d := range dirs {
		if rd, err := filepath.EvalSymlinks(d); err == nil {
			d = rd
		}
		if rel, err := filepath.Rel(d, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s is in %s, which the model cannot read", path, d)
		}
	}
	return nil
}
