package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// checkLinks refuses to sandbox a command while a file under one of the
// protected paths (the agent's home: hidden or read-only) has other hard
// links on the filesystem of a writable root. Landlock and the mounts
// govern paths, not files: a link planted in the workspace to
// AGENT_HOME/config.toml is that file under a writable path, which the
// command could read and change although the home is out of its reach.
// Only the protected paths are walked, and only when they share a
// filesystem with a writable root.
func checkLinks(protected, writable []string) error {
	devs := map[uint64]bool{}
	for _, w := range writable {
		if st, ok := statT(w); ok {
			devs[st.Dev] = true
		}
	}
	for _, root := range protected {
		if st, ok := statT(root); !ok || !devs[st.Dev] {
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable: the command cannot use what agent cannot see either
			}
			if !d.Type().IsRegular() {
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 && devs[st.Dev] {
				return &linkedError{path: path, links: uint64(st.Nlink), root: root}
			}
			return nil
		})
		var le *linkedError
		if errors.As(err, &le) {
			return le
		}
	}
	return nil
}

// statT is the stat of path, following links.
func statT(path string) (*syscall.Stat_t, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return st, ok
}

// linkedError names a protected file with other hard links.
type linkedError struct {
	path  string
	links uint64
	root  string
}

func (e *linkedError) Error() string {
	return fmt.Sprintf("sandbox: %s has %d hard links: one in a writable place would let a sandboxed command read or "+
		"change it although %s is out of its reach, so no command runs until the other links are removed "+
		"(find them with: find / -xdev -samefile %s)", e.path, e.links, e.root, e.path)
}
