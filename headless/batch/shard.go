package batch

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is one of N deterministic slices of a batch file (--shard K/N).
type Shard struct {
	K, N int // 1 ≤ K ≤ N
}

// ParseShard reads --shard: "K/N" (K from 1 to N), or "N" or "/N" to take
// K from JOB_COMPLETION_INDEX, read with getenv (a Kubernetes Indexed
// Job's 0-based index, so index i runs slice i+1).
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	if !ok {
		ks, ns = "", s
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return Shard{}, fmt.Errorf("--shard %q: want K/N with N a positive number", s)
	}
	if ks == "" {
		idx := getenv("JOB_COMPLETION_INDEX")
		if idx == "" {
			return Shard{}, fmt.Errorf("--shard %q gives no K and JOB_COMPLETION_INDEX is not set", s)
		}
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 || i >= n {
			return Shard{}, fmt.Errorf("JOB_COMPLETION_INDEX=%q: want 0 to %d for --shard %q", idx, n-1, s)
		}
		return Shard{K: i + 1, N: n}, nil
	}
	k, err := strconv.Atoi(ks)
	if err != nil || k < 1 || k > n {
		return Shard{}, fmt.Errorf("--shard %q: want K from 1 to %d", s, n)
	}
	return Shard{K: k, N: n}, nil
}

// Has reports whether the prompt with id belongs to the slice. The slice
// is chosen by a hash of the id alone, so it does not move when lines are
// added, removed or reordered: a slice's results file keeps resuming.
func (s Shard) Has(id string) bool {
	h := fnv.New64a()
	h.Write([]byte(id))
	return int(h.Sum64()%uint64(s.N)) == s.K-1
}

// Filter returns the items of the slice.
func (s Shard) Filter(items []Item) []Item {
	var out []Item
	for _, it := range items {
		if s.Has(it.ID) {
			out = append(out, it)
		}
	}
	return out
}
