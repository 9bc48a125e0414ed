package batch

import (
	"fmt"
	"strings"
	"testing"
)

// TestShardSlicesAreDisjointAndCover: for several N, every id of a batch
// is in exactly one of the N slices, and the slices are not lopsided.
func TestShardSlicesAreDisjointAndCover(t *testing.T) {
	var items []Item
	for i := range 1000 {
		items = append(items, Item{ID: fmt.Sprintf("task-%d", i)})
	}
	for _, n := range []int{1, 2, 3, 7, 16} {
		owner := map[string]int{}
		for k := 1; k <= n; k++ {
			slice := Shard{K: k, N: n}.Filter(items)
			if n > 1 && (len(slice) < len(items)/n/2 || len(slice) > 2*len(items)/n) {
				t.Errorf("N=%d: slice %d has %d of %d prompts", n, k, len(slice), len(items))
			}
			for _, it := range slice {
				if prev, dup := owner[it.ID]; dup {
					t.Errorf("N=%d: %s in slices %d and %d", n, it.ID, prev, k)
				}
				owner[it.ID] = k
			}
		}
		if len(owner) != len(items) {
			t.Errorf("N=%d: slices cover %d of %d prompts", n, len(owner), len(items))
		}
	}
	// Stable under edits: removing other lines does not move an id.
	k := 0
	for i := 1; i <= 4; i++ {
		if (Shard{K: i, N: 4}).Has("task-5") {
			k = i
		}
	}
	if got := (Shard{K: k, N: 4}).Filter([]Item{{ID: "task-5"}}); len(got) != 1 {
		t.Error("an id changed slice when the file changed")
	}
}

func TestParseShard(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "JOB_COMPLETION_INDEX" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		in, idx string
		want    Shard
		err     string
	}{
		{"2/5", "", Shard{2, 5}, ""},
		{"1/1", "", Shard{1, 1}, ""},
		{"5", "0", Shard{1, 5}, ""},
		{"/5", "4", Shard{5, 5}, ""},
		{"0/5", "", Shard{}, "want K from 1 to 5"},
		{"6/5", "", Shard{}, "want K from 1 to 5"},
		{"x/5", "", Shard{}, "want K from 1 to 5"},
		{"1/0", "", Shard{}, "N a positive number"},
		{"5", "", Shard{}, "JOB_COMPLETION_INDEX is not set"},
		{"5", "5", Shard{}, "want 0 to 4"},
	} {
		got, err := ParseShard(c.in, env(c.idx))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q (index %q): err %v; want %q", c.in, c.idx, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q (index %q) = %v, %v; want %v", c.in, c.idx, got, err, c.want)
		}
	}
}
