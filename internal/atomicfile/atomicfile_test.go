package atomicfile_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentcli/agent/internal/atomicfile"
)

func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "auth.json")
	if err := os.WriteFile(path, []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new" {
		t.Fatalf("file holds %q, %v; want \"new\"", b, err)
	}
	if runtime.GOOS != "windows" {
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("mode %v; want 0600", st.Mode().Perm())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the directory holds %d entries; want the file alone (no temporary file left)", len(ents))
	}
}

func TestWriteFailureLeavesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.jsonl")
	if err := os.WriteFile(path, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A directory in the way of the rename: the write fails.
	blocked := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(blocked, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(blocked, []byte("new"), 0o600); err == nil {
		t.Fatal("renaming over a non-empty directory succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "kept" {
		t.Errorf("another file changed: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("the directory holds %d entries; want 2 (the temporary file removed)", len(ents))
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Error("a write into a missing directory succeeded")
	}
}
