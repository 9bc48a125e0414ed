package tui

import (
	"slices"
	"sort"
	"strings"

	"github.com/sahilm/fuzzy"
)

// The @ search answers exactly as one pass over every path would (the
// tiers of search, in walk order), but skips what cannot change its
// answer. The index keeps, for each path, the set of its characters, and
// for each block of blockSize paths summaries of what the block's paths
// hold: a block the query's characters, character pairs and triples rule
// out is not read. The scan stops needing a tier once the tiers above it
// fill the rows, and the fuzzy pool once it is full; what is left to read
// is only what could still be in a tier it needs. In a large repository the
// answer to a short query is found in its first paths, and a long query
// rules out most blocks.

// blockSize is how many paths one block summary covers.
const blockSize = 64

// Sizes of the hashed sets of a block summary, in bits.
const (
	gramBits  = 4096 // the paths' character pairs and triples
	nameBits  = 2048 // the file names' pairs and triples
	startBits = 512  // the file names' first one, two and three characters
)

// ixBlock summarises blockSize paths (in lower case): a query none of whose
// paths could match is not read. Every set is a superset: a bit set
// proves nothing, a bit clear rules the block out.
type ixBlock struct {
	chars     uint64                 // charBit of every byte of the paths
	nameChars uint64                 // of every byte of the file names
	grams     [gramBits / 64]uint64  // gramHash of each pair and triple of adjacent bytes
	names     [nameBits / 64]uint64  // the same, of the file names
	starts    [startBits / 64]uint64 // gramHash of each name's first 1, 2 and 3 bytes
	order     [64]uint64             // order[charBucket(c)]: the buckets of the bytes before a c in one path
}

// charBucket maps a byte to one of 64 buckets: each lower-case letter,
// digit and common path punctuation its own, the other bytes shared, and
// NUL and the bytes of characters past ASCII asciiBucket alone.
func charBucket(c byte) uint {
	switch {
	case c >= 'a' && c <= 'z':
		return uint(c - 'a')
	case c >= '0' && c <= '9':
		return 26 + uint(c-'0')
	}
	switch c {
	case '_':
		return 36
	case '-':
		return 37
	case '.':
		return 38
	case '/':
		return 39
	case ' ':
		return 40
	}
	if c == 0 || c >= 0x80 {
		return asciiBucket
	}
	return 41 + uint(c)%22
}

// asciiBucket is the bucket of NUL and of bytes past ASCII: a path whose
// charMask lacks it is in ASCII without NUL.
const asciiBucket = 63

// charMask is the set of the buckets of s's bytes.
func charMask(s string) uint64 {
	var m uint64
	for i := 0; i < len(s); i++ {
		m |= 1 << charBucket(s[i])
	}
	return m
}

// gramHash hashes the 1 to 3 bytes of g to bits bits.
func gramHash(g string, bits uint) uint32 {
	k := uint32(len(g)) << 24
	for i := 0; i < len(g); i++ {
		k |= uint32(g[i]) << (8 * i)
	}
	return (k * 0x9E3779B1) >> (32 - bits)
}

func setBit(set []uint64, h uint32)      { set[h/64] |= 1 << (h % 64) }
func hasBit(set []uint64, h uint32) bool { return set[h/64]&(1<<(h%64)) != 0 }

// gramsOf calls f with each pair and triple of adjacent bytes of s.
func gramsOf(s string, f func(string)) {
	for i := 0; i+1 < len(s); i++ {
		f(s[i : i+2])
		if i+2 < len(s) {
			f(s[i : i+3])
		}
	}
}

// add appends a path to the index, and its summaries: the path's character
// set, and when it completes a block the block's summary. pending is the
// block being filled (the index's own, not its views').
func (ix *fileIndex) add(rel string) {
	lp := strings.ToLower(rel)
	var pp pathParts
	for j := 0; j < len(lp); j++ {
		pp[j*len(pp)/len(lp)] |= 1 << charBucket(lp[j])
	}
	ix.paths = append(ix.paths, rel)
	ix.lower = append(ix.lower, lp)
	ix.masks = append(ix.masks, pp[0]|pp[1]|pp[2]|pp[3])
	ix.parts = append(ix.parts, pp)
	if ix.pending == nil {
		ix.pending = &ixBlock{}
	}
	b := ix.pending
	name := lp[strings.LastIndexByte(lp, '/')+1:]
	b.chars |= ix.masks[len(ix.masks)-1]
	b.nameChars |= charMask(name)
	gramsOf(lp, func(g string) { setBit(b.grams[:], gramHash(g, 12)) })
	gramsOf(name, func(g string) { setBit(b.names[:], gramHash(g, 11)) })
	for k := 1; k <= min(3, len(name)); k++ {
		setBit(b.starts[:], gramHash(name[:k], 9))
	}
	var seen uint64
	for i := 0; i < len(lp); i++ {
		c := charBucket(lp[i])
		b.order[c] |= seen
		seen |= 1 << c
	}
	if len(ix.paths)%blockSize == 0 {
		ix.blocks = append(ix.blocks, *b)
		ix.pending = nil
	}
}

