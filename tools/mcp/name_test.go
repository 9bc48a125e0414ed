package mcp_test

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/tools/mcp"
)

// suffix is the rule-2 suffix of k, computed independently of the package.
func suffix(k mcp.Key) string {
	sum := sha256.Sum256([]byte(k.Server + "\x00" + k.Tool))
	return "_" + hex.EncodeToString(sum[:])[:10]
}

func TestNames(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct {
		name string
		keys []mcp.Key
		want map[mcp.Key]string
	}{
		{
			name: "plain",
			keys: []mcp.Key{{"docs", "search"}, {"docs", "fetch"}, {"git-hub", "list_prs"}},
			want: map[mcp.Key]string{
				{"docs", "search"}: "mcp__docs__search", {"docs", "fetch"}: "mcp__docs__fetch",
				{"git-hub", "list_prs"}: "mcp__git-hub__list_prs",
			},
		},
		{
			name: "sanitised",
			keys: []mcp.Key{{"docs", "search.v2"}, {"docs", "résumé"}, {"docs", ""}},
			want: map[mcp.Key]string{
				{"docs", "search.v2"}: "mcp__docs__search_v2", {"docs", "résumé"}: "mcp__docs__r_sum_",
				{"docs", ""}: "mcp__docs___",
			},
		},
		{
			name: "pinned hash of an over-long name",
			keys: []mcp.Key{{"srv", long}},
			want: map[mcp.Key]string{{"srv", long}: "mcp__srv__" + strings.Repeat("x", 43) + "_cfc51d92f0"},
		},
		{
			name: "over-long names sharing a prefix",
			keys: []mcp.Key{{"srv", long + "a"}, {"srv", long + "b"}},
			want: map[mcp.Key]string{
				{"srv", long + "a"}: "mcp__srv__" + strings.Repeat("x", 43) + suffix(mcp.Key{"srv", long + "a"}),
				{"srv", long + "b"}: "mcp__srv__" + strings.Repeat("x", 43) + suffix(mcp.Key{"srv", long + "b"}),
			},
		},
		{
			name: "sanitising collision: both hashed, the bystander untouched",
			keys: []mcp.Key{{"docs", "a.b"}, {"docs", "a_b"}, {"docs", "c"}},
			want: map[mcp.Key]string{
				{"docs", "a.b"}: "mcp__docs__a_b" + suffix(mcp.Key{"docs", "a.b"}),
				{"docs", "a_b"}: "mcp__docs__a_b" + suffix(mcp.Key{"docs", "a_b"}),
				{"docs", "c"}:   "mcp__docs__c",
			},
		},
		{
			name: "delimiter collision across servers",
			keys: []mcp.Key{{"a", "b__c"}, {"a__b", "c"}},
			want: map[mcp.Key]string{
				{"a", "b__c"}: "mcp__a__b__c" + suffix(mcp.Key{"a", "b__c"}),
				{"a__b", "c"}: "mcp__a__b__c" + suffix(mcp.Key{"a__b", "c"}),
			},
		},
		{
			name: "duplicate keys get one name",
			keys: []mcp.Key{{"docs", "x"}, {"docs", "x"}},
			want: map[mcp.Key]string{{"docs", "x"}: "mcp__docs__x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mcp.Names(tt.keys)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Names mismatch (-want +got):\n%s", diff)
			}
			checkNames(t, got)
			rev := slices.Clone(tt.keys)
			slices.Reverse(rev)
			if diff := cmp.Diff(got, mcp.Names(rev)); diff != "" {
				t.Errorf("Names depends on the order of the keys (-forward +reversed):\n%s", diff)
			}
		})
	}
}

// TestNamesSuffixClash covers rule 4: a tool literally named like another
// tool's hashed name.
func TestNamesSuffixClash(t *testing.T) {
	a, b := mcp.Key{"s", "a.b"}, mcp.Key{"s", "a_b"}
	hashedA := "mcp__s__a_b" + suffix(a)
	c := mcp.Key{"s", strings.TrimPrefix(hashedA, "mcp__s__")}
	keys := []mcp.Key{a, b, c}
	got := mcp.Names(keys)
	checkNames(t, got)
	if got[a] != hashedA {
		t.Errorf("Names()[%v] = %q; want %q (the first in order keeps it)", a, got[a], hashedA)
	}
	slices.Reverse(keys)
	if diff := cmp.Diff(got, mcp.Names(keys)); diff != "" {
		t.Errorf("Names depends on the order of the keys (-forward +reversed):\n%s", diff)
	}
}

// checkNames asserts the invariants: the allowed alphabet, at most 64
// bytes, all distinct.
func checkNames(t *testing.T, names map[mcp.Key]string) {
	t.Helper()
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	seen := map[string]mcp.Key{}
	for k, n := range names {
		if !valid.MatchString(n) || len(n) > 64 {
			t.Errorf("name %q of %v: want ^[a-zA-Z0-9_-]+$ and at most 64 bytes (has %d)", n, k, len(n))
		}
		if other, dup := seen[n]; dup {
			t.Errorf("name %q given to both %v and %v", n, other, k)
		}
		seen[n] = k
	}
}
