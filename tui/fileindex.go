package tui

import (
	"context"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	ignore "github.com/sabhiram/go-gitignore"
)

// maxIndexed caps the files the @ search indexes.
const maxIndexed = 1_000_000

// fileIndex is the @ search's list of files under the working directory,
// as slash-separated paths relative to it, in walk order.
type fileIndex struct {
	paths []string
}

// buildFileIndex walks root and lists its files, leaving out .git, what
// the .gitignore and .ignore files of root and of each directory below it
// ignore (each file's rules apply to paths relative to its directory; a
// deeper file's rules win), and root's .git/info/exclude. Unreadable
// directories are skipped. It stops when ctx ends.
func buildFileIndex(ctx context.Context, root string) (*fileIndex, error) {
	rules := map[string][]*ignore.GitIgnore{} // directory (relative) → its rules
	if gi, err := ignore.CompileIgnoreFile(filepath.Join(root, ".git", "info", "exclude")); err == nil {
		rules["."] = append(rules["."], gi)
	}
	ix := &fileIndex{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && ignored(rules, rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			// A later file's rules win, as in ripgrep (.ignore over .gitignore).
			for _, name := range []string{".gitignore", ".ignore"} {
				if gi, err := ignore.CompileIgnoreFile(filepath.Join(p, name)); err == nil {
					rules[rel] = append(rules[rel], gi)
				}
			}
			return nil
		}
		if len(ix.paths) >= maxIndexed {
			return filepath.SkipAll
		}
		ix.paths = append(ix.paths, rel)
		return nil
	})
	return ix, err
}

// ignored reports whether the rules of rel's ancestors ignore it: the
// deepest directory whose rules match it decides.
func ignored(rules map[string][]*ignore.GitIgnore, rel string, dir bool) bool {
	for d := path.Dir(rel); ; d = path.Dir(d) {
		if gis := rules[d]; len(gis) > 0 {
			sub := rel
			if d != "." {
				sub = strings.TrimPrefix(rel, d+"/")
			}
			if dir {
				sub += "/"
			}
			// A file's last matching rule decides (a "!" rule re-includes);
			// a later file wins over an earlier one.
			for i := len(gis) - 1; i >= 0; i-- {
				if ok, how := gis[i].MatchesPathHow(sub); how != nil {
					return ok
				}
			}
		}
		if d == "." {
			return false
		}
	}
}

// search returns up to n paths that match query (prefix, then fuzzy).
func (ix *fileIndex) search(query string, n int) []string {
	var out []string
	for _, i := range rank(query, ix.paths, n) {
		out = append(out, ix.paths[i])
	}
	return out
}
