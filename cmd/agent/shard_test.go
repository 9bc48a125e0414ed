package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/agenttest"
	"github.com/agentcli/agent/internal/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestBatchShardsAndMerge: a batch of 6 run as 3 slices (one from
// JOB_COMPLETION_INDEX), each into its own results file, sends each prompt
// exactly once; agent batch merge -o joins the files in the batch's
// order, and exits 1 with one slice not run.
func TestBatchShardsAndMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var lines []string
	scripts := map[string]rt.Script{}
	ids := []string{"a", "b", "c", "d", "e", "f"}
	for _, id := range ids {
		lines = append(lines, batchLine(id, "prompt "+id))
		scripts["prompt "+id] = rt.Script{rt.Reply("r", "m", "answer "+id)}
	}
	path := writeBatch(t, dir, lines...)
	srv := agenttest.NewPromptServer(t, scripts)
	var results []string
	for k := 1; k <= 3; k++ {
		res := filepath.Join(dir, fmt.Sprintf("results-%d.jsonl", k))
		results = append(results, res)
		args := []string{"exec", "--batch", path, "--results", res, "--shard", fmt.Sprintf("%d/3", k)}
		opts := runOpts{config: srv.Config()}
		if k == 3 {
			args[len(args)-1] = "3" // K from the Indexed Job's 0-based index
			opts.env = map[string]string{"JOB_COMPLETION_INDEX": "2"}
		}
		if r := runCLI(t, nil, opts, args...); r.code != exitcode.OK {
			t.Fatalf("slice %d: exit %d; stderr:\n%s", k, r.code, r.stderr)
		}
	}
	want := map[string]int{}
	for _, id := range ids {
		want["prompt "+id] = 1
	}
	if diff := cmp.Diff(want, srv.Requests()); diff != "" {
		t.Errorf("requests per prompt over the 3 slices (-want +got):\n%s", diff)
	}

	merged := filepath.Join(dir, "merged.jsonl")
	r := runCLI(t, nil, runOpts{}, append([]string{"batch", "merge", "--batch", path, "-o", merged}, results...)...)
	if r.code != exitcode.OK || r.stdout != "" {
		t.Fatalf("merge: exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, res := range readResults(t, string(data)) {
		got = append(got, res.ID+" "+res.FinalMessage)
	}
	if diff := cmp.Diff([]string{"a answer a", "b answer b", "c answer c", "d answer d", "e answer e", "f answer f"}, got); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}

	// Slice 2 lost: merge fails (what it reports is batch.TestMergeLostSlice).
	r = runCLI(t, nil, runOpts{}, "batch", "merge", "--batch", path, results[0], results[2])
	if r.code != exitcode.Failed || !strings.Contains(r.stderr, "have no completed result") {
		t.Errorf("merge without slice 2: exit %d; want 1; stderr:\n%s", r.code, r.stderr)
	}
}
