package tui

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// treeWords name the directories and files of genTree's repository.
var treeWords = strings.Fields(`internal cmd pkg src lib server client api auth config
	storage util tests docs web ui components handlers models db migrations scripts
	tools core net http grpc proto cache queue worker metrics log events billing
	user admin search index session token router middleware parser render template
	stream upload image payment order invoice account profile notify email`)

// treeExts are genTree's file extensions, the first ones the commonest.
var treeExts = []string{".go", ".go", "_test.go", ".ts", ".tsx", ".py", ".md", ".json", ".yaml", ".c", ".h", ".proto"}

// genTree lists n files of a made-up repository in walk order: nested
// directories named by common words, 3 to 40 files in each, named by one
// or two words with an extension (some capitalised, a few with digits). A
// smaller n lists a prefix of a larger one's list: a repository's first
// files.
func genTree(n int) []string {
	r := rand.New(rand.NewPCG(44, 1))
	word := func() string { return treeWords[r.IntN(len(treeWords))] }
	var out []string
	for len(out) < n {
		depth := 1 + r.IntN(4)
		dir := make([]string, depth)
		for i := range dir {
			dir[i] = word()
		}
		d := strings.Join(dir, "/")
		for range 3 + r.IntN(38) {
			name := word()
			switch k := r.IntN(10); {
			case k < 4:
				name += "_" + word()
			case k < 5:
				name = strings.ToUpper(name[:1]) + name[1:] + strings.ToUpper(word()[:1]) + word()
			case k < 6:
				name += fmt.Sprint(r.IntN(100))
			}
			out = append(out, d+"/"+name+treeExts[r.IntN(len(treeExts))])
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// indexOf is the index a walk of paths builds.
func indexOf(paths []string) *fileIndex {
	ix := &fileIndex{}
	for _, p := range paths {
		ix.paths, ix.lower = append(ix.paths, p), append(ix.lower, strings.ToLower(p))
	}
	return ix
}

// searchFull is the @ search as it was before the index kept summaries:
// one pass over every path. The search must answer as it does.
func (ix *fileIndex) searchFull(query string, n int) []string {
	q := strings.ToLower(query)
	var tiers [3][]int
	var pool []string
	for i, lp := range ix.lower {
		name := lp[strings.LastIndexByte(lp, '/')+1:]
		switch {
		case strings.HasPrefix(name, q):
			if tiers[0] = appendCapped(tiers[0], i, n); len(tiers[0]) == n {
				return ix.pick(tiers[0])
			}
		case strings.Contains(name, q):
			tiers[1] = appendCapped(tiers[1], i, n)
		case strings.Contains(lp, q):
			tiers[2] = appendCapped(tiers[2], i, n)
		case len(pool) < fuzzyPool && subsequence(lp, q):
			pool = append(pool, ix.paths[i])
		}
	}
	var out []string
	for _, t := range tiers {
		for _, i := range t {
			if len(out) == n {
				return out
			}
			out = append(out, ix.paths[i])
		}
	}
	if len(out) == n {
		return out // rank's limit 0 is no limit
	}
	for _, i := range rank(query, pool, n-len(out)) {
		out = append(out, pool[i])
	}
	return out
}

// TestMentionSearchAtMostN: when the paths holding the query fill the n
// rows exactly, the fuzzy matches are not added after them.
func TestMentionSearchAtMostN(t *testing.T) {
	t.Parallel()
	var paths []string
	for i := range mentionRows {
		paths = append(paths, fmt.Sprintf("auth/f%02d.go", i))
	}
	for i := range 20 {
		paths = append(paths, fmt.Sprintf("a/u/t/h/f%02d.go", i))
	}
	ix := indexOf(paths)
	for _, search := range []func(string, int) []string{ix.search, ix.searchFull} {
		if got := search("auth/", mentionRows); len(got) != mentionRows {
			t.Errorf("search gave %d paths, want %d", len(got), mentionRows)
		}
	}
}
