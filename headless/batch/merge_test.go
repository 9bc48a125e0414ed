package batch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/exitcode"
)

// writeResults writes result lines to dir/name and returns its path.
func writeResults(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func resultLine(id, status, final string) string {
	return `{"id":"` + id + `","status":"` + status + `","exit_class":0,"final_message":"` + final + `","usage":{},"retries":0}`
}

func idsAndAnswers(t *testing.T, data string) []string {
	var got []string
	for _, r := range readResults(t, data) {
		got = append(got, r.ID+" "+r.Status+" "+r.FinalMessage)
	}
	return got
}

// TestMergeShards: the results files of three slices are joined in the
// batch file's order; for an id the completed result wins over a failed
// one, whichever file came first; lines that are not results are
// reported and skipped.
func TestMergeShards(t *testing.T) {
	dir := t.TempDir()
	path := writeBatch(t, dir, batchLine("a", "a"), batchLine("b", "b"), batchLine("c", "c"), batchLine("d", "d"))
	r1 := writeResults(t, dir, "r1.jsonl", resultLine("c", "completed", "answer c"), resultLine("b", "failed", ""))
	r2 := writeResults(t, dir, "r2.jsonl", resultLine("a", "completed", "answer a"), "garbage")
	r3 := writeResults(t, dir, "r3.jsonl", resultLine("b", "completed", "answer b"), resultLine("d", "completed", "answer d"), resultLine("c", "failed", ""))
	var stdout, stderr bytes.Buffer
	if err := Merge([]string{r1, r2, r3}, MergeOptions{Batch: path, Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatalf("Merge: %v\nstderr:\n%s", err, stderr.String())
	}
	want := []string{"a completed answer a", "b completed answer b", "c completed answer c", "d completed answer d"}
	if diff := cmp.Diff(want, idsAndAnswers(t, stdout.String())); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr.String(), "r2.jsonl:2: not a result line; ignored") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestMergeLostSlice: with one slice's file missing from the merge, the
// prompts without a completed result are named and the merge exits 1;
// the merged file (written atomically) holds the rest; a result for an id
// the batch file does not have is kept and reported.
func TestMergeLostSlice(t *testing.T) {
	dir := t.TempDir()
	path := writeBatch(t, dir, batchLine("a", "a"), batchLine("b", "b"), batchLine("c", "c"))
	r1 := writeResults(t, dir, "r1.jsonl", resultLine("a", "completed", "answer a"), resultLine("c", "failed", ""),
		resultLine("zz", "completed", "stray"))
	out := filepath.Join(dir, "merged.jsonl")
	var stdout, stderr bytes.Buffer
	err := Merge([]string{r1}, MergeOptions{Batch: path, Output: out, Stdout: &stdout, Stderr: &stderr})
	if exitcode.Of(err) != exitcode.Failed || !strings.Contains(err.Error(), "2 of 3 prompts have no completed result") {
		t.Fatalf("Merge: exit %d (%v); want 1, 2 of 3 missing (zz is no prompt of the batch)", exitcode.Of(err), err)
	}
	for _, want := range []string{"batch merge: b: no result\n", "batch merge: c: failed\n", `result for "zz", which is not in ` + path + "; kept"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a completed answer a", "c failed ", "zz completed stray"}, idsAndAnswers(t, string(data))); diff != "" {
		t.Errorf("merged file (-want +got):\n%s", diff)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout with -o: %q", stdout.String())
	}
}

// TestMergeWithoutBatchFile: without --batch, lines come in first-seen
// order and nothing is reported missing.
func TestMergeWithoutBatchFile(t *testing.T) {
	dir := t.TempDir()
	r1 := writeResults(t, dir, "r1.jsonl", resultLine("b", "failed", ""), resultLine("a", "completed", "answer a"))
	r2 := writeResults(t, dir, "r2.jsonl", resultLine("b", "interrupted", ""))
	var stdout, stderr bytes.Buffer
	if err := Merge([]string{r1, r2}, MergeOptions{Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	// Neither of b's results completed: the last one seen is kept.
	if diff := cmp.Diff([]string{"b interrupted ", "a completed answer a"}, idsAndAnswers(t, stdout.String())); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
}

// TestMergeUsageErrors: an unreadable results file or batch file is a
// usage error (exit 2) naming it; nothing is written.
func TestMergeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	r1 := writeResults(t, dir, "r1.jsonl", resultLine("a", "completed", "x"))
	for _, c := range []struct {
		name  string
		paths []string
		batch string
		want  string
	}{
		{"missing results file", []string{r1, filepath.Join(dir, "nope.jsonl")}, "", "nope.jsonl"},
		{"bad batch file", []string{r1}, writeResults(t, dir, "bad.jsonl", "{"), "bad.jsonl:1"},
	} {
		var stdout bytes.Buffer
		err := Merge(c.paths, MergeOptions{Batch: c.batch, Stdout: &stdout, Stderr: &bytes.Buffer{}})
		if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), c.want) || stdout.Len() != 0 {
			t.Errorf("%s: exit %d (%v), stdout %q; want 2 naming %s, nothing written", c.name, exitcode.Of(err), err, stdout.String(), c.want)
		}
	}
}

// TestMergeRefusesEndlessInput: /dev/zero (one endless line) as a results
// file or as the batch file, or a results file past the size bound, is a
// usage error naming it, read no further than the bound.
func TestMergeRefusesEndlessInput(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	r1 := writeResults(t, dir, "r1.jsonl", resultLine("a", "completed", "x"))
	batchFile := writeBatch(t, dir, batchLine("a", "a"))
	for _, c := range []struct {
		name  string
		paths []string
		batch string
	}{
		{"results", []string{r1, "/dev/zero"}, batchFile},
		{"batch", []string{r1}, "/dev/zero"},
	} {
		var stdout bytes.Buffer
		err := Merge(c.paths, MergeOptions{Batch: c.batch, Stdout: &stdout, Stderr: &bytes.Buffer{}})
		if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "/dev/zero:1: a line longer than 16 MiB") || stdout.Len() != 0 {
			t.Errorf("%s /dev/zero: exit %d (%v), stdout %d bytes; want 2 naming /dev/zero:1, nothing written", c.name, exitcode.Of(err), err, stdout.Len())
		}
	}
	if _, _, err := OpenResults("/dev/zero", &bytes.Buffer{}, nil); err == nil || !strings.Contains(err.Error(), "/dev/zero:1") {
		t.Errorf("--results /dev/zero = %v; want refused naming it", err)
	}
	// Many short lines: the file's bound.
	var lines []string
	for range 100 {
		lines = append(lines, resultLine("a", "failed", ""))
	}
	big := writeResults(t, dir, "big.jsonl", lines...)
	err := merge([]string{big}, MergeOptions{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, bounds{line: 1 << 10, file: 4 << 10})
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), big+": longer than 4096 bytes") {
		t.Errorf("merge of a file past its bound: exit %d (%v); want 2 naming it", exitcode.Of(err), err)
	}
}

// TestMergeConflictingResults: two different completed results for one id
// (two slices that both ran it, a re-run) are named, with where each
// was, and the first is kept; the same line twice (a file merged twice)
// is no conflict.
func TestMergeConflictingResults(t *testing.T) {
	dir := t.TempDir()
	r1 := writeResults(t, dir, "r1.jsonl", resultLine("a", "completed", "answer one"), resultLine("b", "completed", "b"))
	r2 := writeResults(t, dir, "r2.jsonl", resultLine("b", "completed", "b"), resultLine("a", "completed", "answer two"))
	var stdout, stderr bytes.Buffer
	if err := Merge([]string{r1, r2}, MergeOptions{Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a completed answer one", "b completed b"}, idsAndAnswers(t, stdout.String())); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
	want := `agent: batch merge: "a" has two different completed results, ` + r1 + `:1 (kept) and ` + r2 + `:2; check which is right` + "\n"
	if stderr.String() != want {
		t.Errorf("stderr = %q; want only %q", stderr.String(), want)
	}
}
