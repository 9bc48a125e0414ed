package patch

import (
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// fileSystem is what the planner needs from the tree. Names are relative
// to the root. The implementation is an os.Root; tests wrap it to inject
// failures.
type fileSystem interface {
	Lstat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
	// WriteFile replaces name atomically; mode 0 means default permissions.
	WriteFile(name string, data []byte, mode fs.FileMode) error
	Mkdir(name string) error
	Remove(name string) error
	Close() error
}

func openRoot(dir string) (fileSystem, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return rootFS{r}, nil
}

// rootFS confines every access to one directory tree.
type rootFS struct{ r *os.Root }

func (f rootFS) Lstat(name string) (fs.FileInfo, error) { return f.r.Lstat(name) }
func (f rootFS) ReadFile(name string) ([]byte, error)   { return f.r.ReadFile(name) }
func (f rootFS) Mkdir(name string) error                { return f.r.Mkdir(name, 0o777) }
func (f rootFS) Remove(name string) error               { return f.r.Remove(name) }
func (f rootFS) Close() error                           { return f.r.Close() }

// WriteFile writes data to a temporary file next to name, syncs it, gives
// it mode and renames it over name, then syncs the directory. A file with
// other hard links is replaced too, never written through (the reference
// writes in place): a link planted in the workspace to a file elsewhere,
// such as the agent's hidden home, would otherwise let a patch change that
// file. Its other links keep the old content; [Result.Unlinked] names it.
func (f rootFS) WriteFile(name string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(name)
	tmp := filepath.Join(dir, ".apply_patch-"+rand.Text()[:12]+".tmp")
	file, err := f.r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = file.Write(data)
	if err == nil && mode != 0 { // a new file keeps 0o666 minus the umask
		err = file.Chmod(mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
	}
	if err == nil {
		err = file.Sync()
	}
	if err = errors.Join(err, file.Close()); err == nil {
		err = f.r.Rename(tmp, name)
	}
	if err != nil {
		if rerr := f.r.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
		return err
	}
	// Durability of the rename; the data itself is already synced.
	if d, err := f.r.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// commit writes the planned tree: every created or modified file first, in
// first-touch order, then every removal. It returns the files written that
// had other hard links (now separate files). On a failure it restores what
// it already did and returns a [*WriteError].
func (pl *planner) commit() ([]string, error) {
	var writes, removes []string
	for _, key := range pl.order {
		st := pl.files[key]
		switch {
		case st.exists && (!st.origExists || st.data != st.orig || st.mode != st.origMode):
			writes = append(writes, key)
		case !st.exists && st.origExists:
			removes = append(removes, key)
		}
	}
	var done, dirs []string // files changed and directories created so far
	var unlinked []string
	fail := func(key string, err error) error {
		return &WriteError{Path: filepath.ToSlash(key), Err: err, Rollback: pl.rollback(done, dirs)}
	}
	for _, key := range writes {
		made, err := pl.mkdirs(filepath.Dir(key))
		dirs = append(dirs, made...)
		if err != nil {
			return nil, fail(key, err)
		}
		st := pl.files[key]
		if err := pl.fsys.WriteFile(key, []byte(st.data), st.mode); err != nil {
			return nil, fail(key, err)
		}
		done = append(done, key)
		if st.linked {
			unlinked = append(unlinked, filepath.ToSlash(key))
		}
	}
	for _, key := range removes {
		if err := pl.fsys.Remove(key); err != nil {
			return nil, fail(key, err)
		}
		done = append(done, key)
	}
	return unlinked, nil
}

// mkdirs creates dir and its missing parents, returning those it created,
// outermost first.
func (pl *planner) mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "."; d = filepath.Dir(d) {
		if _, err := pl.fsys.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	slices.Reverse(missing)
	for i, d := range missing {
		if err := pl.fsys.Mkdir(d); err != nil && !errors.Is(err, fs.ErrExist) {
			return missing[:i], err
		}
	}
	return missing, nil
}

// rollback restores the files in done to their state before the patch and
// removes the directories it created, newest first. It returns the
// failures, joined.
func (pl *planner) rollback(done, dirs []string) error {
	var errs []error
	for _, key := range slices.Backward(done) {
		st := pl.files[key]
		var err error
		if st.origExists {
			err = pl.fsys.WriteFile(key, []byte(st.orig), st.origMode)
		} else {
			err = pl.fsys.Remove(key)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, d := range slices.Backward(dirs) {
		_ = pl.fsys.Remove(d) // best effort: fails if something else appeared
	}
	return errors.Join(errs...)
}
