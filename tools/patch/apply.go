package patch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Options configures [Apply] and [Preview]. The zero value allows writing
// anywhere inside the root.
type Options struct {
	// Writable is the caller's sandbox policy: it reports whether the file
	// at absPath (inside the root, symbolic links resolved) may be created,
	// modified or removed. A refused path fails the whole patch with
	// [ErrNotWritable]. Nil allows every path inside the root.
	Writable func(absPath string) bool

	// Editor, if set, is where file texts are read and written: an
	// editor's buffers instead of the disk ([Editor]). Everything else —
	// which files exist, new directories, removals — is on the disk.
	Editor Editor

	// open replaces os.OpenRoot; tests use it to inject write failures.
	open func(dir string) (fileSystem, error)
}

// Apply applies p to the tree under root and reports what changed. It
// first computes every new file content in memory; if any section of any
// file fails, it returns an [*ApplyError] and writes nothing. It then
// writes each file atomically, keeping its permission bits, writes moved
// files before removing their old paths, and returns a [*WriteError] if a
// write fails (after restoring the files already written). An empty patch
// fails with [ErrEmpty]; a context error is returned as is.
//
// Paths in p are relative to root; absolute paths are accepted only inside
// root. ctx is checked before each file and before writing starts; once
// writing has started it runs to completion. Apply takes no locks: calls
// that touch the same files concurrently race like any two writers.
func Apply(ctx context.Context, root string, p *Patch, opts Options) (*Result, error) {
	pl, err := plan(ctx, root, p, opts)
	if err != nil {
		return nil, err
	}
	defer pl.close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	unlinked, err := pl.commit()
	if err != nil {
		return nil, err
	}
	return &Result{Changes: pl.changes, Unlinked: unlinked}, nil
}

// Preview is [Apply] without the writes: it verifies p against the tree
// under root and returns the changes and diffs Apply would make now.
func Preview(ctx context.Context, root string, p *Patch, opts Options) (*Result, error) {
	pl, err := plan(ctx, root, p, opts)
	if err != nil {
		return nil, err
	}
	pl.close()
	return &Result{Changes: pl.changes}, nil
}

// fileState is a file as the patch sees it: on disk before the patch, and
// after the sections applied so far.
type fileState struct {
	origExists bool
	orig       string
	origMode   fs.FileMode
	exists     bool
	data       string
	mode       fs.FileMode // 0 for a new file: default permissions
	// linked says the file had other hard links when it was read: it is
	// written as a new file, and the other links keep the old content.
	linked bool
}

// planner applies a patch in memory, over the tree it reads lazily.
type planner struct {
	fsys     fileSystem
	root     string // absolute, as the caller spelled it
	realRoot string // symbolic links resolved
	writable func(string) bool
	files    map[string]*fileState // by real path relative to the root
	order    []string              // keys of files, in first-touch order
	changes  []Change
}

func plan(ctx context.Context, root string, p *Patch, opts Options) (*planner, error) {
	if p == nil || len(p.Ops) == 0 {
		return nil, ErrEmpty
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("patch: root: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("patch: root: %w", err)
	}
	open := opts.open
	if open == nil {
		open = openRoot
	}
	fsys, err := open(abs)
	if err != nil {
		return nil, fmt.Errorf("patch: root: %w", err)
	}
	if opts.Editor != nil {
		fsys = editorFS{fileSystem: fsys, ctx: ctx, root: abs, ed: opts.Editor}
	}
	pl := &planner{fsys: fsys, root: abs, realRoot: real, writable: opts.Writable, files: map[string]*fileState{}}
	for _, op := range p.Ops {
		if err := ctx.Err(); err != nil {
			pl.close()
			return nil, err
		}
		if err := pl.apply(op); err != nil {
			pl.close()
			return nil, err
		}
	}
	return pl, nil
}

func (pl *planner) close() { _ = pl.fsys.Close() }

// apply applies one file section in memory.
func (pl *planner) apply(op FileOp) error {
	fail := func(msg string, cause error) error {
		return &ApplyError{Action: op.Action, Path: op.Path, Msg: msg, Err: cause}
	}
	rel, st, err := pl.open(op.Path, op.Action == Add)
	if err != nil {
		return fail(explain(err))
	}
	switch op.Action {
	case Add:
		data := addContent(op.Lines)
		script := scriptOf(Insert, data)
		if st.exists {
			// The reference replaces an existing file (models trained on it
			// rewrite files this way), unless it is read-only.
			if err := readOnly(st); err != nil {
				return fail(explain(err))
			}
			script = append(scriptOf(Remove, st.data), script...)
		}
		pl.changes = append(pl.changes, Change{Action: Add, Path: rel, script: script, replaced: st.exists})
		st.exists, st.data = true, data
	case Delete:
		if pl.isSymlink(rel) {
			return fail("the path is a symbolic link; apply_patch deletes regular files only", ErrSymlink)
		}
		if !st.exists {
			return fail("no such file", fs.ErrNotExist)
		}
		pl.changes = append(pl.changes, Change{Action: Delete, Path: rel, script: scriptOf(Remove, st.data)})
		st.exists, st.data = false, ""
	case Update:
		if !st.exists {
			return fail(`no such file; use "*** Add File:" to create it`, fs.ErrNotExist)
		}
		if err := readOnly(st); err != nil {
			return fail(explain(err))
		}
		data, script, err := updateContent(st.data, op.Chunks)
		if ce, ok := errors.AsType[*chunkError](err); ok {
			return &ApplyError{Action: op.Action, Path: op.Path, Chunk: ce.chunk, Msg: ce.msg, Err: ErrNoMatch}
		} else if err != nil {
			return fail(err.Error(), err)
		}
		ch := Change{Action: Update, Path: rel, script: script}
		if op.MoveTo != "" {
			if pl.isSymlink(rel) {
				return fail("the path is a symbolic link; apply_patch moves regular files only", ErrSymlink)
			}
			drel, dst, err := pl.open(op.MoveTo, true)
			if err != nil {
				msg, cause := explain(err)
				return fail("move to "+op.MoveTo+": "+msg, cause)
			}
			if dst != st {
				// An existing destination is replaced, as the reference
				// does, unless it is read-only.
				if err := readOnly(dst); dst.exists && err != nil {
					msg, cause := explain(err)
					return fail("move to "+op.MoveTo+": "+msg, cause)
				}
				dst.exists, dst.data, dst.mode = true, st.data, st.mode
				st.exists, st.data = false, ""
				st = dst
			}
			ch.Path, ch.MovedFrom = drel, rel
		}
		st.data = data
		pl.changes = append(pl.changes, ch)
	}
	return nil
}

// addContent is the content of an added file: every line ends with "\n".
func addContent(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// scriptOf is the diff script of a whole file added or removed.
func scriptOf(kind LineKind, content string) []diffLine {
	var out []diffLine
	for _, l := range splitLines(content) {
		out = append(out, diffLine{kind, l})
	}
	return out
}

// readOnly refuses to rewrite a file nobody may write (no write permission
// bit), which the reference reports as an error, even when the process
// could write it anyway (as root).
func readOnly(st *fileState) error {
	if st.origExists && st.origMode&0o222 == 0 {
		return &pathError{"the file is read-only", ErrReadOnly}
	}
	return nil
}