// view is the index of its first n paths, which later adds leave as they
// are (a part searched while the walk goes on).
func (ix *fileIndex) view(n int) *fileIndex {
	nb := min(len(ix.blocks), n/blockSize)
	return &fileIndex{paths: ix.paths[:n:n], lower: ix.lower[:n:n], masks: ix.masks[:n:n], parts: ix.parts[:n:n], blocks: ix.blocks[:nb:nb]}
}

// pathParts is the charMask of each quarter of a lower path (its bytes
// split by position): a path holds a query's bytes in order only if the
// quarters, in order, hold the query's in order (query.inOrder). It rules
// out most of the paths that hold the bytes of a query of a few letters
// but not in order, for a few operations rather than a read of the path.
type pathParts [4]uint64

// query is a search's query in lower case and what it rules out.
type query struct {
	q      string
	bits   []uint64 // 1<<charBucket of each byte of q
	mask   uint64   // charMask(q)
	grams  []uint32 // gramHash of q's pairs and triples, for ixBlock.grams
	names  []uint32 // the same, for ixBlock.names
	start  uint32   // gramHash of q's first 3 bytes, for ixBlock.starts
	before []uint64 // before[c]: the buckets of q's bytes before a byte of bucket c
	used   []uint   // the buckets of q's bytes
}

func newQuery(q string) *query {
	qq := &query{q: q, mask: charMask(q), start: gramHash(q[:min(3, len(q))], 9), before: make([]uint64, 64)}
	gramsOf(q, func(g string) {
		qq.grams = append(qq.grams, gramHash(g, 12))
		qq.names = append(qq.names, gramHash(g, 11))
	})
	var seen uint64
	for i := 0; i < len(q); i++ {
		c := charBucket(q[i])
		qq.bits = append(qq.bits, 1<<c)
		if qq.before[c] == 0 && seen&(1<<c) == 0 {
			qq.used = append(qq.used, c)
		}
		qq.before[c] |= seen
		seen |= 1 << c
	}
	return qq
}

// mayHold reports whether a path of block b could hold q (in its path).
func (qq *query) mayHold(b *ixBlock) bool {
	for _, h := range qq.grams {
		if !hasBit(b.grams[:], h) {
			return false
		}
	}
	return true
}

// mayName reports whether a file name of block b could hold q.
func (qq *query) mayName(b *ixBlock) bool {
	if b.nameChars&qq.mask != qq.mask {
		return false
	}
	for _, h := range qq.names {
		if !hasBit(b.names[:], h) {
			return false
		}
	}
	return true
}

// mayOrder reports whether a path of block b could hold q's bytes in
// order.
func (qq *query) mayOrder(b *ixBlock) bool {
	for _, c := range qq.used {
		if b.order[c]&qq.before[c] != qq.before[c] {
			return false
		}
	}
	return true
}

// inOrder reports whether a path of parts pp could hold q's bytes in
// order: with each quarter taking the longest run of q's next bytes it
// holds, the quarters take all of q. (A quarter that holds a run of q
// holds every shorter one, so a path holding q's bytes in order passes.)
func (qq *query) inOrder(pp *pathParts) bool {
	m, bits := 0, qq.bits
	for _, a := range pp {
		for m < len(bits) && a&bits[m] != 0 {
			m++
		}
	}
	return m == len(bits)
}

// mayStart reports whether a file name of block b could start with q.
func (qq *query) mayStart(b *ixBlock) bool { return hasBit(b.starts[:], qq.start) }

// found is a search's answer: up to n paths, and the indexes of the paths
// before upto that hold the query's bytes in order (all, in walk order): a
// longer query's matches before upto are among them.
type found struct {
	paths []string
	q     string // the query in lower case
	all   []int32
	upto  int
}

// scan is one search's state: the tiers of search so far, and the matches
// read while the pool is needed (all; upto is -1 until it no longer is).
// hold is false while the paths read are in a block none of whose paths
// holds q (its summary says so).
type scan struct {
	ix    *fileIndex
	q     *query
	hold  bool
	n     int
	tiers [3][]int32
	pool  []int32
	all   []int32
	upto  int
}

