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
	paths  []string
	lower  []string    // paths in lower case, for matching
	masks  []uint64    // charMask of each lower path (may be short: a path without one is read)
	parts  []pathParts // the charMasks of each lower path's quarters (likewise)
	blocks []ixBlock   // a summary of each whole block of blockSize paths (likewise)

	pending *ixBlock // the block add is filling
}

// buildFileIndex walks root and lists its files, leaving out .git, what
// the .gitignore and .ignore files of root and of each directory below it
// ignore (each file's rules apply to paths relative to its directory; a
// deeper file's rules win), and root's .git/info/exclude. Unreadable
// directories are skipped. It stops when ctx ends.
//
// partial, when not nil, is given the index as it grows: at firstPartial
// files, then each time the count doubles, so the @ search answers from
// the first files found while a large tree is still being walked. A
// partial index is a prefix of the final one and stays valid: the walk
// only appends after it.
func buildFileIndex(ctx context.Context, root string, partial func(*fileIndex)) (*fileIndex, error) {
	rules := map[string][]*ignore.GitIgnore{} // directory (relative) → its rules
	if gi, err := ignore.CompileIgnoreFile(filepath.Join(root, ".git", "info", "exclude")); err == nil {
		rules["."] = append(rules["."], gi)
	}
	ix := &fileIndex{}
	next := firstPartial
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
		ix.add(rel)
		if n := len(ix.paths); partial != nil && n >= next {
			next = 2 * n
			partial(ix.view(n))
		}
		return nil
	})
	return ix, err
}

// firstPartial is how many files the walk finds before the @ search first
// answers from them (buildFileIndex's partial): a few milliseconds of a
// walk.
const firstPartial = 2000

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

// fuzzyPool caps the subsequence matches the fuzzy scorer orders: scoring
// every one of 100k paths takes seconds, scanning them milliseconds.
const fuzzyPool = 1000

// search returns up to n paths that match query, ignoring case: those
// whose file name starts with it, then those whose name holds it, then
// those whose path does, each in walk order; then paths that hold its
// characters in order, the first fuzzyPool of them ordered by
// github.com/sahilm/fuzzy's score. It reads only the paths that can
// change that answer (find).
func (ix *fileIndex) search(query string, n int) []string {
	return ix.find(query, n, nil).paths
}

// pick returns the paths at indexes is.
func (ix *fileIndex) pick(is []int32) []string {
	out := make([]string, len(is))
	for k, i := range is {
		out[k] = ix.paths[i]
	}
	return out
}

func appendCapped(s []int32, i int32, n int) []int32 {
	if len(s) < n {
		s = append(s, i)
	}
	return s
}

// subsequence reports whether s holds q's bytes in order.
func subsequence(s, q string) bool {
	if q == "" {
		return true
	}
	k := 0
	for i := 0; i < len(s); i++ {
		if s[i] == q[k] {
			if k++; k == len(q) {
				return true
			}
		}
	}
	return false
}
