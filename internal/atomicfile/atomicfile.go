// Package atomicfile replaces a file's content all at once, for the files
// several processes read while one writes them and that must survive a
// crash whole: auth.json, config.toml edits, the session index, the retry
// gate's time files, exec's -o file and merged batch results.
package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces the file at path with data. The data goes to a temporary
// file in the same directory, is given mode perm and synced, and the
// temporary file is renamed over path; then the directory is synced, so
// the rename survives a crash too. A reader, or path after a crash, sees
// the old content or the new, whole, never a part. On failure (a full
// disk) the temporary file is removed and path is left as it was.
func Write(path string, data []byte, perm fs.FileMode) error { return Writer{}.Write(path, data, perm) }

// Writer is [Write] with the temporary file's writes passed through Wrap:
// a test makes them fail as a full disk does, and the failure takes the
// path a real one takes. The zero value is [Write].
type Writer struct {
	// Wrap, if set, returns what the data is written to, given the
	// temporary file.
	Wrap func(tmp io.Writer) io.Writer
}

// Write replaces the file at path with data as [Write] does.
func (w Writer) Write(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	var to io.Writer = tmp
	if w.Wrap != nil {
		to = w.Wrap(tmp)
	}
	_, err = to.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err = errors.Join(err, tmp.Close()); err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	// Make the rename durable; where a directory cannot be synced (not on
	// every platform) the data itself already is.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
