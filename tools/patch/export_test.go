package patch

import (
	"io/fs"
	"path/filepath"
)

// FailOn returns opts whose file system fails writing or removing the file
// name (slash path relative to the root) with err; everything else is real.
func FailOn(opts Options, name string, err error) Options {
	opts.open = func(dir string) (fileSystem, error) {
		fsys, oerr := openRoot(dir)
		if oerr != nil {
			return nil, oerr
		}
		return failingFS{fileSystem: fsys, name: filepath.FromSlash(name), err: err}, nil
	}
	return opts
}

type failingFS struct {
	fileSystem
	name string
	err  error
}

func (f failingFS) WriteFile(name string, data []byte, mode fs.FileMode) error {
	if name == f.name {
		return f.err
	}
	return f.fileSystem.WriteFile(name, data, mode)
}

func (f failingFS) Remove(name string) error {
	if name == f.name {
		return f.err
	}
	return f.fileSystem.Remove(name)
}
