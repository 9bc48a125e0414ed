package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// protectedPaths returns the paths inside the writable roots that must stay
// read-only: the .git of each root (a directory, or a file in a worktree or
// submodule) and, when .git is a file saying "gitdir: DIR", DIR as well,
// and each of extra, which must be absolute.
// roots must be absolute with symlinks resolved. Paths outside every root
// are left out, since they are read-only anyway, and so are missing ones.
// The result is sorted and free of duplicates. An extra path that exists
// but cannot be resolved is an error: it might be writable otherwise.
func protectedPaths(roots, extra []string) ([]string, error) {
	var out []string
	add := func(p string) {
		real, err := filepath.EvalSymlinks(p)
		if err == nil && within(real, roots) {
			out = append(out, real)
		}
	}
	for _, r := range roots {
		dotgit := filepath.Join(r, ".git")
		fi, err := os.Stat(dotgit)
		if err != nil {
			continue
		}
		add(dotgit)
		if !fi.Mode().IsRegular() {
			continue
		}
		if dir, ok := readGitdir(dotgit); ok {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(r, dir) // relative to the .git file's directory
			}
			add(dir)
		}
	}
	for _, p := range extra {
		real, err := filepath.EvalSymlinks(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, fmt.Errorf("sandbox: read-only path: %w", err)
		}
		if within(real, roots) {
			out = append(out, real)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// readGitdir returns DIR from the "gitdir: DIR" line of a .git file.
func readGitdir(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if dir, ok := strings.CutPrefix(sc.Text(), "gitdir:"); ok {
			dir = strings.TrimSpace(dir)
			return dir, dir != ""
		}
	}
	return "", false
}

// within reports whether path is one of roots or below one of them.
func within(path string, roots []string) bool {
	for _, r := range roots {
		if r == "/" || path == r || strings.HasPrefix(path, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
