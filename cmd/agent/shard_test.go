package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/headless/exitcode"
	rt "github.com/agentcli/agent/internal/responsestest"
)

// TestBatchShardsAndMerge: a batch of 6 run as 3 slices (one from
// JOB_COMPLETION_INDEX), each into its own results file, sends each prompt
// exactly once; merge joins the files in the batch's order. With one slice
// not run, merge names its prompts and exits 1.
func TestBatchShardsAndMerge(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	scripts := map[string]rt.Script{}
	ids := []string{"a", "b", "c", "d", "e", "f"}
	for _, id := range ids {
		lines = append(lines, batchLine(id, "prompt "+id))
		scripts["prompt "+id] = rt.Script{rt.Reply("r", "m", "answer "+id)}
	}
	path := writeBatch(t, dir, lines...)
	srv := newPromptServer(t, scripts)
	var results []string
	for k := 1; k <= 3; k++ {
		res := filepath.Join(dir, fmt.Sprintf("results-%d.jsonl", k))
		results = append(results, res)
		args := []string{"exec", "--batch", path, "--results", res, "--shard", fmt.Sprintf("%d/3", k)}
		opts := runOpts{config: srv.config()}
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
	if diff := cmp.Diff(want, srv.requests()); diff != "" {
		t.Errorf("requests per prompt over the 3 slices (-want +got):\n%s", diff)
	}

	r := runCLI(t, nil, runOpts{}, append([]string{"batch", "merge", "--batch", path}, results...)...)
	if r.code != exitcode.OK {
		t.Fatalf("merge: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	var got []string
	for _, res := range readResults(t, r.stdout) {
		got = append(got, res.ID+" "+res.FinalMessage)
	}
	if diff := cmp.Diff([]string{"a answer a", "b answer b", "c answer c", "d answer d", "e answer e", "f answer f"}, got); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}

	// Slice 2 lost: merge lists exactly its prompts and fails.
	data, err := os.ReadFile(results[1])
	if err != nil {
		t.Fatal(err)
	}
	lost := readResults(t, string(data))
	r = runCLI(t, nil, runOpts{}, "batch", "merge", "--batch", path, "-o", filepath.Join(dir, "merged.jsonl"), results[0], results[2])
	if r.code != exitcode.Failed {
		t.Fatalf("merge without slice 2: exit %d; want 1; stderr:\n%s", r.code, r.stderr)
	}
	var named []string
	for _, res := range lost {
		named = append(named, res.ID)
		if !strings.Contains(r.stderr, res.ID+": no result") {
			t.Errorf("stderr does not name missing %q:\n%s", res.ID, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, fmt.Sprintf("%d of 6 prompts have no completed result", len(named))) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	merged, err := os.ReadFile(filepath.Join(dir, "merged.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range readResults(t, string(merged)) {
		if slices.Contains(named, res.ID) {
			t.Errorf("merged file holds %q from the lost slice", res.ID)
		}
	}
}
