package tui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sahilm/fuzzy"
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
		ix.add(p)
	}
	return ix.view(len(paths))
}

// searchFull is the @ search as it was before the index kept summaries:
// one pass over every path. The search must answer as it does.
func (ix *fileIndex) searchFull(query string, n int) []string {
	q := strings.ToLower(query)
	var tiers [3][]int32
	var pool []string
	for j, lp := range ix.lower {
		i := int32(j)
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

// searchQueries are queries of the kinds typed after @: every prefix of a
// few words, pieces and scattered letters of paths of the index, single
// letters, capitals, paths with "/", digits, other scripts and the empty
// query.
func searchQueries(paths []string, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 2))
	qs := []string{"", "/", ".go", "_test", "x", "q", "Z", "ü", "É", "İ", "🙂", "hndlr", "pkg123/sub", "file_0999", "a/b", "zzzz"}
	for _, typed := range mentionTyping {
		typed = strings.TrimSuffix(typed, "<")
		for l := 1; l <= len(typed); l++ {
			qs = append(qs, typed[:l])
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		qs = append(qs, string(c))
	}
	for range 60 {
		p := paths[r.IntN(len(paths))]
		i := r.IntN(len(p))
		j := min(len(p), i+1+r.IntN(8))
		qs = append(qs, p[i:j], strings.ToUpper(p[i:j]), p[strings.LastIndexByte(p, '/')+1:][:1+r.IntN(3)])
		var sub []byte
		for k := 0; k < len(p) && len(sub) < 6; k += 1 + r.IntN(5) {
			sub = append(sub, p[k])
		}
		qs = append(qs, string(sub))
	}
	return qs
}

// TestMentionSearchAsFullScan: the search that skips what cannot change
// its answer gives the same paths in the same order as the pass over every
// path, for many queries on a generated tree (and on prefixes of it: a part
// of an index, blocks not whole), on a tree where every path matches, on
// paths in other scripts, on an index without summaries, and narrowed by
// the previous query's matches as the popup does while a query is typed.
func TestMentionSearchAsFullScan(t *testing.T) {
	t.Parallel()
	tree := genTree(30_000)
	tree = append(tree, "docs/Ünïcode/Ärger.md", "İstanbul/KELVİN.go", "ẞtraße/grüße.txt", "emoji/🙂face.png")
	numbered := make([]string, 20_000)
	for i := range numbered {
		numbered[i] = fmt.Sprintf("pkg%03d/sub%02d/file_%05d_handler.go", i%500, i%37, i)
	}
	cases := map[string]*fileIndex{
		"tree":      indexOf(tree),
		"part":      indexOf(tree).view(2000 + 17),
		"small":     indexOf(tree[:65]),
		"numbered":  indexOf(numbered),
		"unindexed": {paths: tree[:3000], lower: indexOf(tree[:3000]).lower},
	}
	for name, ix := range cases {
		for _, q := range searchQueries(ix.paths, uint64(len(ix.paths))) {
			for _, n := range []int{1, 7, mentionRows} {
				want, got := ix.searchFull(q, n), ix.search(q, n)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: search(%q, %d) =\n%q\nwant\n%q", name, q, n, got, want)
				}
			}
		}
	}
	ix, narrowed := cases["tree"], 0
	for _, typed := range append(mentionTyping, "handlerx", "usrprflz", "ÜnïcodeÄ") {
		typed = strings.TrimSuffix(typed, "<")
		var prev found
		for l := 1; l <= len(typed); l++ {
			q := typed[:l]
			f := ix.find(q, mentionRows, &prev)
			if want := ix.searchFull(q, mentionRows); !slices.Equal(f.paths, want) {
				t.Fatalf("narrowed search(%q) =\n%q\nwant\n%q", q, f.paths, want)
			}
			if prev.upto > 0 && strings.HasPrefix(strings.ToLower(q), prev.q) {
				narrowed++
			}
			prev = f
		}
	}
	if narrowed == 0 {
		t.Error("no query was narrowed by the previous one's matches")
	}
}

// TestFuzzyScoreAsLibrary: fuzzyScore gives sahilm/fuzzy's score and
// match for the paths of a generated tree and many queries, in capitals
// and camel case, with separators and repeated letters.
func TestFuzzyScoreAsLibrary(t *testing.T) {
	t.Parallel()
	paths := genTree(3000)
	paths = append(paths, "a", "aa", "A_a", "x/Y-z.w", `back\slash`, "ünï/code.go", "nul\x00byte")
	queries := append(searchQueries(paths, 7), "aa", "aA", "Aa", "a_", "-", "\\", "xyz", "pP", "gOgO", "ss")
	ix := indexOf(paths)
	for _, q := range queries {
		for i, p := range paths {
			want, ok := 0, false
			if ms := fuzzy.FindNoSort(q, []string{p}); len(ms) == 1 {
				want, ok = ms[0].Score, true
			}
			if got, gotOK := fuzzyScore(q, strings.ToLower(q), p, strings.ToLower(p), false); got != want && ok || gotOK != ok {
				t.Fatalf("fuzzyScore(%q, %q) = %d, %v; the library's %d, %v", q, p, got, gotOK, want, ok)
			}
			// As the search scores it: ASCII as the index's character set says.
			ascii := ix.masks[i]&(1<<asciiBucket) == 0
			if got, gotOK := fuzzyScore(q, strings.ToLower(q), p, ix.lower[i], ascii); got != want && ok || gotOK != ok {
				t.Fatalf("fuzzyScore(%q, %q, ascii %v) = %d, %v; the library's %d, %v", q, p, ascii, got, gotOK, want, ok)
			}
		}
	}
}

// TestPathPartsInOrder: the quarters' character sets never rule out a path
// that holds a query's bytes in order, and rule out most of those that hold
// the bytes but not in order (what the search would read otherwise).
func TestPathPartsInOrder(t *testing.T) {
	t.Parallel()
	ix := indexOf(genTree(20_000))
	for _, q := range []string{"srvc", "usrpr", "usrprf", "auth/to", "hndlr"} {
		qq := newQuery(q)
		holding, ruledOut := 0, 0
		for i, lp := range ix.lower {
			if ix.masks[i]&qq.mask != qq.mask {
				continue
			}
			in := qq.inOrder(&ix.parts[i])
			if subsequence(lp, q) {
				if !in {
					t.Fatalf("%q holds %q in order, but its quarters rule it out", lp, q)
				}
				continue
			}
			holding++
			if !in {
				ruledOut++
			}
		}
		if holding == 0 || ruledOut*2 < holding {
			t.Errorf("%q: %d of the %d paths holding its bytes out of order ruled out, want at least half", q, ruledOut, holding)
		}
	}
}
