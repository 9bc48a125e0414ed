package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentcli/agent/exitcode"
	"github.com/agentcli/agent/internal/atomicfile"
)

// shard is one of N deterministic slices of a batch file (--shard K/N).
type shard struct {
	k, n int // 1 ≤ k ≤ n
}

// parseShard reads --shard: "K/N" (K from 1 to N), or "N" or "/N" to take
// K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job's 0-based index,
// so index i runs slice i+1).
func parseShard(s string, getenv func(string) string) (shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	if !ok {
		ks, ns = "", s
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return shard{}, fmt.Errorf("--shard %q: want K/N with N a positive number", s)
	}
	if ks == "" {
		idx := getenv("JOB_COMPLETION_INDEX")
		if idx == "" {
			return shard{}, fmt.Errorf("--shard %q gives no K and JOB_COMPLETION_INDEX is not set", s)
		}
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 || i >= n {
			return shard{}, fmt.Errorf("JOB_COMPLETION_INDEX=%q: want 0 to %d for --shard %q", idx, n-1, s)
		}
		return shard{k: i + 1, n: n}, nil
	}
	k, err := strconv.Atoi(ks)
	if err != nil || k < 1 || k > n {
		return shard{}, fmt.Errorf("--shard %q: want K from 1 to %d", s, n)
	}
	return shard{k: k, n: n}, nil
}

// has reports whether the prompt with id belongs to the slice. The slice
// is chosen by a hash of the id alone, so it does not move when lines are
// added, removed or reordered: a slice's results file keeps resuming.
func (s shard) has(id string) bool {
	h := fnv.New64a()
	h.Write([]byte(id))
	return int(h.Sum64()%uint64(s.n)) == s.k-1
}

// filter returns the items of the slice.
func (s shard) filter(items []batchItem) []batchItem {
	var out []batchItem
	for _, it := range items {
		if s.has(it.ID) {
			out = append(out, it)
		}
	}
	return out
}

// newBatchCmd is `agent batch`, the commands about batch results.
func newBatchCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "batch",
		Short: "Work with the results of agent exec --batch",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newBatchMergeCmd(env))
	return cmd
}

// newBatchMergeCmd is `agent batch merge`.
func newBatchMergeCmd(env Env) *cobra.Command {
	var file, out string
	cmd := &cobra.Command{
		Use:   "merge --batch FILE RESULTS...",
		Short: "Join the results files of a sharded batch and report the prompts without a completed result",
		Long: `Joins results files (of the --shard slices of one batch, or of re-runs) into one
results stream: for each id the completed result wins, else the last one seen.
With --batch FILE, every prompt of FILE without a completed result is listed on
stderr and the exit code is 1; the merged lines are written in FILE's order.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBatchMerge(env, file, out, args)
		},
	}
	cmd.Flags().StringVar(&file, "batch", "", "the batch file: report its prompts that have no completed result")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the merged results to FILE (atomically) instead of stdout")
	return cmd
}

// mergeInput is one result line kept by merge.
type mergeInput struct {
	line []byte
	r    batchResult
}

func runBatchMerge(env Env, batchFile, out string, paths []string) error {
	byID := map[string]mergeInput{}
	var seen []string // ids in first-seen order, for merges without --batch
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return usageError(err)
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var r batchResult
			if err := json.Unmarshal(line, &r); err != nil || r.ID == "" {
				fmt.Fprintf(env.Stderr, "agent: %s:%d: not a result line; ignored\n", p, i+1)
				continue
			}
			prev, ok := byID[r.ID]
			if !ok {
				seen = append(seen, r.ID)
			}
			if !ok || prev.r.Status != statusCompleted {
				byID[r.ID] = mergeInput{line: slices.Clone(line), r: r}
			}
		}
	}
	order := seen
	var missing []string
	if batchFile != "" {
		items, err := readBatch(batchFile)
		if err != nil {
			return usageError(err)
		}
		order = order[:0:0]
		inFile := map[string]bool{}
		for _, it := range items {
			inFile[it.ID] = true
			order = append(order, it.ID)
			if m, ok := byID[it.ID]; !ok || m.r.Status != statusCompleted {
				missing = append(missing, it.ID)
			}
		}
		for _, id := range seen {
			if !inFile[id] {
				fmt.Fprintf(env.Stderr, "agent: batch merge: result for %q, which is not in %s; kept\n", id, batchFile)
				order = append(order, id)
			}
		}
	}
	var buf bytes.Buffer
	for _, id := range order {
		if m, ok := byID[id]; ok {
			buf.Write(m.line)
			buf.WriteByte('\n')
		}
	}
	if err := writeMerged(env.Stdout, out, buf.Bytes()); err != nil {
		return &exitcode.Error{Code: exitcode.Failed, Err: err}
	}
	if len(missing) > 0 {
		for _, id := range missing {
			state := "no result"
			if m, ok := byID[id]; ok {
				state = m.r.Status
			}
			fmt.Fprintf(env.Stderr, "agent: batch merge: %s: %s\n", id, state)
		}
		return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("%d of %d prompts have no completed result", len(missing), len(order))}
	}
	return nil
}

// writeMerged writes data to path atomically ([atomicfile.Write]), or to
// stdout when path is "".
func writeMerged(stdout io.Writer, path string, data []byte) error {
	if path == "" {
		_, err := stdout.Write(data)
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}