// visit puts path i in its tier, if it matches; it reports whether tier 0
// is full (the answer). Every tier holds q's bytes in order.
func (s *scan) visit(i int) bool {
	ix, q := s.ix, s.q.q
	if i < len(ix.masks) && ix.masks[i]&s.q.mask != s.q.mask {
		return false
	}
	lp := ix.lower[i]
	at := -1
	if s.upto >= 0 { // only the tiers are read: their paths hold q
		if !s.hold {
			return false
		}
		if at = strings.Index(lp, q); at < 0 {
			return false
		}
	} else {
		if i < len(ix.parts) && !s.q.inOrder(&ix.parts[i]) || !subsequence(lp, q) {
			return false
		}
		s.all = append(s.all, int32(i))
		if s.hold {
			at = strings.Index(lp, q)
		}
	}
	if at < 0 {
		if len(s.pool) < fuzzyPool {
			s.pool = append(s.pool, int32(i))
		}
		if s.upto < 0 && !s.needsPool() {
			s.upto = i + 1
		}
		return false
	}
	name := lp[strings.LastIndexByte(lp, '/')+1:]
	switch {
	case strings.HasPrefix(name, q):
		s.tiers[0] = appendCapped(s.tiers[0], int32(i), s.n)
	case at >= len(lp)-len(name) || strings.Contains(name, q):
		s.tiers[1] = appendCapped(s.tiers[1], int32(i), s.n)
	default:
		s.tiers[2] = appendCapped(s.tiers[2], int32(i), s.n)
	}
	if s.upto < 0 && !s.needsPool() {
		s.upto = i + 1
	}
	return len(s.tiers[0]) == s.n
}

// needsPool reports whether the fuzzy pool can still change the answer:
// it is not full and the tiers do not fill the rows.
func (s *scan) needsPool() bool {
	return len(s.tiers[0])+len(s.tiers[1])+len(s.tiers[2]) < s.n && len(s.pool) < fuzzyPool
}

// needs reports whether block b could hold a path that changes the answer:
// one for tier 0 while it is not full, for tier 1 while tiers 0 and 1 do
// not fill the rows, for tier 2 likewise, for the pool while needsPool. A
// tier no longer needed stays so, so each tier needed was read in full up
// to here. It reads only the summaries that can still tell: the character
// order only while the pool is needed.
// It also reports whether a path of b could hold q.
func (s *scan) needs(b *ixBlock) (need, hold bool) {
	q := s.q
	if b.chars&q.mask != q.mask {
		return false, false
	}
	if hold = q.mayHold(b); hold {
		n1 := len(s.tiers[0]) + len(s.tiers[1])
		if n1+len(s.tiers[2]) < s.n {
			return true, true
		}
		if q.mayName(b) && (n1 < s.n || q.mayStart(b)) {
			return true, true
		}
	}
	return s.needsPool() && q.mayOrder(b), hold
}

// find searches the index as search does. prev, when not nil, is the
// answer of this index to an earlier query: when its query (in lower case)
// starts this one, of the paths before its upto only its matches are read:
// a path holding this query's bytes in order holds those of any prefix of
// it.
func (ix *fileIndex) find(query string, n int, prev *found) found {
	if query == "" {
		return found{paths: ix.paths[:min(n, len(ix.paths))]}
	}
	s := &scan{ix: ix, q: newQuery(strings.ToLower(query)), hold: true, n: n, upto: -1}
	start := 0
	if prev != nil && prev.upto > 0 && strings.HasPrefix(s.q.q, prev.q) {
		for _, i := range prev.all {
			if s.visit(int(i)) {
				return s.answer(query)
			}
		}
		start = prev.upto
	}
	whole := len(ix.blocks) * blockSize
	for i := start; i < len(ix.lower); {
		end := min(len(ix.lower), (i/blockSize+1)*blockSize)
		s.hold = true
		if i < whole && i%blockSize == 0 {
			var need bool
			if need, s.hold = s.needs(&ix.blocks[i/blockSize]); !need {
				i = end
				continue
			}
		}
		if s.visitRange(i, end) {
			break
		}
		i = end
	}
	return s.answer(query)
}

// visitRange visits the paths from i to end whose character sets hold the
// query's (all, where the index has none); it reports whether tier 0 is
// full.
func (s *scan) visitRange(i, end int) bool {
	m, masks := s.q.mask, s.ix.masks
	for hi := min(end, len(masks)); i < hi; i++ {
		if masks[i]&m == m && s.visit(i) {
			return true
		}
	}
	for ; i < end; i++ {
		if s.visit(i) {
			return true
		}
	}
	return false
}

// answer is the tiers in order, then the pool ranked, n at most.
func (s *scan) answer(query string) found {
	f := found{q: s.q.q, all: s.all, upto: s.upto}
	if s.upto < 0 {
		f.upto = len(s.ix.lower) // read to the end while the pool was needed
	}
	for _, t := range s.tiers {
		for _, i := range t {
			if len(f.paths) < s.n {
				f.paths = append(f.paths, s.ix.paths[i])
			}
		}
	}
	if len(f.paths) == s.n {
		return f // rank's limit 0 is no limit
	}
	for _, k := range rankPool(query, s.q.q, s.ix, s.pool, s.n-len(f.paths)) {
		f.paths = append(f.paths, s.ix.paths[s.pool[k]])
	}
	return f
}

