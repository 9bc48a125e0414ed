package tui

import (
	"strings"

	"github.com/sahilm/fuzzy"
)

// rank orders the indexes of names that match query: names starting with
// query first (an exact match before the others, then in their order),
// then the fuzzy matches by score (github.com/sahilm/fuzzy: the query's
// characters in order, word starts and runs scored higher). Matching
// ignores case. An empty query matches every name, in order. limit > 0
// stops after that many.
func rank(query string, names []string, limit int) []int {
	var out []int
	full := func() bool { return limit > 0 && len(out) >= limit }
	if query == "" {
		for i := range names {
			if full() {
				break
			}
			out = append(out, i)
		}
		return out
	}
	q := strings.ToLower(query)
	taken := make(map[int]bool)
	for i, n := range names {
		if strings.EqualFold(n, query) {
			out, taken[i] = append(out, i), true
		}
	}
	for i, n := range names {
		if full() {
			return out
		}
		if !taken[i] && strings.HasPrefix(strings.ToLower(n), q) {
			out, taken[i] = append(out, i), true
		}
	}
	for _, m := range fuzzy.Find(query, names) {
		if full() {
			break
		}
		if !taken[m.Index] {
			out = append(out, m.Index)
		}
	}
	return out
}
