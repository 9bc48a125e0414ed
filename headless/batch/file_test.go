package batch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeBatch writes lines to dir/batch.jsonl and returns its path.
func writeBatch(t *testing.T, dir string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, "batch.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func batchLine(id, prompt string) string {
	b, _ := json.Marshal(map[string]string{"id": id, "prompt": prompt})
	return string(b)
}

// TestReadFileErrors: every way a batch file can be wrong is refused
// with the file and line named, before any prompt runs.
func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ok := batchLine("a", "hi")
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"bad JSON", []string{ok, `{"id": "b", "prompt": `}, "batch.jsonl:2: not a JSON object"},
		{"missing id", []string{ok, `{"prompt":"x"}`}, `batch.jsonl:2: "id" is missing`},
		{"empty id", []string{`{"id":"","prompt":"x"}`}, `batch.jsonl:1: "id" is missing`},
		{"duplicate id", []string{ok, batchLine("b", "x"), "", batchLine("a", "y")}, `batch.jsonl:4: duplicate id "a" (first on line 1)`},
		{"missing prompt", []string{ok, `{"id":"b"}`}, `batch.jsonl:2: id "b": "prompt" is missing`},
		{"blank prompt", []string{`{"id":"b","prompt":"  \n"}`}, `batch.jsonl:1: id "b": "prompt" is missing`},
		{"number id", []string{`{"id":7,"prompt":"x"}`}, `batch.jsonl:1: "id" must be a string`},
		{"unknown field", []string{`{"id":"a","promt":"x"}`}, `batch.jsonl:1: not a JSON object with id, prompt and cwd: json: unknown field "promt"`},
		{"two objects", []string{`{"id":"a","prompt":"x"} {"id":"b","prompt":"y"}`}, "batch.jsonl:1: more than one JSON value"},
		{"cwd missing", []string{ok, `{"id":"b","prompt":"x","cwd":"nope"}`}, `batch.jsonl:2: id "b": cwd "nope" is not a directory`},
		{"cwd is a file", []string{`{"id":"b","prompt":"x","cwd":"file"}`}, `batch.jsonl:1: id "b": cwd "file" is not a directory`},
		{"no prompts", []string{"", "  "}, "batch.jsonl: no prompts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := ReadFile(writeBatch(t, dir, tt.lines...))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadFile = %v, %v; want an error with %q", items, err, tt.want)
			}
		})
	}
	if _, err := ReadFile(filepath.Join(dir, "absent.jsonl")); err == nil || !strings.Contains(err.Error(), "--batch: ") {
		t.Errorf("a missing file: %v; want a --batch error", err)
	}
}

// TestReadFileCwd: a relative cwd is resolved against the batch file's
// directory, not the process's; an absolute one is kept; none leaves Dir
// empty (the batch's own directory).
func TestReadFileCwd(t *testing.T) {
	dir := t.TempDir()
	abs := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	path := writeBatch(t, dir, `{"id":"a","prompt":"a","cwd":"sub"}`, `{"id":"b","prompt":"b","cwd":`+quote(abs)+`}`, batchLine("c", "c"))
	t.Chdir(abs) // not the batch file's directory
	items, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{
		{ID: "a", Prompt: "a", Cwd: "sub", Dir: filepath.Join(dir, "sub")},
		{ID: "b", Prompt: "b", Cwd: abs, Dir: abs},
		{ID: "c", Prompt: "c"},
	}
	if diff := cmp.Diff(want, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