// rankPool is rank(query, the paths of ix at pool, limit) for a pool of
// paths that do not hold the query (its prefix matches cannot be), with
// the fuzzy matches scored by fuzzyScore and only the best kept, in
// fuzzy.Find's order (by score, ties in pool order), rather than all of
// them stably sorted. lq is the query in lower case.
func rankPool(query, lq string, ix *fileIndex, pool []int32, limit int) []int {
	var out []int
	taken := map[int]bool{}
	for i, k := range pool {
		if strings.EqualFold(ix.paths[k], query) {
			out, taken[i] = append(out, i), true
		}
	}
	type scored struct{ score, i int }
	keep := limit - len(out)
	var top []scored // the best keep so far, best first; ties in pool order
	for i, k := range pool {
		ascii := int(k) < len(ix.masks) && ix.masks[k]&(1<<asciiBucket) == 0
		score, ok := fuzzyScore(query, lq, ix.paths[k], ix.lower[k], ascii)
		if !ok || taken[i] || keep <= 0 || len(top) == keep && score <= top[keep-1].score {
			continue
		}
		at := sort.Search(len(top), func(k int) bool { return top[k].score < score }) // after equal scores
		top = slices.Insert(top, at, scored{score, i})
		if len(top) > keep {
			top = top[:keep]
		}
	}
	for _, m := range top {
		out = append(out, m.i)
	}
	return out
}

// fuzzyScore is github.com/sahilm/fuzzy's score of s for pattern, and
// whether s matches it; lp and ls are pattern and s in lower case
// (strings.ToLower); ascii, when true, says s is in ASCII without NUL.
// It is the library's own loop on bytes, without allocation, for a
// pattern and a string in ASCII without NUL (where the library's
// equalFold is the equality of the lower-case bytes); the library scores
// the others.
func fuzzyScore(pattern, lp, s, ls string, ascii bool) (int, bool) {
	if pattern == "" || len(lp) != len(pattern) || len(ls) != len(s) || !plainASCII(pattern) || !ascii && !plainASCII(s) {
		return libraryScore(pattern, s)
	}
	score, matched, lastMatch, pi := 0, 0, -1, 0
	best, bestAt, adjacent := -1, -1, 0
	p, nextp := lp[0], byte(0) // pattern[pi] and pattern[pi+1] (0 after the last), lower case
	if len(lp) > 1 {
		nextp = lp[1]
	}
	// Before the pattern's first byte nothing is scored; from it on a best
	// score is known (bestAt > -1). The library's last character and its
	// index are the byte before j.
	first := strings.IndexByte(ls, p)
	if first < 0 {
		return 0, false
	}
	for j := first; j < len(s); j++ {
		if ls[j] == p {
			sc := 0
			if j == 0 {
				sc += 10 // the first character
			} else {
				last, c := s[j-1], s[j]
				if last >= 'a' && last <= 'z' && c >= 'A' && c <= 'Z' {
					sc += 20 // camel case
				}
				if isSeparator(last) {
					sc += 20 // after a separator
				}
			}
			if matched > 0 && lastMatch == j-1 {
				bonus := adjacent*2 + 5 // adjacent to the last match, growing
				sc += bonus
				adjacent += bonus
			}
			if sc > best {
				best, bestAt = sc, j
			}
		}
		// The library applies the best score when the next byte is the
		// pattern's next or the string ends.
		if j+1 == len(s) || ls[j+1] == nextp {
			if matched == 0 {
				best += max(bestAt*-5, -15) // the unmatched leading characters
			}
			score += best
			matched, lastMatch = matched+1, bestAt
			best = -1
			pi++
			if pi < len(lp) {
				p = lp[pi]
			}
			nextp = 0
			if pi+1 < len(lp) {
				nextp = lp[pi+1]
			}
		}
	}
	return score + matched - len(s), matched == len(pattern)
}

// libraryScore is sahilm/fuzzy's score of s for pattern, and whether s
// matches it.
func libraryScore(pattern, s string) (int, bool) {
	ms := fuzzy.FindNoSort(pattern, []string{s})
	if len(ms) == 0 {
		return 0, false
	}
	return ms[0].Score, true
}

// isSeparator is sahilm/fuzzy's isSeparator for a byte.
func isSeparator(c byte) bool {
	switch c {
	case '/', '-', '_', ' ', '.', '\\':
		return true
	}
	return false
}

// plainASCII reports whether s is ASCII without NUL.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 || s[i] >= 0x80 {
			return false
		}
	}
	return true
}
