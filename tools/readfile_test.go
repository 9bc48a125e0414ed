package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcli/agent/tools"
)

// bufferEditor is an editor holding unsaved buffers; other files it
// cannot give.
type bufferEditor map[string]string

func (e bufferEditor) ReadTextFile(_ context.Context, path string) (string, error) {
	if t, ok := e[path]; ok {
		return t, nil
	}
	return "", errors.New("no buffer")
}

func (bufferEditor) WriteTextFile(context.Context, string, string) error { return nil }

// TestReadFile: read_file gives the editor's text (unsaved changes) over
// the disk's, numbered lines from offset for limit lines, long lines cut,
// and refuses what the sandbox hides and bad arguments with Codex's words.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	for _, d := range []string{home, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "auth.json"), `{"OPENAI_API_KEY":"sk-secret"}`)
	write(filepath.Join(work, "disk.txt"), "one\r\ntwo\nthree\n")
	write(filepath.Join(work, "open.go"), "saved on disk\n")
	write(filepath.Join(work, "long.txt"), strings.Repeat("é", 400)+"\nshort\n")
	if err := os.Symlink(filepath.Join(home, "auth.json"), filepath.Join(work, "link")); err != nil {
		t.Fatal(err)
	}
	ed := bufferEditor{filepath.Join(work, "open.go"): "package main\n// unsaved edit\n", filepath.Join(work, "new.go"): "package new\n"}
	rf := tools.NewReadFile(tools.ReadFileOptions{Cwd: work, Unreadable: []string{home}, Editor: ed})
	run := func(args map[string]any) tools.Result {
		b, _ := json.Marshal(args)
		return rf.Run(t.Context(), &tools.Invocation{Call: tools.Call{Name: "read_file", Input: string(b)}})
	}
	for _, c := range []struct {
		name   string
		args   map[string]any
		status tools.Status
		out    string
	}{
		{"the editor's unsaved text", map[string]any{"file_path": filepath.Join(work, "open.go")}, tools.StatusCompleted, "L1: package main\nL2: // unsaved edit"},
		{"a buffer not saved yet", map[string]any{"file_path": filepath.Join(work, "new.go")}, tools.StatusCompleted, "L1: package new"},
		{"the disk's, relative, CRLF", map[string]any{"file_path": "disk.txt"}, tools.StatusCompleted, "L1: one\nL2: two\nL3: three"},
		{"offset and limit", map[string]any{"file_path": "disk.txt", "offset": 2, "limit": 1}, tools.StatusCompleted, "L2: two"},
		{"a long line cut at 500 bytes on a rune", map[string]any{"file_path": "long.txt"}, tools.StatusCompleted, "L1: " + strings.Repeat("é", 250) + "\nL2: short"},
		{"past the end", map[string]any{"file_path": "disk.txt", "offset": 9}, tools.StatusFailed, "offset exceeds file length"},
		{"offset 0", map[string]any{"file_path": "disk.txt", "offset": 0}, tools.StatusFailed, "offset must be a 1-indexed line number"},
		{"limit 0", map[string]any{"file_path": "disk.txt", "limit": 0}, tools.StatusFailed, "limit must be greater than zero"},
		{"the hidden home", map[string]any{"file_path": filepath.Join(home, "auth.json")}, tools.StatusFailed, "which the model cannot read"},
		{"a link into the home", map[string]any{"file_path": "link"}, tools.StatusFailed, "which the model cannot read"},
		{"a file that is not there", map[string]any{"file_path": "nope.txt"}, tools.StatusFailed, "failed to read file"},
		{"a directory", map[string]any{"file_path": work}, tools.StatusFailed, "is not a file"},
	} {
		res := run(c.args)
		if res.Status != c.status || (c.status == tools.StatusCompleted && res.Output != c.out) || !strings.Contains(res.Output, c.out) {
			t.Errorf("%s: %s %q; want %s %q", c.name, res.Status, res.Output, c.status, c.out)
		}
		if strings.Contains(res.Output, "sk-secret") {
			t.Errorf("%s: the secret leaked: %q", c.name, res.Output)
		}
	}
	if res := rf.Run(t.Context(), &tools.Invocation{Call: tools.Call{Input: "{"}}); res.Status != tools.StatusFailed || !strings.Contains(res.Output, "failed to parse function arguments") {
		t.Errorf("bad JSON: %+v", res)
	}
}
