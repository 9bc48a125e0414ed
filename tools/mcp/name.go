package mcp

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Naming limits: the Responses API accepts function names matching
// ^[a-zA-Z0-9_-]+$ of at most 64 bytes.
const (
	maxNameLen = 64
	namePrefix = "mcp__"
	nameDelim  = "__"
	hashLen    = 10 // hex digits of the suffix that makes a name unique
)

// Key identifies one tool of one server, by their own names.
type Key struct {
	Server, Tool string
}

// Names returns the model-facing name of every key. The rule, which
// depends only on the set of keys and not on their order:
//
//  1. The name is "mcp__" + server + "__" + tool, with every character
//     outside [a-zA-Z0-9_-] replaced by "_".
//  2. A name longer than 64 bytes is cut to 53 bytes and given the suffix
//     "_" + the first 10 hex digits of SHA-256(server + "\x00" + tool).
//  3. When several keys end up with the same name, each of them gets the
//     rule 2 suffix instead (cutting the name as needed), so none of them
//     depends on which came first.
//  4. Should a suffixed name still clash (a hash collision, or a tool
//     literally named like another's suffixed name), the keys involved are
//     taken in sorted order and the later ones get a counter before the
//     hash until every name is unique.
//
// Duplicate keys get one name.
func Names(keys []Key) map[Key]string {
	keys = slices.Clone(keys)
	slices.SortFunc(keys, compareKeys)
	keys = slices.Compact(keys)
	names := make(map[Key]string, len(keys))
	for _, k := range keys {
		n := baseName(k)
		if len(n) > maxNameLen {
			n = hashedName(n, k, "")
		}
		names[k] = n
	}
	for _, group := range clashes(keys, names) {
		for _, k := range group {
			names[k] = hashedName(baseName(k), k, "")
		}
	}
	for i := 2; ; i++ {
		groups := clashes(keys, names)
		if len(groups) == 0 {
			return names
		}
		for _, group := range groups {
			for _, k := range group[1:] { // the first keeps its name
				names[k] = hashedName(baseName(k), k, strconv.Itoa(i))
			}
		}
	}
}

// clashes returns the groups of keys (each sorted) sharing a name, in
// order of their names.
func clashes(keys []Key, names map[Key]string) [][]Key {
	by := map[string][]Key{}
	for _, k := range keys { // keys are sorted, so each group is too
		by[names[k]] = append(by[names[k]], k)
	}
	var out [][]Key
	for _, n := range slices.Sorted(maps.Keys(by)) {
		if len(by[n]) > 1 {
			out = append(out, by[n])
		}
	}
	return out
}

// baseName is rule 1 of [Names].
func baseName(k Key) string {
	return namePrefix + sanitize(k.Server) + nameDelim + sanitize(k.Tool)
}

// hashedName cuts name so that it ends in "_" + salt + a hash of k and
// still fits the limit.
func hashedName(name string, k Key, salt string) string {
	sum := sha256.Sum256([]byte(k.Server + "\x00" + k.Tool))
	suffix := "_" + salt + hex.EncodeToString(sum[:])[:hashLen]
	return name[:min(len(name), maxNameLen-len(suffix))] + suffix
}

// sanitize replaces every character outside [a-zA-Z0-9_-] with "_".
func sanitize(s string) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}

func compareKeys(a, b Key) int {
	return cmp.Or(strings.Compare(a.Server, b.Server), strings.Compare(a.Tool, b.Tool))
}
