package patch

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
)

// pathError is a path problem worded for the model, with its cause.
type pathError struct {
	msg   string
	cause error
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.cause }

// explain splits err into the message and the cause for an [ApplyError].
func explain(err error) (string, error) {
	if pe, ok := errors.AsType[*pathError](err); ok {
		return pe.msg, pe.cause
	}
	return err.Error(), err
}

// open resolves a path of the patch, checks it against the policy and
// returns its slash-separated path relative to the root and its state.
// With create set, the parent directories must exist or be creatable.
func (pl *planner) open(name string, create bool) (string, *fileState, error) {
	rel, err := pl.lexical(name)
	if err != nil {
		return "", nil, err
	}
	key, err := pl.resolve(rel)
	if err != nil {
		return "", nil, err
	}
	if pl.writable != nil && !pl.writable(filepath.Join(pl.root, key)) {
		return "", nil, &pathError{"the path is not writable under the sandbox policy", ErrNotWritable}
	}
	if create {
		if err := pl.checkParents(key); err != nil {
			return "", nil, err
		}
	}
	st, err := pl.load(key)
	return filepath.ToSlash(rel), st, err
}

// lexical cleans name and makes it relative to the root, refusing paths
// that leave it.
func (pl *planner) lexical(name string) (string, error) {
	n := filepath.Clean(filepath.FromSlash(name))
	if filepath.IsAbs(n) {
		r, ok := within(pl.root, n)
		if !ok {
			r, ok = within(pl.realRoot, n)
		}
		if !ok {
			return "", &pathError{"absolute paths must be inside the root " + pl.root + "; use a path relative to it", ErrOutsideRoot}
		}
		n = r
	}
	if n == "." {
		return "", &pathError{"the path is the root directory itself", nil}
	}
	if !filepath.IsLocal(n) {
		return "", &pathError{`the path leaves the root; use a path relative to the root, without ".."`, ErrOutsideRoot}
	}
	return n, nil
}

// within returns p relative to base if p is base or inside it.
func within(base, p string) (string, bool) {
	r, err := filepath.Rel(base, p)
	return r, err == nil && filepath.IsLocal(r)
}

// resolve follows the symbolic links of the existing part of rel and
// returns the real path relative to the root, refusing links that lead out
// of it. Every later file access goes through an os.Root as well, which
// enforces the same rule against races.
func (pl *planner) resolve(rel string) (string, error) {
	existing, rest := filepath.Join(pl.realRoot, rel), ""
	for existing != pl.realRoot {
		real, err := filepath.EvalSymlinks(existing)
		if err == nil {
			r, ok := within(pl.realRoot, real)
			if !ok {
				return "", &pathError{"the path goes through a symbolic link that points outside the root", ErrOutsideRoot}
			}
			return filepath.Join(r, rest), nil
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = filepath.Dir(existing)
	}
	return rest, nil
}

// checkParents verifies that the directories above key are directories or
// can be created, both on disk and after the sections applied so far.
func (pl *planner) checkParents(key string) error {
	var dirs []string
	for d := filepath.Dir(key); d != "."; d = filepath.Dir(d) {
		dirs = append(dirs, d)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		if st, ok := pl.files[d]; ok && st.exists {
			return &pathError{filepath.ToSlash(d) + " is a file, not a directory", nil}
		} else if ok && st.origExists {
			// Removals run after writes, so the directory could not be made.
			return &pathError{filepath.ToSlash(d) + " is a file deleted earlier in this patch; create files under it in a separate patch", nil}
		}
		info, err := pl.fsys.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // created at commit, with everything below it
		case err != nil:
			return err
		case info.Mode()&fs.ModeSymlink != 0:
			return &pathError{filepath.ToSlash(d) + " is a symbolic link that does not resolve inside the root", ErrOutsideRoot}
		case !info.IsDir():
			return &pathError{filepath.ToSlash(d) + " is a file, not a directory", nil}
		}
	}
	return nil
}

// load returns the state of the file at key, reading it on first use.
func (pl *planner) load(key string) (*fileState, error) {
	if st, ok := pl.files[key]; ok {
		return st, nil
	}
	st := &fileState{}
	info, err := pl.fsys.Lstat(key)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		// Absent: an Add creates it, an Update or a Delete fails.
	case err != nil:
		return nil, err
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, &pathError{"the path is a symbolic link that does not resolve inside the root", ErrOutsideRoot}
	case info.IsDir():
		return nil, &pathError{"the path is a directory", nil}
	case !info.Mode().IsRegular():
		return nil, &pathError{"the path is not a regular file", nil}
	default:
		data, err := pl.fsys.ReadFile(key)
		if err != nil {
			return nil, err
		}
		st.origExists, st.orig, st.origMode = true, string(data), info.Mode()
		st.linked = hardLinked(info)
	}
	st.exists, st.data, st.mode = st.origExists, st.orig, st.origMode
	pl.files[key] = st
	pl.order = append(pl.order, key)
	return st, nil
}

// isSymlink reports whether the patch path rel is itself a symbolic link.
func (pl *planner) isSymlink(rel string) bool {
	info, err := pl.fsys.Lstat(filepath.FromSlash(rel))
	return err == nil && info.Mode()&fs.ModeSymlink != 0
}
