package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentcli/agent/internal/redact"
)

// readResults parses result lines.
func readResults(t *testing.T, data string) []Result {
	t.Helper()
	var out []Result
	for _, line := range strings.Split(strings.TrimSpace(data), "\n") {
		if line == "" {
			continue
		}
		var r Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("result line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// TestResumeAfterCrash: a results file whose last line was cut off by a
// crash is read for the ids it records as completed (the fragment is
// reported and ignored), only the other prompts are left to run, and the
// next result starts on a line of its own.
func TestResumeAfterCrash(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "results.jsonl")
	done := `{"id":"a","status":"completed","exit_class":0,"final_message":"x","usage":{},"retries":0}`
	failed := `{"id":"c","status":"failed","exit_class":1,"final_message":"","usage":{},"retries":0}`
	if err := os.WriteFile(results, []byte(done+"\n"+failed+"\n"+`{"id":"b","status":"compl`), 0o600); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	items := []Item{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	sink, todo, err := Resume(results, items, &warn, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Item{{ID: "b"}, {ID: "c"}}, todo); diff != "" {
		t.Errorf("left to run (-want +got):\n%s", diff)
	}
	for _, want := range []string{"results.jsonl:3: not a result line; ignored", "skipping 1 prompts already completed in " + results} {
		if !strings.Contains(warn.String(), want) {
			t.Errorf("warnings lack %q:\n%s", want, warn.String())
		}
	}
	if err := sink.Write(Result{ID: "b", Status: StatusCompleted}); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(results)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 || lines[0] != done || lines[2] != `{"id":"b","status":"compl` {
		t.Fatalf("results file:\n%s", data)
	}
	if got := readResults(t, lines[3]); got[0].ID != "b" || got[0].Status != StatusCompleted {
		t.Errorf("new line = %q", lines[3])
	}
}

// TestResumeNewFile: a results file that does not exist yet is created;
// every prompt is left to run and nothing is said.
func TestResumeNewFile(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results.jsonl")
	var warn bytes.Buffer
	sink, todo, err := Resume(results, []Item{{ID: "a"}}, &warn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	if len(todo) != 1 || warn.Len() != 0 {
		t.Errorf("todo %v, warnings %q; want every prompt, none", todo, warn.String())
	}
	if _, err := os.Stat(results); err != nil {
		t.Errorf("results file not created: %v", err)
	}
	if _, _, err := Resume(filepath.Join(results, "under-a-file"), nil, &warn, nil); err == nil || !strings.HasPrefix(err.Error(), "--results: ") {
		t.Errorf("an unusable path: %v; want a --results error", err)
	}
}

// TestSinkMasksSecrets: a secret in a result (an error echoing a key)
// never reaches the results file.
func TestSinkMasksSecrets(t *testing.T) {
	const secret = "sk-test-0123456789abcdef"
	results := filepath.Join(t.TempDir(), "results.jsonl")
	sink, _, err := OpenResults(results, &bytes.Buffer{}, redact.New(secret))
	if err != nil {
		t.Fatal(err)
	}
	if err := sink.Write(Result{ID: "a", Status: StatusFailed, Error: "401: bad key " + secret}); err != nil {
		t.Fatal(err)
	}
	sink.Close()
	data, _ := os.ReadFile(results)
	if bytes.Contains(data, []byte(secret)) || !bytes.Contains(data, []byte("bad key")) {
		t.Errorf("results file:\n%s", data)
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

// TestSinkFirstErrorSticks: after a write fails, every later Write fails
// with the first error and writes nothing.
func TestSinkFirstErrorSticks(t *testing.T) {
	w := &failingWriter{}
	sink := NewSink(w)
	err1 := sink.Write(Result{ID: "a"})
	err2 := sink.Write(Result{ID: "b"})
	if err1 == nil || err2 != err1 || sink.Err() != err1 || w.n != 1 {
		t.Errorf("errors %v, %v, Err %v, %d writes; want the first error each time, 1 write", err1, err2, sink.Err(), w.n)
	}
	if err := sink.Close(); err != nil {
		t.Errorf("Close of a stdout sink: %v", err)
	}
}
